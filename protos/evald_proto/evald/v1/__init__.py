"""Generated protobuf and gRPC modules of evald; see protos/. Do not edit."""
