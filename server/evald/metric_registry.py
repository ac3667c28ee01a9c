"""The ``evald.v1.MetricRegistry`` gRPC service: predefined metric listing, registered metrics.

Served by ``evald serve`` beside EvaluationService (and over HTTP by the gateway from the same
``google.api.http`` rules). :func:`sandbox` and :func:`store` build the custom-code sandbox and
the registered-metric store a server's settings describe.
"""

from __future__ import annotations

import json
import re
import secrets
from typing import Any

import grpc
from evald_proto.evald.v1 import metric_registry_pb2 as pb
from google.protobuf import empty_pb2

from evald import api, rpc
from evald.config import Settings
from evald.database import Backend
from evald.errors import AlreadyExists, InvalidArgument, NotFound
from evald.metric_api import SPEC_NAMES
from evald.metrics.catalog import Catalog
from evald.sandbox import Limits, Sandbox
from evald.store import MetricStore, StoredMetric
from evald.store.metrics import TABLES as METRIC_TABLES

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["MetricRegistry"].full_name
NAME = re.compile(r"^(projects/[^/]+/locations/[^/]+)/evaluationMetrics/([^/]+)$")
METRIC_ID = re.compile(r"^[a-z][a-z0-9-]{0,62}$")
DB_FILE = "metrics.sqlite3"
MAX_PAGE = 100


def sandbox(settings: Settings) -> Sandbox:
    """The custom-code sandbox ``settings`` ask for (off unless ``custom_code``)."""
    limits = Limits(
        cpu_seconds=settings.custom_code_cpu_seconds,
        wall_seconds=settings.custom_code_wall_seconds,
        memory_bytes=settings.custom_code_memory_bytes,
    )
    return Sandbox(settings.custom_code, limits)


def store(settings: Settings, backend: Backend | None = None) -> MetricStore:
    """The registered-metric store: in ``backend`` (shared PostgreSQL or the data dir's SQLite),
    else under the data dir."""
    if backend is not None:
        return MetricStore(backend.open(METRIC_TABLES))
    return MetricStore(settings.data_root() / DB_FILE)


class Registry:
    """The MetricRegistry RPCs."""

    def __init__(self, store: MetricStore, metrics: Catalog) -> None:
        self.store = store
        self.metrics = metrics
        """The server's metrics: the listing shows its named ones."""

    def handler(self) -> grpc.GenericRpcHandler[Any, Any]:
        """One generic handler serving every method of the service."""
        service = pb.DESCRIPTOR.services_by_name["MetricRegistry"]
        methods = {}
        for method in service.methods:
            request_class = getattr(pb, method.input_type.name)
            implementation = getattr(self, _snake(method.name))
            methods[method.name] = rpc.unary_handler(
                rpc.Unary(
                    f"/{SERVICE_NAME}/{method.name}",
                    request_class,
                    _ignoring_context(implementation),
                    label="registry",
                )
            )
        return grpc.method_handlers_generic_handler(SERVICE_NAME, methods)

    async def list_predefined_metrics(self, request: Any) -> Any:
        response = pb.ListPredefinedMetricsResponse()
        for metric in self.metrics.named.values():
            if request.family and metric.family != request.family:
                continue
            item = response.metrics.add(
                name=metric.name,
                family=metric.family,
                definition=metric.definition,
                score_range=metric.score_range,
                needs_judge=metric.needs_judge,
            )
            for p in metric.parameters:
                item.parameters.add(
                    name=p.name,
                    kind=p.kind,
                    description=p.description,
                    choices=list(p.choices),
                    default_json="" if p.default is None else json.dumps(p.default),
                )
        return response

    async def create_evaluation_metric(self, request: Any) -> Any:
        if not api.LOCATION.match(request.parent):
            raise InvalidArgument("parent", "must look like projects/P/locations/L")
        which = request.metric.WhichOneof("metric_spec") if request.HasField("metric") else None
        if which is None:
            raise InvalidArgument(
                "metric", "a metric with one spec is required: " + ", ".join(sorted(SPEC_NAMES))
            )
        metric_id = request.evaluation_metric_id or "m" + secrets.token_hex(8)
        if not METRIC_ID.match(metric_id):
            raise InvalidArgument(
                "evaluation_metric_id", "1-63 of a-z, 0-9 and '-', starting with a letter"
            )
        name = f"{request.parent}/evaluationMetrics/{metric_id}"
        # Stored as v1beta1 Metric bytes: the same wire format the request carried.
        stored = await self.store.create(
            name,
            request.display_name,
            request.description,
            request.metric.SerializeToString(),
        )
        if stored is None:
            raise AlreadyExists(f"evaluation metric {name!r} already exists")
        return _message(stored)

    async def get_evaluation_metric(self, request: Any) -> Any:
        return _message(await self._existing(request.name))

    async def list_evaluation_metrics(self, request: Any) -> Any:
        if not api.LOCATION.match(request.parent):
            raise InvalidArgument("parent", "must look like projects/P/locations/L")
        size = request.page_size if 0 < request.page_size <= MAX_PAGE else MAX_PAGE
        items = await self.store.list(
            f"{request.parent}/evaluationMetrics/", request.page_token, size + 1
        )
        response = pb.ListEvaluationMetricsResponse()
        response.evaluation_metrics.extend(_message(i) for i in items[:size])
        if len(items) > size:
            response.next_page_token = items[size - 1].name
        return response

    async def delete_evaluation_metric(self, request: Any) -> Any:
        await self._existing(request.name)
        await self.store.delete(request.name)
        return empty_pb2.Empty()

    async def _existing(self, name: str) -> StoredMetric:
        if not NAME.match(name):
            raise InvalidArgument(
                "name", "must look like projects/P/locations/L/evaluationMetrics/ID"
            )
        stored = await self.store.get(name)
        if stored is None:
            raise NotFound(f"evaluation metric {name!r} is not registered")
        return stored


def _message(stored: StoredMetric) -> Any:
    message = pb.EvaluationMetric(
        name=stored.name, display_name=stored.display_name, description=stored.description
    )
    message.metric.ParseFromString(stored.metric)
    message.create_time.FromNanoseconds(int(stored.create_time * 1e9))
    return message


def _ignoring_context(call: Any) -> Any:
    async def run(request: Any, context: Any) -> Any:
        return await call(request)

    return run


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


_ = api  # the v1beta1 Metric class must be registered before pb parses one
