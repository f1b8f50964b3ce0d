"""Generated gRPC stubs of protos/hookd/v1/hookd.proto (scripts/gen_protos.sh); do not edit."""
