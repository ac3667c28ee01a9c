"""The EvaluationService RPCs, transport-free: request message in, response message out.

The gRPC server (``evald.server``) and the HTTP gateway (through the same gRPC handlers) call
:class:`Evaluator`; dataset jobs and ``evald evaluate`` call it directly.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import grpc

from evald import api, instance_rubrics, rpc
from evald.call import Call, Services
from evald.errors import InvalidArgument, Unimplemented
from evald.judges import usage
from evald.metric_api import MetricApi
from evald.metrics.catalog import PENDING
from evald.ops import tracing
from evald.ops.limits import RequestLimits

log = logging.getLogger(__name__)
messages: Any = api.messages


class Evaluator:
    """Dispatches each request to the metric of its ``metric_inputs`` member, or to the Metric
    API for ``metrics`` / ``metric_sources``."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self.default_call = Call(services)
        """The Call of a request with no deadline, the judge cache on and no autorater config:
        what computed metrics get (they read none of it), built once."""
        self.metric_api = MetricApi(services.metrics)
        self.inputs = services.metrics.inputs
        self.computed = services.metrics.computed_inputs()
        """Inputs whose metric is computed locally: it calls no judge, so needs no Call of its
        own."""
        self.counted = frozenset(
            field.name
            for field in api.METRIC_INPUTS.fields
            if api.has_field(field.message_type, "instances")
        )
        """Inputs that carry ``instances`` (the request log counts them)."""

    def call_for(
        self,
        request: Any,
        time_remaining: float | None = None,
        metadata: Iterable[tuple[str, Any]] = (),
    ) -> Call:
        """The Call of ``request``: ``time_remaining`` (seconds until the caller's deadline) and
        ``metadata`` (gRPC metadata or HTTP headers) reach judge calls as deadline propagation
        and the per-request cache switch."""
        return Call.for_request(self.services, request, time_remaining, metadata)

    async def evaluate_instances(self, request: Any, call: Call | None = None) -> Any:
        """Evaluate one EvaluateInstancesRequest with ``call`` (by default the request's own,
        without deadline); raises EvalError on a request it cannot serve."""
        which = request.WhichOneof("metric_inputs")
        if which in self.computed:
            return await self.dispatch(request, which, self.default_call)
        return await self.dispatch(request, which, call or self.call_for(request))

    async def dispatch(self, request: Any, which: str | None, call: Call) -> Any:
        """Evaluate ``request``, whose ``metric_inputs`` member is ``which``, with ``call``."""
        if which is None:
            if len(request.metrics) or len(request.metric_sources):
                return await self.metric_api.evaluate(request, call)
            raise InvalidArgument(
                "metric_inputs",
                "no metric input is set; set exactly one of: "
                + ", ".join(f.name for f in api.METRIC_INPUTS.fields),
            )
        metric = self.inputs.get(which)
        if metric is None:
            reason = PENDING.get(which, "no metric serves it")
            raise Unimplemented(f"metric '{which}' is not implemented by this server: {reason}")
        result = await metric.evaluate_input(getattr(request, which), which, call)
        response = messages.EvaluateInstancesResponse()
        assert metric.result_field is not None  # the catalog checked it
        getattr(response, metric.result_field).CopyFrom(result)
        return response

    async def generate_instance_rubrics(self, request: Any, call: Call | None = None) -> Any:
        """Serve one GenerateInstanceRubricsRequest with ``call`` (by default the request's own,
        without deadline); raises EvalError on a request it cannot serve."""
        return await instance_rubrics.generate_instance_rubrics(
            request, call or self.call_for(request)
        )

    def describe(self, request: Any, which: str | None) -> tuple[str, int]:
        """The metric ``request`` asks for (its ``metric_inputs`` member is ``which``) and how
        many instances it carries, for the request log."""
        if which is None:
            new_style = len(request.metrics) or len(request.metric_sources)
            return ("metrics", 1) if new_style else ("none", 0)
        if which in self.counted:
            return which, len(getattr(request, which).instances)
        return which, 1


async def reporting_usage(context: grpc.aio.ServicerContext[Any, Any], work: Awaitable[Any]) -> Any:
    """The result of ``work``, its judge usage in the call's trailing metadata
    (:data:`evald.judges.usage.TRAILER`) when it made or looked up any judge call."""
    with usage.collect() as tally:
        try:
            return await work
        finally:  # a failed request may have cost tokens too (abort keeps the trailer)
            if not tally.total.empty:
                context.set_trailing_metadata(((usage.TRAILER, tally.encode()),))


class GrpcEvaluationService:
    """gRPC glue: every EvaluationService method of every API version, through the one call
    skeleton (:mod:`evald.rpc`)."""

    def __init__(
        self,
        evaluator: Evaluator,
        dataset: Callable[[str], grpc.RpcMethodHandler[Any, Any]],
        limits: RequestLimits,
    ) -> None:
        self.evaluator = evaluator
        self.dataset = dataset
        """Builds the EvaluateDataset method handler from its method path (dataset jobs)."""
        self.limits = limits

    def method_handlers(self) -> list[grpc.GenericRpcHandler[Any, Any]]:
        """Generic handlers serving EvaluationService for every API version."""
        result: list[grpc.GenericRpcHandler[Any, Any]] = []
        for version, service in api.SERVICE_NAMES.items():
            methods = {"EvaluateInstances": rpc.unary_handler(self._evaluate_instances(service))}
            if version == "v1beta1":  # the public v1 API has neither of these
                methods["EvaluateDataset"] = self.dataset(f"/{service}/EvaluateDataset")
                methods["GenerateInstanceRubrics"] = rpc.unary_handler(
                    self._generate_instance_rubrics(service)
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

        async def check_raw(raw: bytes) -> None:
            if limits.walks(len(raw)):  # large: walked off the event loop
                await asyncio.to_thread(
                    limits.check_wire, raw, messages.EvaluateInstancesRequest.DESCRIPTOR
                )

        async def evaluate(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            which = request.WhichOneof("metric_inputs")
            if which in computed:  # calls no judge
                return await evaluator.dispatch(request, which, evaluator.default_call)
            # Judges get the caller's deadline and metadata.
            call = evaluator.call_for(
                request, context.time_remaining(), context.invocation_metadata() or ()
            )
            return await reporting_usage(context, evaluator.dispatch(request, which, call))

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
            check_raw=check_raw,
        )

    def _generate_instance_rubrics(self, service: str) -> rpc.Unary[Any]:
        evaluator, limits = self.evaluator, self.limits
        request_class = messages.GenerateInstanceRubricsRequest

        def check(request: Any, size: int) -> None:
            if not limits.fits(size):
                limits.check_rubrics(request)

        async def check_raw(raw: bytes) -> None:
            if limits.walks(len(raw)):  # large: walked off the event loop
                await asyncio.to_thread(limits.check_wire, raw, request_class.DESCRIPTOR)

        async def generate(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            # The judge gets the caller's deadline and metadata.
            call = evaluator.call_for(
                request, context.time_remaining(), context.invocation_metadata() or ()
            )
            return await reporting_usage(
                context, evaluator.generate_instance_rubrics(request, call)
            )

        async def serve(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            if not tracing.enabled():
                return await generate(request, context)
            spec, _ = instance_rubrics.describe(request)
            with tracing.span(f"generate rubrics {spec}"):
                return await generate(request, context)

        return rpc.Unary(
            f"/{service}/GenerateInstanceRubrics",
            request_class,
            serve,
            label="unknown",  # until the request is parsed
            describe=instance_rubrics.describe,
            check=check,
            check_raw=check_raw,
        )
