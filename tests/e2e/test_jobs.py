"""Dataset jobs end to end: EvaluateDataset + google.longrunning.Operations over gRPC and HTTP."""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as m
from evald_proto.evald.v1 import operations_pb2 as evald_ops
from google.longrunning import operations_proto_pb2 as lro
from google.protobuf import duration_pb2

from tests.http_support import request as http_request
from tests.support import ServerThread, serving, stub

LOCATION = "projects/p/locations/l"
ROWS = [
    {"prompt": "q0", "response": "Paris", "reference": "Paris"},
    {"prompt": "q1", "response": "Lyon", "reference": "Paris"},
    {"prompt": "q2", "response": "the cat sat", "reference": "the cat sat"},
    {"prompt": "q3", "response": "x"},  # no reference: every metric errs on this row
]


def ops_call(channel: grpc.Channel, method: str, request: Any, reply: Any) -> Any:
    call = channel.unary_unary(
        f"/google.longrunning.Operations/{method}",
        request_serializer=type(request).SerializeToString,
        response_deserializer=reply.FromString,
    )
    return call(request, timeout=30)


def progress(operation: Any) -> Any:
    return evald_ops.EvaluateDatasetOperationMetadata.FromString(operation.metadata.value).progress


def http_call(base: str, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    status, data, _ = http_request(base, method, path, body)
    return status, data


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def dataset_request(data: Path, out: Path | None, *metrics: Any) -> Any:
    request = m.EvaluateDatasetRequest(location=LOCATION)
    request.dataset.gcs_source.uris.append(str(data))
    request.metrics.extend(metrics)
    if out is not None:
        request.output_config.gcs_destination.output_uri_prefix = str(out)
    return request


@pytest.fixture(scope="module")
def jobs_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    base = tmp_path_factory.getbasetemp()  # every test's files are under it
    data = tmp_path_factory.mktemp("data")
    with serving(data_dir=data, http_port=0, dataset_root=base, output_root=base) as running:
        yield running


@pytest.fixture(scope="module")
def jobs_channel(jobs_server: ServerThread) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(jobs_server.address) as channel:
        yield channel


def test_grpc_job_end_to_end(jobs_channel: grpc.Channel, tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", ROWS)
    exact = m.Metric(exact_match_spec={}, aggregation_metrics=[m.Metric.AVERAGE, m.Metric.MODE])
    bleu = m.Metric(bleu_spec={})
    operation = stub(jobs_channel).EvaluateDataset(
        dataset_request(data, tmp_path / "out", exact, bleu)
    )
    assert operation.name.startswith(f"{LOCATION}/operations/")
    assert operation.metadata.type_url.endswith(
        "google.cloud.aiplatform.v1beta1.EvaluateDatasetOperationMetadata"
    )
    wait = lro.WaitOperationRequest(name=operation.name, timeout=duration_pb2.Duration(seconds=20))
    done = ops_call(jobs_channel, "WaitOperation", wait, lro.Operation)
    assert done.done, done
    assert not done.HasField("error")
    state = progress(done)
    assert (state.state, state.rows_total, state.rows_done, state.rows_failed) == (
        "SUCCEEDED",
        4,
        4,
        1,
    )
    response = m.EvaluateDatasetResponse()
    assert done.response.Unpack(response)
    directory = Path(response.output_info.gcs_output_directory)
    assert directory.parent == tmp_path / "out"
    # Exact match over the three scored rows: 1, 0, 1 (the errored row is left out).
    results = response.aggregation_output.aggregation_results
    assert [(r.aggregation_metric, r.WhichOneof("aggregation_result")) for r in results] == [
        (m.Metric.AVERAGE, "exact_match_metric_value"),
        (m.Metric.MODE, "exact_match_metric_value"),
        (m.Metric.AVERAGE, "bleu_metric_value"),
        (m.Metric.STANDARD_DEVIATION, "bleu_metric_value"),
    ]
    assert results[0].exact_match_metric_value.score == pytest.approx(2 / 3, rel=1e-6)
    assert results[1].exact_match_metric_value.score == 1.0
    lines = [json.loads(x) for x in (directory / "results.jsonl").read_text().splitlines()]
    assert [x["row"] for x in lines] == [0, 1, 2, 3]
    assert [x["results"][0]["score"] for x in lines] == [1.0, 0.0, 1.0, None]
    assert lines[3]["results"][0]["error"]["code"] == "INVALID_ARGUMENT"
    aggregation = json.loads((directory / "aggregation.json").read_text())
    exact_summary = aggregation["metrics"][0]
    assert (exact_summary["count"], exact_summary["errors"]) == (3, 1)
    assert exact_summary["mean"] == pytest.approx(statistics.fmean([1.0, 0.0, 1.0]))
    assert aggregation["rows_failed"] == 1


def test_results_per_category(jobs_channel: grpc.Channel, tmp_path: Path) -> None:
    rows = [
        {"response": "Paris", "reference": "Paris", "category": "geo"},
        {"response": "Lyon", "reference": "Paris", "category": "geo"},
        {"response": "4", "reference": "4", "category": "math"},
    ]
    data = write_jsonl(tmp_path / "rows.jsonl", rows)
    metric = m.Metric(predefined_metric_spec=m.PredefinedMetricSpec(metric_spec_name="nemo/em"))
    operation = stub(jobs_channel).EvaluateDataset(dataset_request(data, tmp_path / "out", metric))
    wait = lro.WaitOperationRequest(name=operation.name, timeout=duration_pb2.Duration(seconds=20))
    done = ops_call(jobs_channel, "WaitOperation", wait, lro.Operation)
    response = m.EvaluateDatasetResponse()
    assert done.response.Unpack(response)
    got = {
        r.pointwise_metric_result.explanation: r.pointwise_metric_result.score
        for r in response.aggregation_output.aggregation_results
    }
    assert got["nemo/em AVERAGE"] == pytest.approx(2 / 3)
    assert got["nemo/em AVERAGE category=geo"] == 0.5
    assert got["nemo/em AVERAGE category=math"] == 1.0
    directory = Path(response.output_info.gcs_output_directory)
    aggregation = json.loads((directory / "aggregation.json").read_text())
    assert aggregation["metrics"][0]["categories"]["geo"]["count"] == 2


def test_list_and_delete(jobs_channel: grpc.Channel, tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", ROWS[:2])
    request = dataset_request(data, None, m.Metric(exact_match_spec={}))
    request.location = "projects/p/locations/listing"
    names = [stub(jobs_channel).EvaluateDataset(request).name for _ in range(3)]
    for name in names:
        ops_call(jobs_channel, "WaitOperation", lro.WaitOperationRequest(name=name), lro.Operation)
    page = ops_call(
        jobs_channel,
        "ListOperations",
        lro.ListOperationsRequest(name="projects/p/locations/listing", page_size=2),
        lro.ListOperationsResponse,
    )
    assert len(page.operations) == 2
    assert page.next_page_token
    rest = ops_call(
        jobs_channel,
        "ListOperations",
        lro.ListOperationsRequest(
            name="projects/p/locations/listing", page_token=page.next_page_token
        ),
        lro.ListOperationsResponse,
    )
    listed = [op.name for op in [*page.operations, *rest.operations]]
    assert sorted(listed) == sorted(names)
    ops_call(jobs_channel, "DeleteOperation", lro.DeleteOperationRequest(name=names[0]), Any_)
    with pytest.raises(grpc.RpcError) as caught:
        ops_call(
            jobs_channel, "GetOperation", lro.GetOperationRequest(name=names[0]), lro.Operation
        )
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND


WILDCARD_NAMES = [
    # (ListOperations name, whether it lists the job of projects/p/locations/wild-a)
    ("projects/-/locations/-", True),
    ("projects/p/locations/-", True),
    ("projects/-/locations/wild-a", True),
    ("projects/q/locations/-", False),
    ("projects/-/locations/wild-b", False),
]


@pytest.mark.parametrize(("parent", "listed"), WILDCARD_NAMES)
def test_wildcard_locations(
    jobs_channel: grpc.Channel, tmp_path: Path, parent: str, listed: bool
) -> None:
    """``-`` is any project or location: listing across locations, and one operation by its ID
    wherever it is, under its own name."""
    data = write_jsonl(tmp_path / "rows.jsonl", ROWS[:1])
    request = dataset_request(data, None, m.Metric(exact_match_spec={}))
    request.location = "projects/p/locations/wild-a"
    name = stub(jobs_channel).EvaluateDataset(request).name
    job_id = name.rsplit("/", 1)[1]
    page = ops_call(
        jobs_channel,
        "ListOperations",
        lro.ListOperationsRequest(name=parent),
        lro.ListOperationsResponse,
    )
    assert (name in [op.name for op in page.operations]) == listed
    by_id = lro.GetOperationRequest(name=f"{parent}/operations/{job_id}")
    if listed:
        assert ops_call(jobs_channel, "GetOperation", by_id, lro.Operation).name == name
        wait = lro.WaitOperationRequest(name=f"{parent}/operations/{job_id}")
        assert ops_call(jobs_channel, "WaitOperation", wait, lro.Operation).done
    else:
        with pytest.raises(grpc.RpcError) as caught:
            ops_call(jobs_channel, "GetOperation", by_id, lro.Operation)
        assert caught.value.code() == grpc.StatusCode.NOT_FOUND


def test_wildcard_over_http(jobs_server: ServerThread, tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", ROWS[:1])
    assert jobs_server.running is not None
    base = jobs_server.running.http.url
    body = {"dataset": {"gcsSource": {"uris": [str(data)]}}, "metrics": [{"exactMatchSpec": {}}]}
    status, operation = http_call(base, "POST", f"/v1beta1/{LOCATION}:evaluateDataset", body)
    assert status == 200, operation
    job_id = operation["name"].rsplit("/", 1)[1]
    status, got = http_call(base, "GET", f"/v1beta1/projects/-/locations/-/operations/{job_id}")
    assert (status, got["name"]) == (200, operation["name"])
    status, listed = http_call(base, "GET", "/v1beta1/projects/-/locations/-/operations")
    assert status == 200
    assert operation["name"] in [op["name"] for op in listed["operations"]]


class Any_:
    """Reads any reply (Empty) as bytes."""

    @staticmethod
    def FromString(raw: bytes) -> bytes:
        return raw


BAD_REQUESTS = [
    ("no metrics", lambda d: dataset_request(d, None), "metrics"),
    (
        "missing file",
        lambda d: dataset_request(d.parent / "nope.jsonl", None, m.Metric(bleu_spec={})),
        "dataset.gcs_source.uris[0]",
    ),
    (
        "bad location",
        lambda d: m.EvaluateDatasetRequest(location="nowhere", metrics=[m.Metric(bleu_spec={})]),
        "location",
    ),
]


@pytest.mark.parametrize(("case", "build", "field"), BAD_REQUESTS)
def test_bad_requests_fail_at_once(
    jobs_channel: grpc.Channel, tmp_path: Path, case: str, build: Any, field: str
) -> None:
    from google.rpc import error_details_pb2, status_pb2

    data = write_jsonl(tmp_path / "rows.jsonl", ROWS)
    with pytest.raises(grpc.RpcError) as caught:
        stub(jobs_channel).EvaluateDataset(build(data))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    trailing: Any = caught.value.trailing_metadata()
    details = dict(trailing)["grpc-status-details-bin"]
    bad = error_details_pb2.BadRequest()
    status_pb2.Status.FromString(details).details[0].Unpack(bad)
    assert bad.field_violations[0].field == field


def test_gs_source_without_credentials_is_failed_precondition(
    jobs_channel: grpc.Channel, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "google.cloud.storage", None)
    request = m.EvaluateDatasetRequest(location=LOCATION, metrics=[m.Metric(bleu_spec={})])
    request.dataset.gcs_source.uris.append("gs://bucket/rows.jsonl")
    with pytest.raises(grpc.RpcError) as caught:
        stub(jobs_channel).EvaluateDataset(request)
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "google-cloud-storage" in (caught.value.details() or "")


def test_cancel_mid_job(tmp_path: Path) -> None:
    data = write_jsonl(
        tmp_path / "big.jsonl",
        [{"response": f"a b c d {i}", "reference": "a b c d 0"} for i in range(20000)],
    )
    with (
        serving(
            data_dir=tmp_path / "data",
            job_concurrency=1,
            dataset_root=tmp_path,
            output_root=tmp_path,
        ) as server,
        grpc.insecure_channel(server.address) as channel,
    ):
        request = dataset_request(data, None, m.Metric(bleu_spec={}), m.Metric(rouge_spec={}))
        name = stub(channel).EvaluateDataset(request).name
        deadline = time.monotonic() + 20
        while (
            progress(
                ops_call(channel, "GetOperation", lro.GetOperationRequest(name=name), lro.Operation)
            ).rows_done
            < 50
        ):
            assert time.monotonic() < deadline
            time.sleep(0.02)
        ops_call(channel, "CancelOperation", lro.CancelOperationRequest(name=name), Any_)
        done = ops_call(
            channel,
            "WaitOperation",
            lro.WaitOperationRequest(name=name, timeout=duration_pb2.Duration(seconds=10)),
            lro.Operation,
        )
        assert done.done
        assert done.error.code == grpc.StatusCode.CANCELLED.value[0]
        state = progress(done)
        assert state.state == "CANCELLED"
        assert 50 <= state.rows_done < 20000
        # A finished (cancelled) job may be deleted; a running one may not.
        ops_call(channel, "DeleteOperation", lro.DeleteOperationRequest(name=name), Any_)


def test_http_end_to_end(jobs_server: ServerThread, tmp_path: Path) -> None:
    data = tmp_path / "rows.csv"
    data.write_text("prompt,response,reference,topic\np,a,a,x\np,b,a,y\n")
    assert jobs_server.running is not None
    base = jobs_server.running.http.url
    body = {
        "dataset": {"gcsSource": {"uris": [data.as_uri()]}},
        "metrics": [{"exactMatchSpec": {}, "aggregationMetrics": ["AVERAGE", "MAXIMUM"]}],
        "outputConfig": {"gcsDestination": {"outputUriPrefix": str(tmp_path / "out")}},
    }
    status, operation = http_call(base, "POST", f"/v1beta1/{LOCATION}:evaluateDataset", body)
    assert status == 200, operation
    name = operation["name"]
    status, done = http_call(base, "POST", f"/v1beta1/{name}:wait", {"timeout": "20s"})
    assert status == 200
    assert done["done"] is True
    results = done["response"]["aggregationOutput"]["aggregationResults"]
    assert results == [
        {"aggregationMetric": "AVERAGE", "exactMatchMetricValue": {"score": 0.5}},
        {"aggregationMetric": "MAXIMUM", "exactMatchMetricValue": {"score": 1.0}},
    ]
    assert done["response"]["outputInfo"]["gcsOutputDirectory"].startswith(str(tmp_path))
    status, got = http_call(base, "GET", f"/v1beta1/{name}")
    assert (status, got["name"]) == (200, name)
    status, listed = http_call(base, "GET", f"/v1beta1/{LOCATION}/operations")
    assert status == 200
    assert name in [op["name"] for op in listed["operations"]]
    status, _ = http_call(base, "POST", f"/v1beta1/{name}:cancel")
    assert status == 200  # cancelling a finished operation changes nothing
    status, _ = http_call(base, "DELETE", f"/v1beta1/{name}")
    assert status == 200
    status, error = http_call(base, "GET", f"/v1beta1/{name}")
    assert (status, error["error"]["status"]) == (404, "NOT_FOUND")


def test_default_roots_confine_server_local_files(tmp_path: Path) -> None:
    """With default settings, datasets are read from ``<data dir>/datasets`` (a relative path
    is under it) and outputs written under ``<data dir>/outputs``; anything else is denied,
    with one answer whether the file exists or not."""
    data_dir = tmp_path / "data"
    secret = write_jsonl(tmp_path / "secret.jsonl", [{"response": "s3cr3t", "reference": "x"}])
    with serving(data_dir=data_dir) as server, grpc.insecure_channel(server.address) as channel:
        write_jsonl(data_dir / "datasets" / "rows.jsonl", ROWS[:2])
        exact = m.Metric(exact_match_spec={})
        operation = stub(channel).EvaluateDataset(
            dataset_request(Path("rows.jsonl"), Path("mine"), exact)
        )
        wait = lro.WaitOperationRequest(
            name=operation.name, timeout=duration_pb2.Duration(seconds=20)
        )
        done = ops_call(channel, "WaitOperation", wait, lro.Operation)
        response = m.EvaluateDatasetResponse()
        assert done.response.Unpack(response)
        written = Path(response.output_info.gcs_output_directory)
        assert written.parent == data_dir / "outputs" / "mine"
        answers = []
        for source in (secret, tmp_path / "missing.jsonl", Path("../../secret.jsonl")):
            with pytest.raises(grpc.RpcError) as caught:
                stub(channel).EvaluateDataset(dataset_request(source, None, exact))
            error: Any = caught.value
            assert error.code() == grpc.StatusCode.PERMISSION_DENIED
            answers.append(error.details())
        assert len(set(answers)) == 1
        assert "--dataset-root" in answers[0]
        with pytest.raises(grpc.RpcError) as caught:
            stub(channel).EvaluateDataset(
                dataset_request(Path("rows.jsonl"), tmp_path / "elsewhere", exact)
            )
        assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert not (tmp_path / "elsewhere").exists()
