"""The control plane: gRPC services on the control socket, and who may call them."""
