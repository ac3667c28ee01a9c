"""Optional OpenTelemetry tracing: one span per RPC, per metric evaluation and per judge call.

Off by default, and then :func:`span` costs one global read. ``--tracing`` (``EVALD_TRACING``)
installs an SDK tracer provider exporting over OTLP (configured by the standard ``OTEL_*``
variables) when ``opentelemetry-sdk`` and ``opentelemetry-exporter-otlp`` are installed; tests
and embedders pass their own provider to :func:`enable`. Without the packages it stays a no-op.

Spans: ``rpc <method>`` (gRPC and in-process HTTP calls; continues a caller's ``traceparent``),
``evaluate <metric>`` (the metric), ``judge <name>`` (each judge call attempt).
"""

from __future__ import annotations

import contextlib
import importlib
import logging
from collections.abc import Iterable, Iterator
from typing import Any

log = logging.getLogger(__name__)

_tracer: Any = None


def enabled() -> bool:
    """Whether spans are being recorded."""
    return _tracer is not None


def enable(provider: Any = None) -> bool:
    """Start tracing with ``provider`` (an OpenTelemetry TracerProvider), or with an SDK provider
    exporting over OTLP; returns False (and logs why) when the packages are missing."""
    global _tracer
    try:
        from opentelemetry import trace
    except ImportError:
        log.warning("tracing not enabled: opentelemetry-api is not installed")
        return False
    if provider is None:
        provider = _sdk_provider()
        if provider is None:
            return False
    _tracer = trace.get_tracer("evald", tracer_provider=provider)
    return True


def disable() -> None:
    """Stop recording spans."""
    global _tracer
    _tracer = None


def _sdk_provider() -> Any:
    try:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        log.warning("tracing not enabled: opentelemetry-sdk is not installed")
        return None
    try:  # an optional extra: imported by name so type checkers do not require it
        exporter = importlib.import_module("opentelemetry.exporter.otlp.proto.grpc.trace_exporter")
    except ImportError:
        log.warning("tracing not enabled: opentelemetry-exporter-otlp is not installed")
        return None
    provider = TracerProvider(resource=Resource.create({"service.name": "evald"}))
    provider.add_span_processor(BatchSpanProcessor(exporter.OTLPSpanExporter()))
    return provider


@contextlib.contextmanager
def _span(name: str, attributes: dict[str, Any], carrier: Any) -> Iterator[Any]:
    context = None
    if carrier is not None:
        from opentelemetry import propagate

        context = propagate.extract({str(k).lower(): v for k, v in carrier if isinstance(v, str)})
    with _tracer.start_as_current_span(name, context=context, attributes=attributes) as current:
        yield current


def span(
    name: str, carrier: Iterable[tuple[str, Any]] | None = None, **attributes: Any
) -> contextlib.AbstractContextManager[Any]:
    """A span named ``name`` (a no-op context when tracing is off). ``carrier``: metadata or
    headers whose ``traceparent`` the span continues."""
    if _tracer is None:
        return _NO_SPAN
    return _span(name, attributes, carrier)


_NO_SPAN: contextlib.AbstractContextManager[Any] = contextlib.nullcontext()
"""What :func:`span` returns with tracing off (reusable: it does nothing)."""


def set_code(current: Any, code: str) -> None:
    """Record the RPC status code on a span; non-OK codes mark it as an error."""
    if current is None:
        return
    from opentelemetry.trace import Status, StatusCode

    current.set_attribute("rpc.grpc.status_code", code)
    if code != "OK":
        current.set_status(Status(StatusCode.ERROR, code))
