"""gRPC glue of dataset jobs: ``EvaluateDataset`` and the ``google.longrunning.Operations``
service (Get, List, Cancel, Delete, Wait).

The Operations methods are served under two names: ``google.longrunning.Operations`` (what
gRPC operations clients call) and ``evald.v1.Operations`` (declared in
``evald/v1/operations.proto`` with Vertex AI's HTTP paths, which the gateway routes).

``-`` stands for any project or location (the wildcard of Google's resource names):
``ListOperations`` of ``projects/-/locations/-`` lists the operations of every location, and
``projects/-/locations/-/operations/ID`` names the operation ``ID`` wherever it is (IDs are
random 62-bit numbers, unique across locations); replies carry the operation's own name.

An operation's ``metadata`` is an ``EvaluateDatasetOperationMetadata`` (the Vertex type name, so
Vertex clients unpack it); its bytes also carry ``evald.v1.DatasetJobProgress`` at field 1000,
which evald clients read by parsing them as ``evald.v1.EvaluateDatasetOperationMetadata``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import grpc
from evald_proto.evald.v1 import model_evaluation_pb2
from evald_proto.evald.v1 import operations_pb2 as evald_ops
from google.longrunning import operations_proto_pb2 as lro
from google.protobuf import empty_pb2
from google.rpc import status_pb2

from evald import api, rpc
from evald.errors import FailedPrecondition, InvalidArgument, NotFound
from evald.jobs.runner import JobRunner
from evald.jobs.store import ACTIVE, FINISHED, Job

SERVICE_NAMES = (
    "google.longrunning.Operations",
    evald_ops.DESCRIPTOR.services_by_name["Operations"].full_name,
)
MODEL_EVALUATION = "model"
"""The job kind of an ``EvaluateModel`` operation (its response an EvaluateModelResponse)."""
METADATA_TYPE_URL = (
    "type.googleapis.com/" + api.messages.EvaluateDatasetOperationMetadata.DESCRIPTOR.full_name
)
NAME = re.compile(r"^projects/[^/]+/locations/[^/]+/operations/[^/]+$")
WILDCARD = "-"
"""Any project, or any location, in a name."""
MAX_PAGE = 100
MAX_WAIT_SECONDS = 300.0
"""WaitOperation returns after this long even if neither a timeout nor a deadline is given."""


def to_operation(job: Job) -> lro.Operation:
    """The ``google.longrunning.Operation`` of a stored job."""
    operation = lro.Operation(name=job.name, done=job.state in FINISHED)
    metadata = evald_ops.EvaluateDatasetOperationMetadata()
    generic = metadata.generic_metadata
    generic.create_time.FromNanoseconds(int(job.create_time * 1e9))
    generic.update_time.FromNanoseconds(int(job.update_time * 1e9))
    progress = metadata.progress
    progress.state = job.state
    progress.rows_total = job.rows_total
    progress.rows_done = job.rows_done
    progress.rows_failed = job.rows_failed
    if job.rows_failed:
        generic.partial_failures.add(
            code=3, message=f"{job.rows_failed} row(s) had metric errors; see results.jsonl"
        )
    operation.metadata.type_url = METADATA_TYPE_URL
    operation.metadata.value = metadata.SerializeToString()
    if job.state in FINISHED:
        if job.response is not None and job.state not in ("FAILED", "CANCELLED"):
            response: Any
            if job.kind == MODEL_EVALUATION:
                response = model_evaluation_pb2.EvaluateModelResponse.FromString(job.response)
            else:
                response = api.messages.EvaluateDatasetResponse.FromString(job.response)
            operation.response.Pack(response)
        else:
            operation.error.CopyFrom(status_pb2.Status.FromString(job.error or b""))
    return operation


class OperationsService:
    """Operations RPCs over a :class:`JobRunner`."""

    def __init__(self, runner: JobRunner) -> None:
        self.runner = runner

    def handlers(self) -> list[grpc.GenericRpcHandler[Any, Any]]:
        """Generic handlers for both Operations service names."""
        table: dict[str, tuple[Callable[..., Any], type[Any]]] = {
            "GetOperation": (self.get_operation, lro.GetOperationRequest),
            "ListOperations": (self.list_operations, lro.ListOperationsRequest),
            "CancelOperation": (self.cancel_operation, lro.CancelOperationRequest),
            "DeleteOperation": (self.delete_operation, lro.DeleteOperationRequest),
            "WaitOperation": (self.wait_operation, lro.WaitOperationRequest),
        }
        result = []
        for service in SERVICE_NAMES:
            methods = {
                method: rpc.unary_handler(
                    rpc.Unary(
                        f"/{service}/{method}", request_class, implementation, label="dataset"
                    )
                )
                for method, (implementation, request_class) in table.items()
            }
            result.append(grpc.method_handlers_generic_handler(service, methods))
        return result

    def evaluate_dataset_handler(self, method: str) -> grpc.RpcMethodHandler[Any, Any]:
        """The ``EvaluateDataset`` method handler (v1beta1 EvaluationService)."""
        return rpc.unary_handler(
            rpc.Unary(
                method, api.messages.EvaluateDatasetRequest, self.evaluate_dataset, label="dataset"
            )
        )

    async def evaluate_dataset(self, request: Any, context: Any) -> lro.Operation:
        return to_operation(await self.runner.submit(request))

    async def get_operation(self, request: Any, context: Any) -> lro.Operation:
        return to_operation(await self.runner.get(await self._resolve(request.name)))

    async def list_operations(self, request: Any, context: Any) -> lro.ListOperationsResponse:
        if not api.LOCATION.match(request.name):
            raise InvalidArgument("name", "must look like projects/P/locations/L")
        size = request.page_size if 0 < request.page_size <= MAX_PAGE else MAX_PAGE
        offset = int(request.page_token) if request.page_token.isdigit() else 0
        if request.page_token and not request.page_token.isdigit():
            raise InvalidArgument("page_token", "not a token this server returned")
        jobs = await self.runner.store.glob(_pattern(request.name, "*"), offset, size + 1)
        response = lro.ListOperationsResponse()
        response.operations.extend(to_operation(job) for job in jobs[:size])
        if len(jobs) > size:
            response.next_page_token = str(offset + size)
        return response

    async def cancel_operation(self, request: Any, context: Any) -> empty_pb2.Empty:
        await self.runner.cancel(await self._resolve(request.name))
        return empty_pb2.Empty()

    async def delete_operation(self, request: Any, context: Any) -> empty_pb2.Empty:
        job = await self.runner.get(await self._resolve(request.name))
        if job.state in ACTIVE:
            raise FailedPrecondition(
                f"operation {job.name!r} is {job.state}; cancel it before deleting it"
            )
        await self.runner.store.delete(job.name)
        return empty_pb2.Empty()

    async def wait_operation(self, request: Any, context: Any) -> lro.Operation:
        timeout = MAX_WAIT_SECONDS
        if request.HasField("timeout"):
            timeout = min(timeout, request.timeout.ToTimedelta().total_seconds())
        remaining = context.time_remaining()
        if remaining is not None:
            timeout = min(timeout, max(0.0, remaining - 0.05))  # answer before the deadline
        return to_operation(await self.runner.wait(await self._resolve(request.name), timeout))

    async def _resolve(self, name: str) -> str:
        """The stored name of the operation ``name`` names, which may have ``-`` for its
        project or location; NotFound if there is none."""
        _, project, _, location, _, job_id = _name(name).split("/")
        if WILDCARD not in (project, location):
            return name
        found = await self.runner.store.glob(
            _pattern(f"projects/{project}/locations/{location}", _literal(job_id)), 0, 2
        )
        if not found:
            raise NotFound(f"operation {name!r} does not exist")
        if len(found) > 1:  # only if someone stored the same ID twice: refuse to guess
            raise FailedPrecondition(
                f"operation ID {job_id!r} is in several locations; name the operation in full"
            )
        return found[0].name


def _pattern(location: str, job: str) -> str:
    """The GLOB pattern of the operation names ``job`` (a pattern) in ``location``, whose
    project and location may be ``-``."""
    _, project, _, place = location.split("/")
    parts = ("*" if part == WILDCARD else _literal(part) for part in (project, place))
    return "projects/{}/locations/{}/operations/{}".format(*parts, job)


def _literal(text: str) -> str:
    """``text`` as a GLOB pattern matching only itself."""
    return re.sub(r"([*?\[])", r"[\1]", text)


def _name(name: str) -> str:
    if not NAME.match(name):
        raise InvalidArgument("name", "must look like projects/P/locations/L/operations/ID")
    return name
