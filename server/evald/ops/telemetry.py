"""Prometheus metrics of the server process, and the ``--metrics-port`` endpoint.

Metric                                 labels                what
-----------------------------------------------------------------------------------------------
evald_requests_total                   method, metric, code  RPCs answered (both transports)
evald_request_duration_seconds         method, metric        their latency (histogram)
evald_auth_failures_total              reason                calls refused UNAUTHENTICATED
evald_limit_rejections_total           limit                 calls refused over a limit
evald_judge_calls_total                judge, outcome        judge calls sent (ok, errors)
evald_judge_retries_total              judge                 retried judge calls
evald_judge_cache_hits_total           judge                 cached answers (no tokens)
evald_judge_usage_calls_total          judge                 judge calls that may have cost tokens
evald_judge_calls_without_usage_total  judge                 of those, tokens unknown
evald_judge_input_tokens_total         judge                 prompt tokens the judges reported
evald_judge_output_tokens_total        judge                 generated tokens (thinking included)
evald_judge_calls_in_flight            judge                 judge calls running now
evald_judge_max_concurrency            judge                 the cap on that number
evald_judge_call_duration_seconds      judge                 judge call latency
evald_sandbox_runs_total               outcome               custom-code runs
evald_sandbox_kills_total              reason                killed runs (wall, cpu, memory, output)
evald_model_forward_passes_total       model                 forward passes of model workers
evald_model_batch_size                 model                 items per forward pass (histogram)

plus the client library's ``process_*`` (RSS, CPU, fds) and ``python_*`` collectors. Labels hold
names only (methods, metric inputs, judge names, codes): never request contents or keys. Judge
outcomes: ``ok``, ``rejected`` (401/403/404/400, not retried), ``TransientError`` (429, 5xx,
connection), ``JudgeTimeout``, ``OutputError`` (unreadable answer). Usage calls are the answered
ones (usable or not) and those given up while the judge worked (see :mod:`evald.judges.usage`);
the token counters sum what their endpoints reported, so a judge's cost is only fully known when
``evald_judge_calls_without_usage_total`` stays 0.

``prometheus-client`` is optional: without it every metric is a no-op and the endpoint is off.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
from collections.abc import Callable, Iterable
from typing import Any

log = logging.getLogger(__name__)

LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
JUDGE_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120)


class _Noop:
    """Stands in for a metric when prometheus-client is not installed."""

    def labels(self, *args: Any, **kwargs: Any) -> _Noop:
        return self

    def inc(self, amount: float = 1) -> None:
        return None

    def dec(self, amount: float = 1) -> None:
        return None

    def set(self, value: float) -> None:
        return None

    def observe(self, value: float) -> None:
        return None


_UNLOADED: Any = object()
_prom: Any = _UNLOADED


def load() -> bool:
    """Import prometheus-client now (``evald.server.start`` does, so no request pays for it);
    False when it is not installed. Until then metrics are created lazily: the scoring pool's
    forkserver imports this module and must not pay for the client library."""
    global _prom
    if _prom is _UNLOADED:
        try:
            _prom = importlib.import_module("prometheus_client")
        except ImportError:  # pragma: no cover - exercised only without the optional package
            _prom = None
        else:
            _prom.REGISTRY.register(_BeforeScrape())
            # Every metric exists from now on: one created during a scrape (by the records
            # that scrape flushes) would only be reported from the next scrape on.
            for metric in _ALL:
                metric.create()
    return _prom is not None


class _Lazy:
    """A metric created on first use."""

    def __init__(self, kind: str, name: str, doc: str, labels: tuple[str, ...], **kw: Any):
        self._spec = (kind, name, doc, labels, kw)
        self._metric: Any = None
        self._children: dict[tuple[str, ...], Any] = {}
        _ALL.append(self)

    def create(self) -> Any:
        """The metric itself, created (and registered) on the first call."""
        if self._metric is None and not load():  # (the first load() creates every metric)
            self._metric = _Noop()
        if self._metric is None:
            kind, name, doc, labels, kw = self._spec
            self._metric = getattr(_prom, kind)(name, doc, labels, **kw)
        return self._metric

    def labels(self, *values: str) -> Any:
        # Children are cached: prometheus_client's labels() validates and locks on every call,
        # a few microseconds on each RPC's path; label sets are few (method x metric x code).
        child = self._children.get(values)
        if child is None:
            child = self._children[values] = self.create().labels(*values)
        return child


_ALL: list[_Lazy] = []
"""Every metric this module declares, in declaration order."""


def _counter(name: str, doc: str, labels: tuple[str, ...]) -> Any:
    return _Lazy("Counter", name, doc, labels)


def _gauge(name: str, doc: str, labels: tuple[str, ...]) -> Any:
    return _Lazy("Gauge", name, doc, labels)


def _histogram(name: str, doc: str, labels: tuple[str, ...], buckets: tuple[float, ...]) -> Any:
    return _Lazy("Histogram", name, doc, labels, buckets=buckets)


REQUESTS = _counter(
    "evald_requests", "RPCs answered, by method, metric input and status code.",
    ("method", "metric", "code"),
)  # fmt: skip
REQUEST_SECONDS = _histogram(
    "evald_request_duration_seconds", "Time to answer an RPC.", ("method", "metric"),
    LATENCY_BUCKETS,
)  # fmt: skip
AUTH_FAILURES = _counter(
    "evald_auth_failures", "Calls refused for missing, invalid or expired credentials.",
    ("reason",),
)  # fmt: skip
LIMIT_REJECTIONS = _counter(
    "evald_limit_rejections", "Calls refused because a limit was reached.", ("limit",)
)
JUDGE_CALLS = _counter(
    "evald_judge_calls", "Judge calls sent, by judge and outcome.", ("judge", "outcome")
)
JUDGE_RETRIES = _counter("evald_judge_retries", "Judge calls that were retries.", ("judge",))
JUDGE_CACHE_HITS = _counter(
    "evald_judge_cache_hits", "Judge answers served from the cache.", ("judge",)
)
JUDGE_USAGE_CALLS = _counter(
    "evald_judge_usage_calls",
    "Judge calls that may have cost tokens: answered, or given up while the judge worked.",
    ("judge",),
)
JUDGE_CALLS_WITHOUT_USAGE = _counter(
    "evald_judge_calls_without_usage",
    "Judge calls that may have cost tokens but reported no token usage.",
    ("judge",),
)
JUDGE_INPUT_TOKENS = _counter(
    "evald_judge_input_tokens", "Prompt tokens of judge calls, as reported.", ("judge",)
)
JUDGE_OUTPUT_TOKENS = _counter(
    "evald_judge_output_tokens",
    "Generated tokens of judge calls (thinking included), as reported.",
    ("judge",),
)
JUDGE_IN_FLIGHT = _gauge("evald_judge_calls_in_flight", "Judge calls running now.", ("judge",))
JUDGE_MAX_CONCURRENCY = _gauge(
    "evald_judge_max_concurrency", "Most judge calls allowed in flight (per process).", ("judge",)
)
JUDGE_SECONDS = _histogram(
    "evald_judge_call_duration_seconds", "Time of one judge call.", ("judge",), JUDGE_BUCKETS
)
SANDBOX_RUNS = _counter("evald_sandbox_runs", "Custom-code runs, by outcome.", ("outcome",))
SANDBOX_KILLS = _counter(
    "evald_sandbox_kills", "Custom-code runs killed, by limit reached.", ("reason",)
)
MODEL_FORWARD_PASSES = _counter(
    "evald_model_forward_passes", "Forward passes run by model workers.", ("model",)
)
MODEL_BATCH_SIZE = _histogram(
    "evald_model_batch_size", "Items in one forward pass of a model worker.", ("model",),
    BATCH_BUCKETS,
)  # fmt: skip


def record_requests(records: Iterable[tuple[float, str, str, int, str, float]]) -> None:
    """Count answered RPCs given as ``evald.logs.RequestRecord`` tuples (one counter update
    per label set, one observation per call)."""
    counts: dict[tuple[str, str, str], int] = {}
    for _, method, metric, _, code, seconds in records:
        key = (method, metric, code)
        counts[key] = counts.get(key, 0) + 1
        REQUEST_SECONDS.labels(method, metric).observe(seconds)
    for key, count in counts.items():
        REQUESTS.labels(*key).inc(count)


def before_scrape(action: Callable[[], None]) -> None:
    """Run ``action`` at the start of each scrape of the default registry, before any evald
    metric is read (e.g. to record calls still waiting to be recorded)."""
    _BEFORE_SCRAPE.append(action)


_BEFORE_SCRAPE: list[Callable[[], None]] = []


class _BeforeScrape:
    """A collector that yields no metric; registered before evald's metrics (which are created
    lazily, after :func:`load`), so the registry runs it first in each scrape."""

    def collect(self) -> list[Any]:
        for action in _BEFORE_SCRAPE:
            action()
        return []

    def describe(self) -> list[Any]:
        return []  # a non-empty describe() would make the registry call collect() at register


class MetricsServer:
    """The running ``/metrics`` endpoint: an aiohttp server on the event loop (no thread per
    connection; idle connections are closed after a keep-alive timeout), behind the server's
    authentication unless ``auth_open_metrics``."""

    def __init__(self, host: str, port: int, runner: Any) -> None:
        self.host = host
        self.port = port
        self._runner = runner

    @property
    def url(self) -> str:
        """The scrape URL."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/metrics"

    async def stop(self) -> None:
        """Stop serving and close the socket."""
        await self._runner.cleanup()


