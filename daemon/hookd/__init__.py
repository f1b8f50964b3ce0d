"""hookd: a policy-proxy daemon that serves hook decisions to AI coding agents."""

import os

# Before anything imports grpc: gRPC's fork handlers then stay out of every fork of a hookd process. The
# daemon starts its lane and workers through uvloop, whose spawn is a plain fork() then exec; while the control
# plane's gRPC server ran, gRPC's handlers ran in that child before the exec and crashed it now and then (SIGSEGV:
# 1 child in 20-30 that tests/unit/test_control_server.py spawned that way). No hookd child uses gRPC before exec.
os.environ["GRPC_ENABLE_FORK_SUPPORT"] = "false"

__version__ = "0.1.0"
