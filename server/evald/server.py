"""The gRPC server: EvaluationService (v1beta1 and v1), health, reflection, TLS, graceful stop.

``start()`` builds, binds and starts the gRPC server and returns a :class:`RunningServer`;
``serve()`` is the ``evald serve`` process: start, wait for SIGTERM/SIGINT, stop gracefully.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import signal
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from evald import api, logs, reflection
from evald import jobs as dataset_jobs
from evald.app import App
from evald.config import Settings
from evald.ops import auth, calls, telemetry, tracing
from evald.ops.interceptor import METRICS_METHOD, Guard, GuardInterceptor
from evald.scoring import configure_scoring, own_forkserver, shutdown_scoring, warm_scoring_pool

log = logging.getLogger(__name__)

_StockHealthServicer: Any = health.aio.HealthServicer  # type: ignore[attr-defined]  # not in stubs


class _WatchEnded(Exception):
    """Raised through the stock Watch loop to end a stream after its last update."""


class _FinalWrite:
    """Wraps a Watch call's context: once shutting down, the NOT_SERVING write ends the stream."""

    def __init__(self, context: Any, servicer: HealthServicer) -> None:
        self._context = context
        self._servicer = servicer

    async def write(self, response: health_pb2.HealthCheckResponse) -> None:
        await self._context.write(response)
        if self._servicer.shutting_down and response.status == response.NOT_SERVING:
            raise _WatchEnded

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)


class HealthServicer(_StockHealthServicer):  # type: ignore[misc]
    """The stock asyncio health servicer, except that ``Watch`` streams end (status OK) once they
    have reported NOT_SERVING at shutdown: an open stream is an in-flight call, and would otherwise
    hold the server for the whole grace period."""

    def __init__(self) -> None:
        super().__init__()
        self.shutting_down = False

    async def enter_graceful_shutdown(self) -> None:
        """Report NOT_SERVING for every service, for good."""
        self.shutting_down = True
        await super().enter_graceful_shutdown()

    async def Watch(self, request: health_pb2.HealthCheckRequest, context: Any) -> None:
        """Stream status changes until the client leaves or the server shuts down."""
        with contextlib.suppress(_WatchEnded):
            await super().Watch(request, _FinalWrite(context, self))


HEALTH_SERVICES = ("", *api.SERVICE_NAMES.values())
"""Names the health service reports on: the whole server ("") and each EvaluationService."""

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


def host_port(host: str, port: int) -> str:
    """``host:port``, with an IPv6 literal in brackets (``[::1]:50051``)."""
    host = host.removeprefix("[").removesuffix("]")
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


@dataclass
class RunningServer:
    """A started server and the port it listens on (useful when asked for port 0)."""

    server: grpc.aio.Server
    port: int
    health: HealthServicer
    app: App
    http: Any = None
    """The JSON/HTTP gateway (``evald.gateway.RunningGateway``) if ``settings.http_port`` is set."""
    metrics: telemetry.MetricsServer | None = None
    """The Prometheus endpoint if ``settings.metrics_port`` is set."""
    refusing: asyncio.Event = field(default_factory=asyncio.Event)
    """Set once :meth:`stop` has begun refusing new calls."""

    @property
    def settings(self) -> Settings:
        return self.app.settings

    @property
    def jobs(self) -> Any:
        """Dataset jobs (``evald.jobs.operations.OperationsService``)."""
        return self.app.jobs

    @property
    def address(self) -> str:
        """host:port to dial."""
        return host_port(self.settings.host, self.port)

    async def stop(self, grace: float | None = None) -> None:
        """Report NOT_SERVING, refuse new calls, let in-flight ones finish within the grace
        period (``settings.grace_seconds`` unless given), then cancel what is left."""
        # Health first, so Watch streams see NOT_SERVING before the server stops taking calls.
        await self.health.enter_graceful_shutdown()
        grace = self.settings.grace_seconds if grace is None else grace
        # Both transports drain together, within the same grace period.
        draining = [asyncio.ensure_future(self.server.stop(grace))]
        if self.http is not None:
            draining.append(asyncio.ensure_future(self.http.stop(grace)))
        await asyncio.sleep(0)  # each stop() refuses new calls as soon as it starts running
        self.refusing.set()
        await asyncio.gather(*draining)
        calls.flush()  # the drained calls' log lines, now rather than at the next interval
        await self.app.aclose()  # after the calls: unfinished jobs resume on the next start
        if self.metrics is not None:  # last, so a final scrape sees the drained calls
            await self.metrics.stop()
            self.metrics = None


