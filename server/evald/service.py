"""The EvaluationService RPCs, transport-free: request message in, response message out.

The gRPC server (``evald.server``) and, later, the HTTP gateway both call :class:`Evaluator`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import grpc
from google.protobuf.message import DecodeError

from evald import api, calls, judges, logs
from evald.errors import EvalError, InvalidArgument, Unimplemented, internal_status
from evald.metrics.base import ComputedMetric
from evald.metrics.registry import PENDING, handlers
from evald.ops import tracing
from evald.ops.limits import RequestLimits

log = logging.getLogger(__name__)
messages: Any = api.messages


class Evaluator:
    """Dispatches each request to the handler of its ``metric_inputs`` member."""

    def __init__(self) -> None:
        self.handlers = handlers()
        self.computed = frozenset(
            name for name, handler in self.handlers.items() if isinstance(handler, ComputedMetric)
        )
        """Inputs whose handler is computed locally: it calls no judge, so needs no judge
        context."""
        self.counted = frozenset(
            field.name
            for field in api.METRIC_INPUTS.fields
            if api.has_field(field.message_type, "instances")
        )
        """Inputs that carry ``instances`` (the request log counts them)."""

    async def evaluate_instances(
        self,
        request: Any,
        *,
        time_remaining: float | None = None,
        metadata: Iterable[tuple[str, Any]] = (),
    ) -> Any:
        """Evaluate one EvaluateInstancesRequest; raises EvalError on a request it cannot serve.

        ``time_remaining`` (seconds until the caller's deadline) and ``metadata`` (gRPC metadata
        or HTTP headers) reach judge calls: deadline propagation and the per-request cache switch.
        """
        which = request.WhichOneof("metric_inputs")
        if which in self.computed:  # no judge context to set up
            return await self.dispatch(request, which)
        with judges.scope(judges.from_request(request, time_remaining, metadata)):
            return await self.dispatch(request, which)

    async def dispatch(self, request: Any, which: str | None) -> Any:
        """Evaluate ``request``, whose ``metric_inputs`` member is ``which``, in the current
        judge context (see :meth:`evaluate_instances`)."""
        if which is None:
            if len(request.metrics) or len(request.metric_sources):
                from evald.metric_api.dispatch import for_evaluator

                return await for_evaluator(self).evaluate(request)
            raise InvalidArgument(
                "metric_inputs",
                "no metric input is set; set exactly one of: "
                + ", ".join(f.name for f in api.METRIC_INPUTS.fields),
            )
        handler = self.handlers.get(which)
        if handler is None:
            reason = PENDING.get(which, "no handler")
            raise Unimplemented(f"metric '{which}' is not implemented by this server: {reason}")
        result = await handler.evaluate(getattr(request, which), which)
        response = messages.EvaluateInstancesResponse()
        getattr(response, handler.result_field).CopyFrom(result)
        return response

    def describe(self, request: Any, which: str | None) -> tuple[str, int]:
        """The metric ``request`` asks for (its ``metric_inputs`` member is ``which``) and how
        many instances it carries, for the request log."""
        if which is None:
            new_style = len(request.metrics) or len(request.metric_sources)
            return ("metrics", 1) if new_style else ("none", 0)
        if which in self.counted:
            return which, len(getattr(request, which).instances)
        return which, 1


class GrpcEvaluationService:
    """gRPC glue: bytes in, bytes out, every failure a proper status, one log line per call."""

    dataset: Any = None
    """Builds the EvaluateDataset method handler from its method path (``evald.jobs``); None:
    EvaluateDataset answers UNIMPLEMENTED."""

    def __init__(self, evaluator: Evaluator, limits: RequestLimits | None = None) -> None:
        self.evaluator = evaluator
        self.limits = limits or RequestLimits()

    def method_handlers(self) -> list[grpc.GenericRpcHandler[Any, Any]]:
        """Generic handlers serving EvaluationService for every API version."""
        result: list[grpc.GenericRpcHandler[Any, Any]] = []
        for version, service in api.SERVICE_NAMES.items():
            methods = {
                "EvaluateInstances": grpc.unary_unary_rpc_method_handler(
                    self._unary(f"/{service}/EvaluateInstances"),
                    # Parsed in the handler: a malformed body is INVALID_ARGUMENT, not INTERNAL.
                    request_deserializer=None,
                    response_serializer=None,
                )
            }
            if version == "v1beta1" and self.dataset is not None:
                methods["EvaluateDataset"] = self.dataset(f"/{service}/EvaluateDataset")
            elif version == "v1beta1":
                methods["EvaluateDataset"] = grpc.unary_unary_rpc_method_handler(
                    self._not_yet(f"/{service}/EvaluateDataset", "dataset jobs (issue #6)")
                )
            result.append(grpc.method_handlers_generic_handler(service, methods))
        return result

    def _unary(self, method: str) -> Any:
        evaluator, limits = self.evaluator, self.limits
        computed = evaluator.computed

        async def handle(raw: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> bytes:
            start = time.perf_counter()
            metric, count = "unknown", 0
            try:
                try:
                    request = messages.EvaluateInstancesRequest.FromString(raw)
                except DecodeError as exc:
                    raise InvalidArgument(
                        "", f"request is not a valid protobuf message: {exc}"
                    ) from None
                which = request.WhichOneof("metric_inputs")
                metric, count = evaluator.describe(request, which)
                if not limits.fits(len(raw)):
                    limits.check(request)
                with tracing.span(f"evaluate {metric}", instances=count):
                    if which in computed:  # calls no judge
                        response = await evaluator.dispatch(request, which)
                    else:  # judges get the caller's deadline and metadata
                        response = await evaluator.evaluate_instances(
                            request,
                            time_remaining=context.time_remaining(),
                            metadata=context.invocation_metadata() or (),
                        )
                body: bytes = response.SerializeToString()
            except EvalError as exc:
                code, status = exc.code, exc.to_status()
            except Exception:
                log.exception("unexpected failure in %s", method)
                code, status = grpc.StatusCode.INTERNAL, internal_status()
            else:
                calls.record(method, metric, count, "OK", time.perf_counter() - start)
                return body
            # Recorded before abort(), which sends the status to the client and then raises.
            calls.record(method, metric, count, code.name, time.perf_counter() - start)
            await abort(context, status)
            raise AssertionError("unreachable")  # abort() always raises

        return handle

    def _not_yet(self, method: str, capability: str) -> Any:
        async def handle(raw: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> bytes:
            logs.request_line(method, "none", 0, "UNIMPLEMENTED", 0.0)
            await abort(
                context,
                Unimplemented(
                    f"{method} is not served yet; it arrives with {capability}"
                ).to_status(),
            )
            raise AssertionError("unreachable")

        return handle


def unary_handler(
    method: str,
    request_class: type[Any],
    implementation: Callable[[Any, grpc.aio.ServicerContext[Any, Any]], Awaitable[Any]],
    label: str,
) -> Any:
    """A bytes-in, bytes-out gRPC handler for an RPC other than EvaluateInstances: a request
    that does not parse is INVALID_ARGUMENT, an EvalError becomes its status, anything else
    INTERNAL (no internals leak), and each call writes one request log line with ``label``."""

    async def handle(raw: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> bytes:
        start = time.perf_counter()
        try:
            try:
                request = request_class.FromString(raw)
            except Exception:
                raise InvalidArgument("", "request is not a valid protobuf message") from None
            body = bytes((await implementation(request, context)).SerializeToString())
        except EvalError as exc:
            code, status = exc.code, exc.to_status()
        except Exception:
            log.exception("unexpected failure in %s", method)
            code, status = grpc.StatusCode.INTERNAL, internal_status()
        else:
            logs.request_line(method, label, 0, "OK", _ms_since(start))
            return body
        logs.request_line(method, label, 0, code.name, _ms_since(start))
        await abort(context, status)
        raise AssertionError("unreachable")  # abort() always raises

    return grpc.unary_unary_rpc_method_handler(handle)


def _ms_since(start: float) -> float:
    return (time.perf_counter() - start) * 1000


async def abort(context: grpc.aio.ServicerContext[Any, Any], status: Any) -> None:
    """End the call with a google.rpc.Status, details in ``grpc-status-details-bin``."""
    await context.abort(
        _CODES.get(status.code, grpc.StatusCode.UNKNOWN),
        status.message,
        trailing_metadata=(("grpc-status-details-bin", status.SerializeToString()),),
    )


_CODES = {code.value[0]: code for code in grpc.StatusCode}
