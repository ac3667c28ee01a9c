"""JSON/HTTP gateway: the REST face of EvaluationService (Google's HTTP/JSON transcoding).

Two ways to run it:

* in the server process (``evald serve --http-port N``): :func:`start_in_process` serves the
  gRPC server's own handlers, no network hop;
* in front of a gRPC address (``evald gateway --grpc-target HOST:PORT --http-port N``):
  :func:`start_forwarding` forwards each call as a generic unary gRPC call.

Routes come from the ``google.api.http`` options of the compiled descriptors
(:mod:`evald.gateway.routes`); ``GET /healthz`` reports health and ``GET /openapi.json`` serves
an OpenAPI 3 document generated from the same descriptors.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import ssl
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evald import logs
from evald.config import Settings
from evald.gateway.app import (
    HEALTH_PATH,
    OPENAPI_PATH,
    Gateway,
    NativeApi,
    RunningGateway,
    start,
    tls_context,
)
from evald.gateway.backends import Backend, CallError, GrpcBackend, InProcessBackend, Reply
from evald.ui.static import UiAssets
from evald.ui.upstream import upstreams

__all__ = [
    "HEALTH_PATH",
    "OPENAPI_PATH",
    "Backend",
    "CallError",
    "Gateway",
    "GrpcBackend",
    "InProcessBackend",
    "Reply",
    "RunningGateway",
    "main",
    "start",
    "start_forwarding",
    "start_in_process",
]

log = logging.getLogger(__name__)


def _http_host(settings: Settings) -> str:
    host = settings.http_host or settings.host
    return host.removeprefix("[").removesuffix("]")


async def _start(
    settings: Settings,
    backend: Backend,
    owns_backend: bool,
    guard: Any = None,
    native: Sequence[NativeApi] = (),
) -> RunningGateway:
    gateway = Gateway(
        backend,
        max_body_bytes=settings.max_http_body_bytes,
        max_json_values=4 * settings.max_instances + 1024,
        body_pause_seconds=settings.http_idle_seconds,
        native=[*native, UiAssets()],  # the web UI's files, at /ui (no key needed)
        cors_origins=settings.cors_origins,
        home=True,
    )
    if guard is not None:  # keys checked from the headers, before a body is read
        gateway.authenticate = guard.authenticate
        gateway.keys_required = guard.keys is not None
    context = tls_context(settings.tls_cert, settings.tls_key) if settings.tls else None
    if context is not None and settings.tls_client_ca is not None:
        # mTLS, as on the gRPC port: no client certificate signed by this CA, no handshake.
        context.verify_mode = ssl.CERT_REQUIRED
        context.load_verify_locations(str(settings.tls_client_ca))
    port = settings.http_port if settings.http_port is not None else 0
    try:
        return await start(
            gateway,
            _http_host(settings),
            port,
            ssl_context=context,
            grace_seconds=settings.grace_seconds,
            owns_backend=owns_backend,
            reuse_port=settings.reuse_port,
            idle_seconds=settings.http_idle_seconds,
            max_connections=settings.http_connection_limit(),
        )
    except OSError as exc:
        if owns_backend:
            await backend.close()
        raise OSError(f"cannot listen for HTTP on {_http_host(settings)}:{port}: {exc}") from None


async def start_in_process(
    settings: Settings,
    handlers: Sequence[Any],
    interceptors: Sequence[Any] = (),
    guard: Any = None,
    native: Sequence[NativeApi] = (),
) -> RunningGateway:
    """Serve HTTP on ``settings.http_host:http_port`` with the gRPC server's own generic
    handlers behind its ``interceptors`` (authentication, limits), and the ``native`` APIs
    (NeMo Evaluator's); TLS with the server's certificate if configured."""
    backend = InProcessBackend(handlers, interceptors)
    return await _start(settings, backend, owns_backend=False, guard=guard, native=native)


async def start_forwarding(
    settings: Settings,
    target: str,
    root_certificates: bytes | None = None,
    native: Sequence[NativeApi] = (),
) -> RunningGateway:
    """Serve HTTP in front of the gRPC server at ``target`` (TLS to it if roots are given), and
    the ``native`` APIs (forwarded to a server's HTTP gateway: :mod:`evald.ui.upstream`)."""
    options = [
        ("grpc.max_receive_message_length", settings.max_message_bytes),
        ("grpc.max_send_message_length", settings.max_message_bytes),
    ]
    backend = GrpcBackend(target, root_certificates=root_certificates, options=options)
    return await _start(settings, backend, owns_backend=True, native=native)


async def serve_forwarding(
    settings: Settings,
    target: str,
    root_certificates: bytes | None = None,
    native_upstream: str | None = None,
) -> None:
    """The ``evald gateway`` process: serve until SIGTERM/SIGINT, then stop gracefully."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    native = upstreams(native_upstream)
    running = await start_forwarding(settings, target, root_certificates, native)
    log.info(
        "gateway serving",
        extra={"fields": {"url": running.url, "port": running.port, "grpc_target": target}},
    )
    await stop.wait()
    log.info("gateway shutting down", extra={"fields": {"grace_seconds": settings.grace_seconds}})
    await running.stop()
    for api in native:
        await api.close()
    log.info("gateway stopped")


def main(
    settings: Settings,
    target: str,
    root_certificates: Path | None = None,
    native_upstream: str | None = None,
) -> None:
    """Entry point of ``evald gateway``."""

    logs.configure(settings.log_level)
    roots = root_certificates.read_bytes() if root_certificates is not None else None
    asyncio.run(serve_forwarding(settings, target, roots, native_upstream))
