"""Typed clients for evald's EvaluationService: one method per computed metric.

Every metric method takes plain Python lists and returns one float per instance, in order.
Long lists are sent in several requests (at most ``max_batch_size`` instances and about
``max_message_bytes`` each); the scores come back concatenated in the order given.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Mapping, Sequence
from typing import Any, Generic, TypeVar

import grpc
from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as messages
from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2_grpc as services

from evald_client._exceptions import from_rpc_error
from evald_client._requests import (
    DEFAULT_MAX_BATCH,
    Metric,
    ToolInput,
    Trajectory,
    batches,
    scores,
    text_instances,
    trajectory_instances,
)

DEFAULT_LOCATION = "projects/evald/locations/local"
DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024
"""The server's default limit (``evald serve --max-message-bytes``)."""

R = TypeVar("R")


class _Metrics(ABC, Generic[R]):
    """The metric methods; subclasses say how a batch of requests is sent."""

    @abstractmethod
    def _score(self, metric: Metric, spec: Mapping[str, Any], instances: list[Any]) -> R:
        """Send ``instances`` in batches and return their scores in order."""

    def exact_match(self, predictions: Sequence[str], references: Sequence[str]) -> R:
        """1.0 where prediction and reference are the same string, else 0.0.

        >>> with EvaluationClient(target) as client:
        ...     client.exact_match(["Paris", "paris"], ["Paris", "Paris"])
        [1.0, 0.0]
        """
        metric = Metric("exact_match_input")
        return self._score(metric, {}, text_instances(metric, predictions, references))

    def bleu(
        self,
        predictions: Sequence[str],
        references: Sequence[str],
        use_effective_order: bool = False,
    ) -> R:
        """Sentence BLEU of each prediction against its reference, in 0..1.

        >>> with EvaluationClient(target) as client:
        ...     client.bleu(["the cat sat on the mat"], ["the cat sat on the mat"])
        [1.0]
        """
        metric = Metric("bleu_input")
        spec = {"use_effective_order": use_effective_order}
        return self._score(metric, spec, text_instances(metric, predictions, references))

    def rouge(
        self,
        predictions: Sequence[str],
        references: Sequence[str],
        rouge_type: str = "rougeL",
        use_stemmer: bool = False,
        split_summaries: bool = False,
    ) -> R:
        """ROUGE F-measure (``rouge1``, ``rouge2``, ``rougeL`` or ``rougeLsum``).

        Two of three unigrams shared gives precision = recall = F = 2/3:

        >>> with EvaluationClient(target) as client:
        ...     [round(s, 4) for s in client.rouge(["a b c"], ["a b d"], rouge_type="rouge1")]
        [0.6667]
        """
        metric = Metric("rouge_input")
        spec = {
            "rouge_type": rouge_type,
            "use_stemmer": use_stemmer,
            "split_summaries": split_summaries,
        }
        return self._score(metric, spec, text_instances(metric, predictions, references))

    def tool_call_valid(
        self, predictions: Sequence[ToolInput], references: Sequence[ToolInput]
    ) -> R:
        """1.0 where the prediction is a well-formed tool-call JSON, else 0.0.

        Predictions and references are ``{"content": ..., "tool_calls": [...]}`` JSON strings
        (or mappings, sent as JSON).

        >>> call = {"content": "", "tool_calls": [{"name": "get_weather", "arguments": {}}]}
        >>> with EvaluationClient(target) as client:
        ...     client.tool_call_valid([call], [call])
        [1.0]
        """
        metric = Metric("tool_call_valid_input")
        return self._score(metric, {}, text_instances(metric, predictions, references))

    def tool_name_match(
        self, predictions: Sequence[ToolInput], references: Sequence[ToolInput]
    ) -> R:
        """1.0 where the predicted tool names match the reference's, else 0.0."""
        metric = Metric("tool_name_match_input")
        return self._score(metric, {}, text_instances(metric, predictions, references))

    def tool_parameter_key_match(
        self, predictions: Sequence[ToolInput], references: Sequence[ToolInput]
    ) -> R:
        """How far the predicted parameter names match the reference's, in 0..1."""
        metric = Metric("tool_parameter_key_match_input")
        return self._score(metric, {}, text_instances(metric, predictions, references))

    def tool_parameter_kv_match(
        self,
        predictions: Sequence[ToolInput],
        references: Sequence[ToolInput],
        use_strict_string_match: bool = False,
    ) -> R:
        """How far the predicted parameter names and values match the reference's, in 0..1."""
        metric = Metric("tool_parameter_kv_match_input")
        spec = {"use_strict_string_match": use_strict_string_match}
        return self._score(metric, spec, text_instances(metric, predictions, references))

    def trajectory_exact_match(
        self, predicted: Sequence[Trajectory], reference: Sequence[Trajectory]
    ) -> R:
        """1.0 where the predicted trajectory equals the reference one, else 0.0.

        A trajectory is a list of ``(tool_name, tool_input)`` steps; ``tool_input`` is a JSON
        string or a mapping.

        >>> steps = [("search", {"q": "weather"}), ("answer", "{}")]
        >>> with EvaluationClient(target) as client:
        ...     client.trajectory_exact_match([steps, steps], [steps, steps[:1]])
        [1.0, 0.0]
        """
        return self._trajectory("trajectory_exact_match_input", predicted, reference)

    def trajectory_in_order_match(
        self, predicted: Sequence[Trajectory], reference: Sequence[Trajectory]
    ) -> R:
        """1.0 where the reference steps appear in the prediction in order, else 0.0."""
        return self._trajectory("trajectory_in_order_match_input", predicted, reference)

    def trajectory_any_order_match(
        self, predicted: Sequence[Trajectory], reference: Sequence[Trajectory]
    ) -> R:
        """1.0 where every reference step appears in the prediction, in any order."""
        return self._trajectory("trajectory_any_order_match_input", predicted, reference)

    def trajectory_precision(
        self, predicted: Sequence[Trajectory], reference: Sequence[Trajectory]
    ) -> R:
        """Share of predicted steps that are in the reference, in 0..1."""
        return self._trajectory("trajectory_precision_input", predicted, reference)

    def trajectory_recall(
        self, predicted: Sequence[Trajectory], reference: Sequence[Trajectory]
    ) -> R:
        """Share of reference steps that are in the prediction, in 0..1."""
        return self._trajectory("trajectory_recall_input", predicted, reference)

    def trajectory_single_tool_use(self, predicted: Sequence[Trajectory], tool_name: str) -> R:
        """1.0 where the predicted trajectory uses ``tool_name``, else 0.0."""
        metric = Metric("trajectory_single_tool_use_input")
        instances = trajectory_instances(metric, predicted, None)
        return self._score(metric, {"tool_name": tool_name}, instances)

    def _trajectory(
        self, input_field: str, predicted: Sequence[Trajectory], reference: Sequence[Trajectory]
    ) -> R:
        metric = Metric(input_field)
        return self._score(metric, {}, trajectory_instances(metric, predicted, reference))


