"""``evald jobs`` shows the output of both kinds of operation."""

from __future__ import annotations

from evald.cli.jobs import describe
from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as m
from evald_proto.evald.v1 import model_evaluation_pb2
from evald_proto.evald.v1 import operations_pb2 as evald_ops
from google.longrunning import operations_proto_pb2 as lro


def operation(response: object) -> lro.Operation:
    found = lro.Operation(name="projects/p/locations/l/operations/1", done=True)
    metadata = evald_ops.EvaluateDatasetOperationMetadata()
    metadata.progress.state = "SUCCEEDED"
    found.metadata.Pack(metadata)
    found.response.Pack(response)
    return found


def test_a_model_evaluation() -> None:
    response = model_evaluation_pb2.EvaluateModelResponse(output_directory="/out/1")
    response.aggregation.update({"algorithm": "prompt_stereotyping", "rows": 3})
    shown = describe(operation(response))
    assert shown["output_directory"] == "/out/1"
    assert shown["aggregation"] == {"algorithm": "prompt_stereotyping", "rows": 3.0}


def test_a_dataset_job() -> None:
    response = m.EvaluateDatasetResponse()
    response.output_info.gcs_output_directory = "/out/2"
    shown = describe(operation(response))
    assert shown["output_directory"] == "/out/2"
    assert shown["state"] == "SUCCEEDED"
