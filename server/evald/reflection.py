"""gRPC server reflection."""

from __future__ import annotations

from collections.abc import Sequence

import grpc
from grpc_reflection.v1alpha import reflection as stock


def enable(server: grpc.aio.Server, service_names: Sequence[str]) -> None:
    """Serve reflection for the given services."""
    stock.enable_server_reflection([*service_names, stock.SERVICE_NAME], server)