class _Settings:
    """Connection settings shared by both clients."""

    def __init__(
        self,
        target: str,
        *,
        root_certificates: bytes | None,
        tls: bool,
        api_key: str | None,
        bearer_token: str | None,
        metadata: Sequence[tuple[str, str]],
        location: str,
        max_message_bytes: int,
        max_batch_size: int,
        timeout: float | None,
    ) -> None:
        if max_batch_size < 1:
            raise ValueError(f"max_batch_size must be at least 1, got {max_batch_size}")
        if max_message_bytes < 1:
            raise ValueError(f"max_message_bytes must be positive, got {max_message_bytes}")
        self.target = target
        self.tls = tls or root_certificates is not None
        self.root_certificates = root_certificates
        self.location = location
        self.max_message_bytes = max_message_bytes
        self.max_batch_size = max_batch_size
        self.timeout = timeout
        extra = list(metadata)
        if api_key is not None:
            extra.append(("x-goog-api-key", api_key))
        if bearer_token is not None:
            extra.append(("authorization", f"Bearer {bearer_token}"))
        self.metadata = tuple(extra)

    def call_metadata(self, location: str) -> tuple[tuple[str, str], ...]:
        """Metadata of one call: the configured entries plus the routing header."""
        return (*self.metadata, ("x-goog-request-params", f"location={location}"))

    @property
    def options(self) -> list[tuple[str, int]]:
        return [
            ("grpc.max_send_message_length", self.max_message_bytes),
            ("grpc.max_receive_message_length", self.max_message_bytes),
        ]

    def credentials(self) -> grpc.ChannelCredentials:
        return grpc.ssl_channel_credentials(root_certificates=self.root_certificates)

    def prepare(self, request: Any) -> Any:
        """A v1beta1 request with ``location`` set (a v1 request is read as v1beta1: it is a
        wire subset)."""
        if request.DESCRIPTOR.full_name != messages.EvaluateInstancesRequest.DESCRIPTOR.full_name:
            request = messages.EvaluateInstancesRequest.FromString(request.SerializeToString())
        if not request.location:
            request = _with_location(request, self.location)
        return request

    def plan(self, metric: Metric, spec: Mapping[str, Any], instances: list[Any]) -> list[Any]:
        return list(
            batches(
                metric,
                spec,
                instances,
                location=self.location,
                max_batch=self.max_batch_size,
                max_bytes=self.max_message_bytes,
            )
        )


