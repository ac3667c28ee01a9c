"""Judge usage end to end: the ``evald-judge-usage`` trailer (gRPC), the ``x-evald-judge-usage``
header (HTTP) and the Prometheus counters, from the token counts the fake judge reports through
the real SDKs of both backends."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import grpc
import pytest
from evald.cli import main
from evald.gateway import Gateway, GrpcBackend, start
from evald.judges.usage import HEADER, TRAILER
from google.longrunning import operations_proto_pb2 as lro
from google.protobuf import duration_pb2, json_format
from google.rpc import status_pb2

from tests.e2e.test_metrics_endpoint import scrape, value
from tests.fakes.judge_config import configure
from tests.fakes.judge_server import FakeJudge, Reply, Usage, running
from tests.http_support import http_url, request
from tests.support import MESSAGES, ServerThread, serving, stub

m = MESSAGES["v1beta1"]
PATH = "/v1beta1/projects/p/locations/l:evaluateInstances"
TOKENS = Usage(prompt=11, output=3, thoughts=2)
"""What every default answer reports: 11 input tokens, 5 output tokens (thinking included)."""


def answer(prompt: str) -> str:
    if "Response A" in prompt:
        return json.dumps({"explanation": "B wins", "pairwise_choice": "B"})
    return json.dumps({"explanation": "fine", "score": 1})  # on every scale asked for here


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    base = tmp_path_factory.getbasetemp()  # every test's files are under it
    data = tmp_path_factory.mktemp("data")
    settings = {"data_dir": data, "dataset_root": base, "output_root": base}
    with serving(http_port=0, metrics_port=0, **settings) as running_server:
        yield running_server


@pytest.fixture(scope="module")
def judge() -> Iterator[FakeJudge]:
    with running(FakeJudge(default=answer, usage=TOKENS)) as fake:
        yield fake


@pytest.fixture
def fake(judge: FakeJudge) -> FakeJudge:
    judge.reset()
    return judge


def metrics_url(server: ServerThread) -> str:
    assert server.running is not None
    assert server.running.metrics is not None
    return server.running.metrics.url


def pairwise(samples: int) -> Any:
    instance = {"prompt": "q", "baseline_model_response": "a", "response": "b"}
    return m.EvaluateInstancesRequest(
        pairwise_metric_input=m.PairwiseMetricInput(
            metric_spec=m.PairwiseMetricSpec(
                metric_prompt_template="Response A: {baseline_model_response}\nResponse B: "
                "{response}"
            ),
            instance=m.PairwiseMetricInstance(json_instance=json.dumps(instance)),
        ),
        autorater_config=m.AutoraterConfig(sampling_count=samples, flip_enabled=True),
    )


def pointwise_body() -> dict[str, Any]:
    return {
        "pointwiseMetricInput": {
            "metricSpec": {"metricPromptTemplate": "Rate {response}"},
            "instance": {"jsonInstance": json.dumps({"response": "R"})},
        }
    }


def trailer(metadata: Any) -> dict[str, Any]:
    found = [v for k, v in metadata or () if k == TRAILER]
    assert len(found) == 1, metadata
    data: dict[str, Any] = json.loads(found[0])
    return data


def counts(calls: int = 0, cached: int = 0, tin: int = 0, tout: int = 0, unknown: int = 0) -> Any:
    return {
        "calls": calls,
        "cached_calls": cached,
        "input_tokens": tin,
        "output_tokens": tout,
        "calls_without_usage": unknown,
    }


class Counters:
    """The judge ``fake``'s usage counters, as deltas since it was made."""

    def __init__(self, server: ServerThread) -> None:
        self.url = metrics_url(server)
        self.before = scrape(self.url)

    def delta(self) -> dict[str, float]:
        after = scrape(self.url)
        names = {
            "calls": "evald_judge_usage_calls_total",
            "cached": "evald_judge_cache_hits_total",
            "input": "evald_judge_input_tokens_total",
            "output": "evald_judge_output_tokens_total",
            "unknown": "evald_judge_calls_without_usage_total",
        }
        return {
            key: value(after, name, judge="fake") - value(self.before, name, judge="fake")
            for key, name in names.items()
        }


