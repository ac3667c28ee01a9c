"""The EvaluationService RPCs, transport-free: request message in, response message out.

The gRPC server (``evald.server``) and, later, the HTTP gateway both call :class:`Evaluator`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

import grpc

from evald import api, judges, rpc
from evald.errors import InvalidArgument, Unimplemented
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
    """gRPC glue: every EvaluationService method of every API version, through the one call
    skeleton (:mod:`evald.rpc`)."""

    dataset: Any = None
    """Builds the EvaluateDataset method handler from its method path (``evald.jobs``); None:
    EvaluateDataset answers UNIMPLEMENTED (a gateway without a server's dataset jobs)."""

    def __init__(self, evaluator: Evaluator, limits: RequestLimits | None = None) -> None:
        self.evaluator = evaluator
        self.limits = limits or RequestLimits()

    def method_handlers(self) -> list[grpc.GenericRpcHandler[Any, Any]]:
        """Generic handlers serving EvaluationService for every API version."""
        result: list[grpc.GenericRpcHandler[Any, Any]] = []
        for version, service in api.SERVICE_NAMES.items():
            methods = {"EvaluateInstances": rpc.unary_handler(self._evaluate_instances(service))}
            if version == "v1beta1" and self.dataset is not None:
                methods["EvaluateDataset"] = self.dataset(f"/{service}/EvaluateDataset")
            elif version == "v1beta1":
                methods["EvaluateDataset"] = rpc.unary_handler(
                    rpc.Unary(
                        f"/{service}/EvaluateDataset",
                        messages.EvaluateDatasetRequest,
                        _no_dataset_jobs,
                        label="dataset",
                    )
                )
            result.append(grpc.method_handlers_generic_handler(service, methods))
        return result

    def _evaluate_instances(self, service: str) -> rpc.Unary[Any]:
        evaluator, limits = self.evaluator, self.limits
        computed = evaluator.computed

        def describe(request: Any) -> tuple[str, int]:
            return evaluator.describe(request, request.WhichOneof("metric_inputs"))

        def check(request: Any, size: int) -> None:
            if not limits.fits(size):
                limits.check(request)

        async def evaluate(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            which = request.WhichOneof("metric_inputs")
            if which in computed:  # calls no judge
                return await evaluator.dispatch(request, which)
            # Judges get the caller's deadline and metadata.
            return await evaluator.evaluate_instances(
                request,
                time_remaining=context.time_remaining(),
                metadata=context.invocation_metadata() or (),
            )

        async def serve(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            if not tracing.enabled():
                return await evaluate(request, context)
            metric, count = describe(request)
            with tracing.span(f"evaluate {metric}", instances=count):
                return await evaluate(request, context)

        return rpc.Unary(
            f"/{service}/EvaluateInstances",
            messages.EvaluateInstancesRequest,
            serve,
            label="unknown",  # until the request is parsed
            describe=describe,
            check=check,
        )


async def _no_dataset_jobs(request: Any, context: Any) -> Any:
    raise Unimplemented(
        "EvaluateDataset runs dataset jobs, which only a server started with `evald serve` keeps"
    )