def _with_location(request: Any, location: str) -> Any:
    copy = messages.EvaluateInstancesRequest()
    copy.CopyFrom(request)
    copy.location = location
    return copy


class EvaluationClient(_Metrics[list[float]]):
    """Blocking client of an evald server (or any EvaluationService endpoint).

    ``target`` is ``host:port``. TLS is used when ``tls`` is true or ``root_certificates``
    (PEM bytes) are given; ``api_key`` is sent as ``x-goog-api-key`` and ``bearer_token`` as
    ``authorization: Bearer ...`` metadata. ``channel`` replaces the channel the client would
    open (e.g. one with interceptors); the client then does not close it.

    >>> with EvaluationClient(target) as client:
    ...     client.exact_match(["a", "b"], ["a", "c"])
    [1.0, 0.0]

    Errors carry the server's status; a rejected request names its fields:

    >>> from evald_client import InvalidArgumentError
    >>> from evald_proto.aiplatform.v1beta1.evaluation_service_pb2 import EvaluateInstancesRequest
    >>> with EvaluationClient(target) as client:
    ...     try:
    ...         client.evaluate_instances(EvaluateInstancesRequest())
    ...     except InvalidArgumentError as error:
    ...         print(error.code.name, error.field_violations[0].field)
    INVALID_ARGUMENT metric_inputs
    """

    def __init__(
        self,
        target: str,
        *,
        root_certificates: bytes | None = None,
        tls: bool = False,
        api_key: str | None = None,
        bearer_token: str | None = None,
        metadata: Sequence[tuple[str, str]] = (),
        location: str = DEFAULT_LOCATION,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
        max_batch_size: int = DEFAULT_MAX_BATCH,
        timeout: float | None = None,
        channel: grpc.Channel | None = None,
    ) -> None:
        self._settings = _Settings(
            target,
            root_certificates=root_certificates,
            tls=tls,
            api_key=api_key,
            bearer_token=bearer_token,
            metadata=metadata,
            location=location,
            max_message_bytes=max_message_bytes,
            max_batch_size=max_batch_size,
            timeout=timeout,
        )
        self._owns_channel = channel is None
        if channel is None:
            s = self._settings
            channel = (
                grpc.secure_channel(target, s.credentials(), options=s.options)
                if s.tls
                else grpc.insecure_channel(target, options=s.options)
            )
        self._channel = channel
        self._stub = services.EvaluationServiceStub(channel)  # type: ignore[no-untyped-call]

    def evaluate_instances(self, request: Any, *, timeout: float | None = None) -> Any:
        """Send one raw ``EvaluateInstancesRequest`` (v1beta1, or v1) and return the response.

        >>> from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as m
        >>> request = m.EvaluateInstancesRequest(exact_match_input=m.ExactMatchInput(
        ...     instances=[m.ExactMatchInstance(prediction="x", reference="x")]))
        >>> with EvaluationClient(target) as client:
        ...     response = client.evaluate_instances(request)
        >>> response.exact_match_results.exact_match_metric_values[0].score
        1.0
        """
        request = self._settings.prepare(request)
        try:
            return self._stub.EvaluateInstances(
                request,
                timeout=self._settings.timeout if timeout is None else timeout,
                metadata=self._settings.call_metadata(request.location),
            )
        except grpc.RpcError as exc:
            raise from_rpc_error(exc) from None

    def _score(self, metric: Metric, spec: Mapping[str, Any], instances: list[Any]) -> list[float]:
        result: list[float] = []
        for request in self._settings.plan(metric, spec, instances):
            result.extend(scores(metric, self.evaluate_instances(request)))
        return result

    def close(self) -> None:
        """Close the channel (unless it was handed in)."""
        if self._owns_channel:
            self._channel.close()

    def __enter__(self) -> EvaluationClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncEvaluationClient(_Metrics[Awaitable[list[float]]]):
    """asyncio client; the same options and metric methods as :class:`EvaluationClient`, each
    returning an awaitable. Open it inside a running event loop.

    >>> import asyncio
    >>> async def main():
    ...     async with AsyncEvaluationClient(target) as client:
    ...         return await client.exact_match(["a", "b"], ["a", "c"])
    >>> asyncio.run(main())
    [1.0, 0.0]
    """

    def __init__(
        self,
        target: str,
        *,
        root_certificates: bytes | None = None,
        tls: bool = False,
        api_key: str | None = None,
        bearer_token: str | None = None,
        metadata: Sequence[tuple[str, str]] = (),
        location: str = DEFAULT_LOCATION,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
        max_batch_size: int = DEFAULT_MAX_BATCH,
        timeout: float | None = None,
        channel: grpc.aio.Channel | None = None,
    ) -> None:
        self._settings = _Settings(
            target,
            root_certificates=root_certificates,
            tls=tls,
            api_key=api_key,
            bearer_token=bearer_token,
            metadata=metadata,
            location=location,
            max_message_bytes=max_message_bytes,
            max_batch_size=max_batch_size,
            timeout=timeout,
        )
        self._owns_channel = channel is None
        self._channel = channel
        self._stub: Any = None

    def _ensure_stub(self) -> Any:
        # Opened lazily: a grpc.aio channel belongs to the loop it was created on.
        if self._stub is None:
            if self._channel is None:
                s = self._settings
                self._channel = (
                    grpc.aio.secure_channel(s.target, s.credentials(), options=s.options)
                    if s.tls
                    else grpc.aio.insecure_channel(s.target, options=s.options)
                )
            self._stub = services.EvaluationServiceStub(self._channel)  # type: ignore[no-untyped-call]
        return self._stub

    async def evaluate_instances(self, request: Any, *, timeout: float | None = None) -> Any:
        """Send one raw ``EvaluateInstancesRequest`` (v1beta1, or v1) and return the response."""
        request = self._settings.prepare(request)
        try:
            return await self._ensure_stub().EvaluateInstances(
                request,
                timeout=self._settings.timeout if timeout is None else timeout,
                metadata=self._settings.call_metadata(request.location),
            )
        except grpc.aio.AioRpcError as exc:
            raise from_rpc_error(exc) from None

    def _score(
        self, metric: Metric, spec: Mapping[str, Any], instances: list[Any]
    ) -> Awaitable[list[float]]:
        # Requests are built now, so argument errors raise at the call, not at the await.
        plan = self._settings.plan(metric, spec, instances)
        return self._send_all(metric, plan)

    async def _send_all(self, metric: Metric, plan: list[Any]) -> list[float]:
        result: list[float] = []
        for request in plan:
            result.extend(scores(metric, await self.evaluate_instances(request)))
        return result

    async def close(self) -> None:
        """Close the channel (unless it was handed in)."""
        if self._owns_channel and self._channel is not None:
            await self._channel.close(None)

    async def __aenter__(self) -> AsyncEvaluationClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
