"""``EvaluateModel``: FMEval's model evaluations as long-running operations.

An evaluation is stored as ``projects/P/locations/L/operations/<id>`` of job kind
``model`` on the shared job engine, so the Operations service reads, lists, waits for,
cancels and deletes it like an EvaluateDataset job, and a restarted server resumes it without
scoring a stored row again. Model outputs are cached under the operation's name: the
resumed evaluation asks the model nothing it already answered.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from pathlib import Path
from typing import Any

import grpc
from evald_proto.evald.v1 import model_evaluation_pb2 as model_pb2
from google.longrunning import operations_proto_pb2 as lro
from google.protobuf import json_format, struct_pb2

from evald import api, rpc
from evald.errors import InvalidArgument
from evald.fmeval import run as runs
from evald.fmeval.model import TargetModel
from evald.jobs import outputs, sources
from evald.jobs.operations import MODEL_EVALUATION, to_operation
from evald.jobs.runner import JobRunner
from evald.jobs.store import SUCCEEDED, Job
from evald.models.base import Models
from evald.targets import Targets

SERVICE = model_pb2.DESCRIPTOR.services_by_name["ModelEvaluationService"].full_name
METHOD = f"/{SERVICE}/EvaluateModel"
URIS = "dataset_uris"
RESULTS_FILE = outputs.RESULTS_FILE
AGGREGATION_FILE = outputs.AGGREGATION_FILE


def _dict(message: struct_pb2.Struct) -> dict[str, Any]:
    found: dict[str, Any] = json_format.MessageToDict(message)
    return found


def plan_of(request: Any) -> runs.Plan:
    """The checked plan of an ``EvaluateModelRequest``; InvalidArgument naming the field."""
    return runs.plan(
        request.algorithm,
        _dict(request.config),
        _dict(request.target) if request.HasField("target") else None,
        _dict(request.data_config),
        request.prompt_template,
        _dict(request.generation_params),
    )


class ModelEvaluationJobs:
    """Runs stored model evaluations (a :class:`~evald.jobs.runner.JobKind`)."""

    kind = MODEL_EVALUATION

    def __init__(
        self,
        targets: Targets,
        dataset_root: Path | None,
        output_root: Path | None,
        models: Models | None = None,
    ):
        self.targets = targets
        self.dataset_root = dataset_root
        self.output_root = output_root
        self.models = models
        """The server's model runtime, for BERTScore (None: BERTScores are unavailable)."""

    async def run(self, runner: JobRunner, name: str, job: Job) -> None:
        request = model_pb2.EvaluateModelRequest.FromString(job.request)
        found = plan_of(request)
        data = await asyncio.to_thread(
            sources.read_rows, list(request.dataset_uris), self.dataset_root, URIS
        )
        if job.rows_total and job.rows_total != len(data):
            raise InvalidArgument(
                URIS,
                f"the dataset changed while the evaluation was stopped ({job.rows_total} rows "
                f"before, {len(data)} now)",
            )
        await runner.store.update(name, rows_total=len(data))
        rows = [runs.canonical(found, row) for row in data]
        model = self.model(found, rows, name)
        await runs.probe(found, rows, model)
        context = await found.algorithm.prepare(rows, found.config, model, found.prompt_template)
        bertscore, missing = runs.bertscore_of(found, self.models)
        done = await runner.store.done_rows(name)

        async def score(index: int) -> tuple[bool, str]:
            record = await runs.score_row(found, index, rows[index], model, context, bertscore)
            return record["error"] is not None, json.dumps(record, ensure_ascii=False)

        await runner.score_rows(name, (i for i in range(len(rows)) if i not in done), score)
        lines = await runner.store.results(name)

        def finish() -> dict[str, Any]:  # seconds of CPU for a large dataset: off the loop
            records = [json.loads(line) for line in lines]
            aggregation = runs.aggregation(found, records, missing)
            files = {
                RESULTS_FILE: "".join(line + "\n" for line in lines),
                AGGREGATION_FILE: json.dumps(aggregation, indent=2, ensure_ascii=False) + "\n",
            }
            outputs.write_files(job.output_dir, files, self.output_root, "output_uri_prefix")
            return aggregation

        aggregation = await asyncio.to_thread(finish)
        response = model_pb2.EvaluateModelResponse(output_directory=job.output_dir)
        json_format.ParseDict(aggregation, response.aggregation)
        await runner.end(name, SUCCEEDED, response=response.SerializeToString())

    def model(self, found: runs.Plan, rows: list[dict[str, Any]], scope: str | None) -> Any:
        """The model under test (a stand-in that refuses calls when the rows hold outputs)."""
        if found.endpoint is None:
            if runs.needs_model(found, rows):
                raise InvalidArgument(
                    "target", "this evaluation calls the model: give target.api_endpoint"
                )
            return NoModel()
        params = found.params
        return TargetModel(self.targets, found.endpoint, params, cache_scope=scope)


class NoModel:
    """The model of an evaluation whose rows hold the outputs: never called."""

    async def generate(self, prompt: str) -> str:
        raise InvalidArgument("target", "the row holds no model_output and no target is given")

    async def log_probability(self, text: str) -> float:
        raise InvalidArgument("target", "log-probabilities need a target")


class ModelEvaluationService:
    """The ``EvaluateModel`` RPC over the job runner."""

    def __init__(self, runner: JobRunner, jobs: ModelEvaluationJobs) -> None:
        self.runner = runner
        self.jobs = jobs

    def handler(self) -> grpc.GenericRpcHandler[Any, Any]:
        method = rpc.unary_handler(
            rpc.Unary(METHOD, model_pb2.EvaluateModelRequest, self.evaluate_model, label="dataset")
        )
        return grpc.method_handlers_generic_handler(SERVICE, {"EvaluateModel": method})

    async def evaluate_model(self, request: Any, context: Any) -> lro.Operation:
        location = request.location or api.DEFAULT_LOCATION
        if not api.LOCATION.match(location):
            raise InvalidArgument("location", "must look like projects/P/locations/L")
        found = await asyncio.to_thread(plan_of, request)
        if not request.dataset_uris:
            raise InvalidArgument(URIS, "name at least one file")
        await asyncio.to_thread(
            sources.check_uris, list(request.dataset_uris), self.jobs.dataset_root, URIS
        )
        if found.endpoint is None and found.algorithm.name not in runs.READS_OUTPUTS:
            raise InvalidArgument("target", "this evaluation calls the model: give target")
        job_id = str(secrets.randbits(62))
        if request.output_uri_prefix:
            prefix = await asyncio.to_thread(
                outputs.check_destination,
                request.output_uri_prefix,
                "output_uri_prefix",
                self.jobs.output_root,
            )
        else:
            prefix = str(self.jobs.output_root)
        request.location = location
        job = await self.runner.create(
            f"{location}/operations/{job_id}",
            request.SerializeToString(),
            outputs.output_directory(prefix, job_id),
            MODEL_EVALUATION,
        )
        return to_operation(job)
