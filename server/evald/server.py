"""The gRPC server: EvaluationService (v1beta1 and v1), health, reflection, TLS, graceful stop."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from dataclasses import dataclass

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from evald import api, logs, reflection
from evald.config import Settings
from evald.service import Evaluator, GrpcEvaluationService

log = logging.getLogger(__name__)


@dataclass
class RunningServer:
    """A started server and the port it listens on (useful when asked for port 0)."""

    server: grpc.aio.Server
    port: int
    health: health.aio.HealthServicer
    settings: Settings

    @property
    def address(self) -> str:
        """host:port to dial."""
        host = self.settings.host
        return f"[{host}]:{self.port}" if ":" in host else f"{host}:{self.port}"

    async def stop(self, grace: float | None = None) -> None:
        """Refuse new calls, let in-flight ones finish within the grace period, then stop."""
        await self.health.enter_graceful_shutdown()
        await self.server.stop(self.settings.grace_seconds if grace is None else grace)


def channel_options(settings: Settings) -> list[tuple[str, int]]:
    """Options shared by the server (and by clients that want the same limits)."""
    return [
        ("grpc.max_receive_message_length", settings.max_message_bytes),
        ("grpc.max_send_message_length", settings.max_message_bytes),
    ]


async def start(settings: Settings) -> RunningServer:
    """Build, bind and start the server; raises OSError if the address cannot be bound."""
    options = [*channel_options(settings), ("grpc.so_reuseport", 1 if settings.reuse_port else 0)]
    server = grpc.aio.server(options=options)
    service = GrpcEvaluationService(Evaluator())
    server.add_generic_rpc_handlers(tuple(service.method_handlers()))

    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable(server, [*api.SERVICE_NAMES.values(), health.SERVICE_NAME])

    address = f"[{settings.host}]:{settings.port}" if ":" in settings.host else (
        f"{settings.host}:{settings.port}"
    )
    try:
        if settings.tls:
            assert settings.tls_cert is not None and settings.tls_key is not None
            credentials = grpc.ssl_server_credentials(
                [(settings.tls_key.read_bytes(), settings.tls_cert.read_bytes())]
            )
            port = server.add_secure_port(address, credentials)
        else:
            port = server.add_insecure_port(address)
    except RuntimeError as exc:
        raise OSError(f"cannot listen on {address}: {exc}") from None
    if port == 0:
        raise OSError(f"cannot listen on {address}")
    await server.start()
    for name in ["", *api.SERVICE_NAMES.values()]:
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    return RunningServer(server, port, health_servicer, settings)


async def serve(settings: Settings) -> None:
    """Run until SIGTERM or SIGINT, then shut down gracefully."""
    running = await start(settings)
    log.info(
        "serving",
        extra={
            "fields": {
                "address": running.address,
                "tls": settings.tls,
                "services": list(api.SERVICE_NAMES.values()),
            }
        },
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    log.info("shutting down", extra={"fields": {"grace_seconds": settings.grace_seconds}})
    await running.stop()
    log.info("stopped")


def main(settings: Settings) -> None:
    """Configure logging and serve until signalled."""
    logs.configure(settings.log_level)
    asyncio.run(serve(settings))
