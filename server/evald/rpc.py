"""The one gRPC call skeleton: parse -> serve -> record -> abort.

Every unary RPC evald serves (EvaluationService, MetricRegistry, Operations) goes through
:func:`unary_handler`: a request that does not parse is INVALID_ARGUMENT, an
:class:`~evald.errors.EvalError` becomes its status, anything else INTERNAL (logged, nothing
leaks), and every call is recorded once (:func:`evald.ops.calls.record`: its request log line and
its ``evald_requests_total`` / ``evald_request_seconds`` figures), a call its caller cancelled or
whose deadline passed too (CANCELLED, DEADLINE_EXCEEDED). The status travels as
:func:`evald.errors.abort` puts it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar

import grpc
from google.protobuf.message import Message

from evald.errors import EvalError, InvalidArgument, abort, internal_status
from evald.ops import calls, memory

log = logging.getLogger(__name__)

DEADLINE_SLACK = 0.1
"""Seconds: a caller that goes away this close to the deadline left because of it. The
server's deadline starts when the call arrives, after the caller's, so the caller's own
deadline cancels the call a little before the server's passes (more so on a busy machine)."""

Request = TypeVar("Request")
Context = grpc.aio.ServicerContext[Any, Any]


def parse(request_class: type[Request], raw: bytes) -> Request:
    """``raw`` as a ``request_class`` message; INVALID_ARGUMENT when it is not one."""
    try:
        return request_class.FromString(raw)  # type: ignore[attr-defined,no-any-return]
    except Exception as exc:
        raise InvalidArgument("", f"request is not a valid protobuf message: {exc}") from None


class Unary(Generic[Request]):
    """One unary method: its path, how a request is read, served and labelled in the log."""

    def __init__(
        self,
        method: str,
        request_class: type[Request],
        serve: Callable[[Request, Context], Awaitable[Message]],
        *,
        label: str = "none",
        describe: Callable[[Request], tuple[str, int]] | None = None,
        check: Callable[[Request, int], None] | None = None,
        check_raw: Callable[[bytes], Awaitable[None]] | None = None,
    ) -> None:
        self.method = method
        self.request_class = request_class
        self.serve = serve
        self.label = label
        """What the request log and Prometheus call the metric of every call."""
        self.describe = describe
        """The metric and instance count of a request, when they depend on it."""
        self.check = check
        """Rejects a request (and its size in bytes) before it is served: request limits."""
        self.check_raw = check_raw
        """Rejects a request from its bytes, before they are parsed."""

    async def handle(self, raw: bytes, context: Context) -> bytes:
        """Serve one call: the bytes of its request in, the bytes of its response out."""
        start = time.perf_counter()
        metric, count = self.label, 0
        try:
            if self.check_raw is not None:
                await self.check_raw(raw)
            request = parse(self.request_class, raw)
            if self.describe is not None:
                metric, count = self.describe(request)
            if self.check is not None:
                self.check(request, len(raw))
            body = (await self.serve(request, context)).SerializeToString()
        except EvalError as exc:
            code, status = exc.code, exc.to_status()
        except asyncio.CancelledError:
            # The caller went away or its deadline passed: no status can reach it, but the
            # call is logged and counted like any other.
            remaining = context.time_remaining()
            late = remaining is not None and remaining <= DEADLINE_SLACK
            ended = "DEADLINE_EXCEEDED" if late else "CANCELLED"
            calls.record(self.method, metric, count, ended, time.perf_counter() - start)
            raise
        except Exception:
            log.exception("unexpected failure in %s", self.method)
            code, status = grpc.StatusCode.INTERNAL, internal_status()
        else:
            calls.record(self.method, metric, count, "OK", time.perf_counter() - start)
            return body
        finally:
            if len(raw) >= memory.RELEASE_AFTER_BYTES:
                memory.release_soon()
        # Recorded before abort(), which sends the status to the client and then raises.
        calls.record(self.method, metric, count, code.name, time.perf_counter() - start)
        await abort(context, status)
        raise AssertionError("unreachable")  # abort() always raises


def unary_handler(unary: Unary[Any]) -> grpc.RpcMethodHandler[Any, Any]:
    """The gRPC method handler of ``unary`` (bytes in, bytes out: parsing is the skeleton's)."""
    return grpc.unary_unary_rpc_method_handler(
        unary.handle, request_deserializer=None, response_serializer=None
    )
