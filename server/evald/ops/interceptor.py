"""The gRPC server interceptor: authentication, calls in flight per key, the RPC span.

gRPC runs it before every handler. The HTTP gateway's in-process backend runs the same
interceptors on each call (it bypasses the gRPC transport, not this check), so a key is checked
once, by one piece of code, whichever transport it came through.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

import grpc

from evald.errors import EvalError, PermissionDenied, abort
from evald.ops import calls, telemetry, tracing
from evald.ops.auth import (
    ANNOTATOR,
    ANNOTATOR_PREFIX,
    ANONYMOUS,
    KeyStore,
    Principal,
    Unauthenticated,
)
from evald.ops.limits import Concurrency, LimitExceeded

HEALTH_PREFIX = "/grpc.health.v1.Health/"
OPENAPI_METHOD = "/evald.http/OpenApi"
"""What the gateway's ``/openapi.json`` counts as when deciding whether it needs a key."""
METRICS_METHOD = "/evald.http/Metrics"
"""What the Prometheus ``/metrics`` endpoint counts as when deciding whether it needs a key."""
REFLECTION_PREFIXES = (
    "/grpc.reflection.v1.ServerReflection/",
    "/grpc.reflection.v1alpha.ServerReflection/",
)

Continuation = Callable[[grpc.HandlerCallDetails], Awaitable[Any]]


@dataclass
class Guard:
    """What every call must pass: a key (if ``keys``), a free slot for that key, a span."""

    keys: KeyStore | None = None
    concurrency: Concurrency | None = None
    open_prefixes: tuple[str, ...] = (HEALTH_PREFIX,)

    @classmethod
    def from_settings(cls, settings: Any, keys: KeyStore | None) -> Guard:
        """The guard ``settings`` (``evald.config.Settings``) ask for."""
        prefixes: tuple[str, ...] = ()
        if settings.auth_open_health:
            prefixes += (HEALTH_PREFIX,)
        if settings.auth_open_reflection:
            prefixes += REFLECTION_PREFIXES
        if settings.auth_open_openapi:
            prefixes += (OPENAPI_METHOD,)
        if settings.auth_open_metrics:
            prefixes += (METRICS_METHOD,)
        limit = settings.max_concurrent_per_key
        has_key_limits = keys is not None and any(e.max_concurrent for e in keys.entries)
        concurrency = Concurrency(limit) if limit or has_key_limits else None
        return cls(keys, concurrency, prefixes)

    @property
    def active(self) -> bool:
        """Whether the guard does anything beyond tracing."""
        return self.keys is not None or self.concurrency is not None

    def authenticate(self, method: str, metadata: Iterable[tuple[str, Any]]) -> Principal:
        """The caller of ``method``; raises Unauthenticated (counted in
        ``evald_auth_failures_total``, whichever door it came by: gRPC, HTTP, metrics), and
        PermissionDenied for an annotator key on anything but the rating calls."""
        if self.keys is None or method.startswith(self.open_prefixes):
            return ANONYMOUS
        try:
            principal = self.keys.authenticate(metadata)
        except Unauthenticated as exc:
            telemetry.AUTH_FAILURES.labels(exc.reason).inc()
            raise
        if principal.role == ANNOTATOR and not method.startswith(ANNOTATOR_PREFIX):
            raise PermissionDenied(
                f"the key '{principal.name}' has the role '{ANNOTATOR}', which may only rate "
                "human-evaluation tasks"
            )
        return principal


class GuardInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[type-arg]
    """Applies a :class:`Guard` to every call."""

    def __init__(self, guard: Guard) -> None:
        self.guard = guard

    async def intercept_service(
        self, continuation: Continuation, handler_call_details: grpc.HandlerCallDetails
    ) -> Any:
        handler = await continuation(handler_call_details)
        if handler is None:
            return None
        method = handler_call_details.method
        metadata = handler_call_details.invocation_metadata or ()
        try:
            principal = self.guard.authenticate(method, metadata)
        except (Unauthenticated, PermissionDenied) as exc:
            return _refusal(handler, method, exc)
        if handler.request_streaming or handler.response_streaming:
            return handler  # health Watch, reflection: admitted, not counted against a key
        return _guarded_unary(handler, method, metadata, principal, self.guard)


def _guarded_unary(
    handler: Any, method: str, metadata: Any, principal: Principal, guard: Guard
) -> Any:
    inner = handler.unary_unary
    concurrency = guard.concurrency
    limited = concurrency is not None and concurrency.enabled_for(principal)

    async def behaviour(request: Any, context: Any) -> Any:
        with tracing.span(f"rpc {method}", metadata, **{"rpc.method": method}) as span:
            if not limited:
                return await inner(request, context)
            assert concurrency is not None
            try:
                concurrency.acquire(principal)
            except LimitExceeded as exc:
                telemetry.LIMIT_REJECTIONS.labels(exc.limit).inc()
                tracing.set_code(span, exc.code.name)
                await _refuse(context, method, exc)
            try:
                return await inner(request, context)
            finally:
                concurrency.release(principal)

    return grpc.unary_unary_rpc_method_handler(
        behaviour,
        request_deserializer=handler.request_deserializer,
        response_serializer=handler.response_serializer,
    )


async def _refuse(context: Any, method: str, error: EvalError) -> None:
    calls.record(method, "none", 0, error.code.name, 0.0)
    await abort(context, error.to_status())


def _refusal(handler: Any, method: str, error: EvalError) -> Any:
    """A handler of the same kind as ``handler`` that ends the call with ``error``."""

    async def refuse(request: Any, context: Any) -> None:
        await _refuse(context, method, error)

    kind = {
        (False, False): grpc.unary_unary_rpc_method_handler,
        (False, True): grpc.unary_stream_rpc_method_handler,
        (True, False): grpc.stream_unary_rpc_method_handler,
        (True, True): grpc.stream_stream_rpc_method_handler,
    }[(bool(handler.request_streaming), bool(handler.response_streaming))]
    return kind(
        refuse,
        request_deserializer=handler.request_deserializer,
        response_serializer=handler.response_serializer,
    )
