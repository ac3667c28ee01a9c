"""The bare echo gRPC server the benchmark compares evald with.

The same stack as evald (``grpc.aio`` server, a generic handler taking and returning raw bytes,
the same channel options), but no work: every call gets the same ready-made
``EvaluateInstancesResponse`` (one exact-match score). Run ``python -m bench.echo PORT CORE``
(CORE ``-`` for no pinning); it listens with SO_REUSEPORT so several share a port, as evald's
workers do, and prints ``ready`` once it listens; SIGTERM stops it.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from typing import Any

import grpc
from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as messages

METHOD = "EvaluateInstances"
SERVICE = "google.cloud.aiplatform.v1beta1.EvaluationService"

RESPONSE = messages.EvaluateInstancesResponse(
    exact_match_results=messages.ExactMatchResults(
        exact_match_metric_values=[messages.ExactMatchMetricValue(score=1.0)]
    )
).SerializeToString()


async def serve(port: int) -> None:
    """Serve the echo handler on 127.0.0.1:``port`` until SIGTERM or SIGINT."""
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", 64 * 1024 * 1024),
            ("grpc.max_send_message_length", 64 * 1024 * 1024),
            ("grpc.so_reuseport", 1),
        ]
    )

    async def echo(raw: bytes, context: Any) -> bytes:
        return RESPONSE

    handler = grpc.unary_unary_rpc_method_handler(
        echo, request_deserializer=None, response_serializer=None
    )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(SERVICE, {METHOD: handler}),)
    )
    if server.add_insecure_port(f"127.0.0.1:{port}") == 0:
        raise OSError(f"echo cannot listen on 127.0.0.1:{port}")
    await server.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    print("ready", flush=True)
    await stop.wait()
    await server.stop(1)


def main(argv: list[str]) -> int:
    """``PORT CORE``: listen on PORT, pinned to CORE (``-``: not pinned)."""
    port, core = int(argv[0]), argv[1]
    if core != "-":
        os.sched_setaffinity(0, {int(core)})
    asyncio.run(serve(port))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