def connection_options(settings: Settings) -> list[tuple[str, int]]:
    """How the gRPC server treats connections and calls: idle connections are closed, dead
    peers found by keepalive pings, a connection that never completes its handshake dropped,
    and a burst of calls waits for the event loop instead of being cancelled.

    gRPC holds the calls that arrive before the event loop takes them up (one at a time) in a
    queue, and cancels those beyond its default of 3,000: a client that starts 5,000 judge
    calls at once saw 2,000 of them CANCELLED, a status no client library retries."""
    return [
        ("grpc.server.max_pending_requests", settings.max_pending_calls),
        ("grpc.server.max_pending_requests_hard_limit", settings.max_pending_calls),
        ("grpc.max_connection_idle_ms", int(settings.grpc_idle_seconds * 1000)),
        ("grpc.keepalive_time_ms", 60_000),  # ping a connection silent for a minute
        ("grpc.keepalive_timeout_ms", 20_000),  # and drop it if the ping is not answered
        ("grpc.server_handshake_timeout_ms", 10_000),
        ("grpc.http2.min_recv_ping_interval_without_data_ms", 10_000),
        ("grpc.http2.max_ping_strikes", 2),
    ]


def channel_options(settings: Settings) -> list[tuple[str, int]]:
    """Options shared by the server (and by clients that want the same limits)."""
    return [
        ("grpc.max_receive_message_length", settings.max_message_bytes),
        ("grpc.max_send_message_length", settings.max_message_bytes),
    ]


def server_credentials(settings: Settings) -> grpc.ServerCredentials | None:
    """TLS credentials from the configured PEM files, or None for plaintext."""
    if settings.tls_cert is None or settings.tls_key is None:
        return None
    pem: dict[str, bytes] = {}
    for what, path in (("certificate", settings.tls_cert), ("key", settings.tls_key)):
        try:
            pem[what] = path.read_bytes()
        except OSError as exc:
            raise OSError(f"cannot read TLS {what} {path}: {exc.strerror or exc}") from None
    if settings.tls_client_ca is None:
        return grpc.ssl_server_credentials([(pem["key"], pem["certificate"])])
    try:  # mTLS: only clients with a certificate signed by this CA get in
        client_ca = settings.tls_client_ca.read_bytes()
    except OSError as exc:
        raise OSError(
            f"cannot read client CA {settings.tls_client_ca}: {exc.strerror or exc}"
        ) from None
    return grpc.ssl_server_credentials(
        [(pem["key"], pem["certificate"])], root_certificates=client_ca, require_client_auth=True
    )


async def start(settings: Settings) -> RunningServer:
    """Build, bind and start the server; raises OSError if it cannot listen."""
    configure_scoring(settings.scoring_processes)
    try:
        keys = auth.from_environment(settings.auth_keys_file)
    except ValueError as exc:
        raise OSError(str(exc)) from None  # a start-up failure, reported like a bind failure
    if settings.tracing:
        tracing.enable()
    telemetry.load()
    guard = Guard.from_settings(settings, keys)
    # No interceptor unless needed: each one costs every call an extra await.
    interceptors = [GuardInterceptor(guard)] if guard.active or tracing.enabled() else []
    server = grpc.aio.server(
        interceptors=interceptors,
        options=[
            *channel_options(settings),
            # gRPC turns SO_REUSEPORT on by default: a second server on a busy port would then
            # start silently and share the traffic. Off unless asked, so a clash fails loudly.
            ("grpc.so_reuseport", 1 if settings.reuse_port else 0),
            *connection_options(settings),
        ],
    )
    app = App.build(settings)
    await app.prepare()  # a shared database is reached and migrated before anything listens
    handlers = app.handlers()
    server.add_generic_rpc_handlers(handlers)

    health_servicer = HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    # SERVING before the port opens, so no caller sees an unknown service.
    for name in HEALTH_SERVICES:
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    reflection.enable(
        server, [*api.SERVED_SERVICE_NAMES, dataset_jobs.LRO_SERVICE, health.SERVICE_NAME]
    )

    address = host_port(settings.host, settings.port)
    credentials = server_credentials(settings)
    try:
        if credentials is None:
            port = server.add_insecure_port(address)
        else:
            port = server.add_secure_port(address, credentials)
    except RuntimeError:
        port = 0  # gRPC >= 1.50 raises where older versions returned 0
    if port == 0:
        # gRPC only says "Failed to bind"; find out why, so the message can be acted on.
        raise OSError(_bind_failure(settings))
    await server.start()
    http = None
    if settings.http_port is not None:
        from evald import gateway  # only now: aiohttp is needed only with an HTTP port

        try:  # the HTTP gateway calls the same handlers (and interceptors) in-process
            http = await gateway.start_in_process(
                settings, handlers, interceptors, guard, native=app.native_apis()
            )
        except OSError:
            await server.stop(0)
            raise
    metrics = None
    if settings.metrics_port is not None:
        try:
            metrics = await telemetry.serve(
                settings.metrics_host or settings.host,
                settings.metrics_port,
                None if guard.keys is None else _scrape_check(guard),
                reuse_port=settings.reuse_port,
            )
        except OSError as exc:
            if settings.reuse_port:
                # Sharing ports (--workers): another process already serves metrics there.
                log.warning("metrics port busy: not served by this process (%s)", exc)
            else:
                await server.stop(0)
                if http is not None:
                    await http.stop(0)
                raise OSError(
                    f"cannot serve metrics on port {settings.metrics_port}: {exc}"
                ) from None
    running = RunningServer(server, port, health_servicer, app, http, metrics)
    try:
        await app.start()
    except OSError:  # e.g. the Ray cluster of --engine ray is unreachable: stop what started
        await running.stop(0)
        raise
    return running