KEEPALIVE_SECONDS = 15.0
"""How long the metrics endpoint keeps an idle connection open (scrapers come back every
10-60 s and reconnect cheaply)."""


async def serve(
    host: str,
    port: int,
    authenticate: Callable[[Iterable[tuple[str, str]]], object] | None,
    *,
    reuse_port: bool = False,
) -> MetricsServer | None:
    """Serve the default registry on ``host:port`` (0: any); None without prometheus-client
    (logged). ``authenticate`` checks a scrape's headers (raising on a missing or bad key);
    None: open. Raises OSError if the port cannot be bound."""
    if not load():
        log.warning("--metrics-port ignored: prometheus-client is not installed")
        return None
    from aiohttp import web  # only with a metrics port

    async def metrics(request: web.BaseRequest) -> web.StreamResponse:
        if request.rel_url.raw_path != "/metrics" or request.method not in ("GET", "HEAD"):
            return web.Response(status=404, text="only GET /metrics is served here\n")
        if authenticate is not None:
            try:
                authenticate([(k.lower(), v) for k, v in request.headers.items()])
            except Exception as exc:  # Unauthenticated: its message says what is missing
                if getattr(getattr(exc, "code", None), "name", "") == "PERMISSION_DENIED":
                    # A valid key without the right (an annotator's): 403, not a new key.
                    return web.Response(status=403, text=f"{getattr(exc, 'message', '')}\n")
                return web.Response(
                    status=401,
                    text=f"{getattr(exc, 'message', 'unauthenticated')}\n",
                    headers={"WWW-Authenticate": "Bearer"},
                )
        body = await asyncio.to_thread(_prom.generate_latest, _prom.REGISTRY)
        return web.Response(body=body, headers={"Content-Type": _prom.CONTENT_TYPE_LATEST})

    server = web.Server(metrics, access_log=None, keepalive_timeout=KEEPALIVE_SECONDS)
    runner = web.ServerRunner(server, shutdown_timeout=1.0)
    await runner.setup()
    site = web.TCPSite(runner, host, port, reuse_port=reuse_port or None)
    try:
        await site.start()
    except OSError:
        await runner.cleanup()
        raise
    return MetricsServer(host, int(runner.addresses[0][1]), runner)
