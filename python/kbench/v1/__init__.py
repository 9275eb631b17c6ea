"""Generated protobuf and gRPC stubs of the kbench.v1 API (python/generate.sh); do not edit."""