def _scrape_check(guard: Guard) -> Callable[[Iterable[tuple[str, str]]], object]:
    """Checks a metrics scrape's headers like a call's metadata (``auth_open_metrics``: not)."""

    def check(headers: Iterable[tuple[str, str]]) -> object:
        return guard.authenticate(METRICS_METHOD, headers)

    return check


def _bind_failure(settings: Settings) -> str:
    address = host_port(settings.host, settings.port)
    try:
        infos = socket.getaddrinfo(
            settings.host.strip("[]"), settings.port, type=socket.SOCK_STREAM
        )
    except OSError as exc:
        return f"cannot listen on {address}: cannot resolve host ({exc})"
    for family, kind, proto, _, sockaddr in infos:
        with socket.socket(family, kind, proto) as probe:
            try:
                probe.bind(sockaddr)
            except OSError as exc:
                return f"cannot listen on {address}: {exc.strerror or exc}"
    if settings.tls:
        return (
            f"cannot listen on {address} with TLS: {settings.tls_cert} and {settings.tls_key} "
            "are not a valid PEM certificate chain and matching private key"
        )
    return f"cannot listen on {address}"


COLLECTION_THRESHOLDS = (50_000, 10, 10)
"""The collector's thresholds once serving (Python's defaults: 700, 10, 10). Calls in flight
keep their objects alive for as long as a judge takes to answer, so with the defaults they are
promoted to the oldest generation and walked by full collections again and again: with 1,000
judge calls in flight, a quarter of the server's CPU went to collections. A young generation of
50,000 objects is collected a seventieth as often, each time costing a few milliseconds."""


def tune_garbage_collector() -> None:
    """Move every object alive after start-up (modules, descriptors, the app) out of the
    collector's sight, and collect the young generation less often (:data:`COLLECTION_THRESHOLDS`).
    A full collection walks every tracked object; with the hundreds of thousands that imports
    leave, the collections that calls in flight trigger cost more than the calls' own work."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*COLLECTION_THRESHOLDS)


async def serve(
    settings: Settings, on_started: Callable[[RunningServer], None] | None = None
) -> None:
    """Run until SIGTERM or SIGINT, then shut down gracefully; a second signal stops at once.
    ``on_started`` is called once the server listens (``evald.workers`` reports the port)."""
    loop = asyncio.get_running_loop()
    signals: asyncio.Queue[signal.Signals] = asyncio.Queue()
    # Installed before start() so a signal that arrives while starting still stops gracefully.
    installed = []
    for sig in STOP_SIGNALS:
        with contextlib.suppress(NotImplementedError):  # not on Windows event loops
            loop.add_signal_handler(sig, signals.put_nowait, sig)
            installed.append(sig)
    try:
        running = await start(settings)
        tune_garbage_collector()
        log.info(
            "serving",
            extra={
                "fields": {
                    "address": running.address,
                    "port": running.port,
                    "tls": settings.tls,
                    "max_message_bytes": settings.max_message_bytes,
                    "services": list(api.SERVICE_NAMES.values()),
                    "http": running.http.url if running.http is not None else None,
                    "metrics": running.metrics.url if running.metrics is not None else None,
                    "auth": settings.auth_keys_file is not None or bool(auth.keys_in_env()),
                    "mtls": settings.tls_client_ca is not None,
                }
            },
        )
        if on_started is not None:
            on_started(running)
        # Scoring processes start now rather than on the first large request.
        warming = asyncio.ensure_future(asyncio.to_thread(warm_scoring_pool))
        received = await signals.get()
        warming.cancel()
        stopping = asyncio.ensure_future(running.stop())
        # Logged once new calls are refused, so whoever reads the line may count on it.
        await asyncio.wait(
            {stopping, asyncio.ensure_future(running.refusing.wait())},
            return_when=asyncio.FIRST_COMPLETED,
        )
        log.info(
            "shutting down",
            extra={"fields": {"signal": received.name, "grace_seconds": settings.grace_seconds}},
        )
        again = asyncio.ensure_future(signals.get())
        await asyncio.wait({stopping, again}, return_when=asyncio.FIRST_COMPLETED)
        if again.done():
            log.warning("second signal: cancelling in-flight calls now")
            await running.stop(0)
        again.cancel()
        await stopping
        await asyncio.to_thread(shutdown_scoring)
        log.info("stopped")
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)


def main(settings: Settings) -> None:
    """Configure logging and serve until signalled."""
    logs.configure(settings.log_level)
    fast_log_records()
    own_forkserver()  # while this process has one thread
    asyncio.run(serve(settings))


def fast_log_records() -> None:
    """Skip what evald's JSON log lines never show (caller's file and line, thread and process
    names): the logging HOWTO's optimizations, worth ~15 us of each call's request log line."""
    logging._srcfile = None  # documented in the logging HOWTO, though private-looking
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
    logs.write_request_lines_directly()