@pytest.mark.parametrize("backend", ["gemini", "openai"])
def test_grpc_trailer_and_counters_sum_every_sample_flips_included(
    server: ServerThread,
    fake: FakeJudge,
    backend: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    configure(monkeypatch, tmp_path, fake.url, backend)
    counters = Counters(server)
    with grpc.insecure_channel(server.address) as channel:
        response, call = stub(channel).EvaluateInstances.with_call(pairwise(4))
    assert response.HasField("pairwise_metric_result")
    assert sorted("Response A: b" in c.prompt for c in fake.calls) == [False, False, True, True]
    expected = counts(calls=4, tin=4 * 11, tout=4 * 5)
    assert trailer(call.trailing_metadata()) == {**expected, "judges": {"fake": expected}}
    assert counters.delta() == {"calls": 4, "cached": 0, "input": 44, "output": 20, "unknown": 0}


def test_http_header_cache_hits_and_calls_without_usage(
    server: ServerThread, fake: FakeJudge, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    configure(monkeypatch, tmp_path, fake.url, cache=True)
    counters = Counters(server)
    base = http_url(server)
    fake.script(Reply(answer(""), usage=None))  # an endpoint that reports no usage
    first = request(base, "POST", PATH, pointwise_body())
    again = request(base, "POST", PATH, pointwise_body())  # answered from the cache
    assert (first[0], again[0]) == (200, 200)
    assert json.loads(first[2][HEADER]) == {**counts(1, unknown=1), "judges": {"fake": ANY}}
    assert json.loads(again[2][HEADER])["judges"]["fake"] == counts(cached=1)
    assert counters.delta() == {"calls": 1, "cached": 1, "input": 0, "output": 0, "unknown": 1}
    exact = {"exactMatchInput": {"instances": [{"prediction": "a", "reference": "a"}]}}
    computed = request(base, "POST", PATH, exact)
    assert computed[0] == 200
    assert HEADER not in computed[2]
    assert len(fake.calls) == 1


def test_rubric_generation_reports_its_call(
    server: ServerThread, fake: FakeJudge, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    configure(monkeypatch, tmp_path, fake.url)
    rubrics = {"rubrics": [{"description": "Is it short?", "type": "CONTENT"}]}
    fake.script(Reply(json.dumps(rubrics), usage=Usage(7, 9)))
    body = {
        "contents": [{"role": "user", "parts": [{"text": "Name a river."}]}],
        "rubric_generation_spec": {"prompt_template": "Write checks for: {prompt}"},
    }
    message = json_format.ParseDict(body, m.GenerateInstanceRubricsRequest())
    with grpc.insecure_channel(server.address) as channel:
        response, call = stub(channel).GenerateInstanceRubrics.with_call(message)
    assert len(response.generated_rubrics) == 1
    assert trailer(call.trailing_metadata())["judges"] == {"fake": counts(calls=1, tin=7, tout=9)}


def test_a_forwarding_gateway_passes_the_trailer_on_as_a_header(
    server: ServerThread, fake: FakeJudge, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    configure(monkeypatch, tmp_path, fake.url)

    async def forwarded() -> tuple[int, str | None]:
        running = await start(Gateway(GrpcBackend(server.address)), "127.0.0.1", 0)
        try:
            async with (
                aiohttp.ClientSession() as session,
                session.post(running.url + PATH, json=pointwise_body()) as reply,
            ):
                return reply.status, reply.headers.get(HEADER)
        finally:
            await running.stop(0)
            await running.gateway.backend.close()

    status, header = asyncio.run(forwarded())
    assert status == 200
    assert header is not None
    assert json.loads(header)["judges"] == {"fake": counts(calls=1, tin=11, tout=5)}


class _Any:
    def __eq__(self, other: object) -> bool:
        return True


ANY: Any = _Any()


def test_a_failed_request_reports_what_its_answers_cost(
    server: ServerThread, fake: FakeJudge, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    configure(monkeypatch, tmp_path, fake.url, "openai", attempts=2)
    fake.script(Reply("not a verdict", usage=Usage(5, 1)), Reply("nor this", usage=Usage(5, 2, 1)))
    body = json_format.ParseDict(pointwise_body(), m.EvaluateInstancesRequest())
    with grpc.insecure_channel(server.address) as channel, pytest.raises(grpc.RpcError) as err:
        stub(channel).EvaluateInstances(body)
    error: Any = err.value
    assert error.code() == grpc.StatusCode.UNAVAILABLE
    metadata = error.trailing_metadata()
    assert trailer(metadata)["judges"]["fake"] == counts(calls=2, tin=10, tout=4)
    details = dict(metadata)["grpc-status-details-bin"]  # the status details are kept
    assert status_pb2.Status.FromString(details).code == grpc.StatusCode.UNAVAILABLE.value[0]
    # Over HTTP the failure carries the header too.
    fake.script(Reply("x", usage=Usage(1, 1)), Reply("y", usage=Usage(1, 1)))
    status, _, headers = request(http_url(server), "POST", PATH, pointwise_body())
    assert status == 503
    assert json.loads(headers[HEADER])["calls"] == 2


def test_each_metric_of_a_metric_api_request_has_its_share(
    server: ServerThread, fake: FakeJudge, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    configure(monkeypatch, tmp_path, fake.url)
    body = {
        "metrics": [
            {"exact_match_spec": {}},
            {"pointwise_metric_spec": {"metric_prompt_template": "Rate {response}"}},
            {"llm_based_metric_spec": {"metric_prompt_template": "Judge {response}"}},
        ],
        "instance": {"response": {"text": "r"}, "reference": {"text": "r"}},
        "autorater_config": {"sampling_count": 2, "flip_enabled": False},
    }
    request_message = json_format.ParseDict(body, m.EvaluateInstancesRequest())
    with grpc.insecure_channel(server.address) as channel:
        response, call = stub(channel).EvaluateInstances.with_call(request_message)
    assert [r.error.message for r in response.metric_results] == ["", "", ""]
    two = counts(calls=2, tin=22, tout=10)
    assert trailer(call.trailing_metadata())["metrics"] == {"metrics[1]": two, "metrics[2]": two}


ROWS = [
    {"prompt": "q0", "response": "Paris", "reference": "Paris"},
    {"prompt": "q1", "response": "Lyon", "reference": "Paris"},
    {"prompt": "q2", "response": "Nice", "reference": "Paris"},
]


def write_rows(tmp_path: Path) -> Path:
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    return path


def test_a_dataset_job_sums_its_rows_usage(
    server: ServerThread, fake: FakeJudge, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    configure(monkeypatch, tmp_path, fake.url)
    job = m.EvaluateDatasetRequest(location="projects/p/locations/l")
    job.dataset.gcs_source.uris.append(str(write_rows(tmp_path)))
    job.metrics.add(pointwise_metric_spec={"metric_prompt_template": "Rate {response}"})
    job.metrics.add(exact_match_spec={})
    job.output_config.gcs_destination.output_uri_prefix = str(tmp_path / "out")
    with grpc.insecure_channel(server.address) as channel:
        operation = stub(channel).EvaluateDataset(job)
        wait = channel.unary_unary(
            "/google.longrunning.Operations/WaitOperation",
            request_serializer=lro.WaitOperationRequest.SerializeToString,
            response_deserializer=lro.Operation.FromString,
        )
        timeout = duration_pb2.Duration(seconds=20)
        done = wait(lro.WaitOperationRequest(name=operation.name, timeout=timeout), timeout=30)
    assert done.done
    assert not done.HasField("error"), done
    response = m.EvaluateDatasetResponse()
    assert done.response.Unpack(response)
    directory = Path(response.output_info.gcs_output_directory)
    aggregation = json.loads((directory / "aggregation.json").read_text())
    three = counts(calls=3, tin=33, tout=15)
    assert aggregation["judge_usage"] == {"total": three, "metrics": {"pointwise": three}}
    rows = [json.loads(line) for line in (directory / "results.jsonl").read_text().splitlines()]
    one = counts(calls=1, tin=11, tout=5)
    assert [(r["judge_usage"], r["results"][0]["judge_usage"]) for r in rows] == [(one, one)] * 3
    assert all("judge_usage" not in r["results"][1] for r in rows)  # exact match: no judge


@pytest.mark.parametrize("where", ["local", "server"])
def test_the_cli_prints_and_writes_usage(
    server: ServerThread,
    fake: FakeJudge,
    where: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    configure(monkeypatch, tmp_path, fake.url)
    place = ["--local"] if where == "local" else ["--server", server.address]
    code = main(
        [
            "evaluate",
            *("--metric", "safety_v1", "--metric", "exact_match"),
            *("--data", str(write_rows(tmp_path)), "--output", str(tmp_path / "out"), "--quiet"),
            *place,
        ]
    )
    assert code == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-2:] == [
        "judge usage: 3 calls, 33 input tokens, 15 output tokens",
        "  safety_v1  3 calls, 33 input tokens, 15 output tokens",
    ]
    aggregation = json.loads((tmp_path / "out/aggregation.json").read_text())
    three = counts(calls=3, tin=33, tout=15)
    assert aggregation["judge_usage"] == {"total": three, "metrics": {"safety_v1": three}}
    report = (tmp_path / "out/report.html").read_text()
    assert '<table id="judge-usage">' in report
    assert '<td>safety_v1</td><td class="num">3</td>' in report
