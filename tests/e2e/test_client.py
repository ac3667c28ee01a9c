"""The Python client against a real server: every metric method, batching, errors, doctests."""

from __future__ import annotations

import asyncio
import doctest
import importlib
import struct
from typing import Any

import grpc
import pytest
from evald_client import (
    AsyncEvaluationClient,
    EvaluationClient,
    FailedPreconditionError,
    InvalidArgumentError,
    ToolStep,
    UnavailableError,
)
from evald_proto.aiplatform.v1 import evaluation_service_pb2 as v1
from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as m
from rouge_score.rouge_scorer import RougeScorer

from tests.support import ServerThread


def f32(value: float) -> float:
    return float(struct.unpack("f", struct.pack("f", value))[0])


class Recorder(grpc.UnaryUnaryClientInterceptor):  # type: ignore[type-arg]  # generic in stubs only
    """Counts calls and keeps the metadata of the last one."""

    def __init__(self) -> None:
        self.calls = 0
        self.metadata: Any = None

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        self.calls += 1
        self.metadata = dict(details.metadata or ())
        return continuation(details, request)


def test_exact_match(server: ServerThread) -> None:
    with EvaluationClient(server.address) as client:
        assert client.exact_match(["a", "b", ""], ["a", "B", ""]) == [1.0, 0.0, 1.0]
        assert client.exact_match([], []) == []


def test_rouge_against_rouge_score(server: ServerThread) -> None:
    predictions = ["the cat sat on the mat", "a quick brown fox"]
    references = ["the cat is on the mat", "the quick brown dog"]
    scorer = RougeScorer(["rouge2"], use_stemmer=True)
    expected = [
        f32(scorer.score(r, p)["rouge2"].fmeasure)
        for p, r in zip(predictions, references, strict=True)
    ]
    with EvaluationClient(server.address) as client:
        got = client.rouge(predictions, references, rouge_type="rouge2", use_stemmer=True)
    assert got == pytest.approx(expected, rel=1e-6, abs=1e-7)


def test_bleu_identical_is_one(server: ServerThread) -> None:
    with EvaluationClient(server.address) as client:
        assert client.bleu(["the cat sat on the mat"] * 2, ["the cat sat on the mat"] * 2) == [
            1.0,
            1.0,
        ]


CALL = {"content": "", "tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}
OTHER = {"content": "", "tool_calls": [{"name": "get_time", "arguments": {"zone": "CET"}}]}


def test_tool_metrics(server: ServerThread) -> None:
    # Identical calls score 1 and calls sharing nothing score 0 under any rule set (COMPAT.md).
    with EvaluationClient(server.address) as client:
        assert client.tool_call_valid([CALL, "not json"], [CALL, CALL]) == [1.0, 0.0]
        assert client.tool_name_match([CALL, OTHER], [CALL, CALL]) == [1.0, 0.0]
        assert client.tool_parameter_key_match([CALL, OTHER], [CALL, CALL]) == [1.0, 0.0]
        for strict in (False, True):
            scores = client.tool_parameter_kv_match(
                [CALL, OTHER], [CALL, CALL], use_strict_string_match=strict
            )
            assert scores == [1.0, 0.0]


A: ToolStep = ("search", {"q": "x"})
B: ToolStep = ("open", '{"id": 1}')
C: ToolStep = ("buy", "")


def test_trajectory_metrics(server: ServerThread) -> None:
    predicted = [[A, B], [B, A], [A]]
    reference = [[A, B], [A, B], [A, B]]
    with EvaluationClient(server.address) as client:
        assert client.trajectory_exact_match(predicted, reference) == [1.0, 0.0, 0.0]
        assert client.trajectory_in_order_match(predicted, reference) == [1.0, 0.0, 0.0]
        assert client.trajectory_any_order_match(predicted, reference) == [1.0, 1.0, 0.0]
        assert client.trajectory_precision(predicted, reference) == [1.0, 1.0, 1.0]
        assert client.trajectory_recall(predicted, reference) == [1.0, 1.0, 0.5]
        assert client.trajectory_single_tool_use([[A, B], [C]], "open") == [1.0, 0.0]


def test_batches_are_concatenated_in_order(server: ServerThread) -> None:
    recorder = Recorder()
    channel = grpc.intercept_channel(grpc.insecure_channel(server.address), recorder)
    predictions = [str(i % 3) for i in range(23)]
    references = ["0"] * 23
    try:
        client = EvaluationClient(server.address, channel=channel, max_batch_size=5, api_key="k")
        got = client.exact_match(predictions, references)
    finally:
        channel.close()
    assert got == [1.0 if p == "0" else 0.0 for p in predictions]
    assert recorder.calls == 5
    assert recorder.metadata["x-goog-api-key"] == "k"
    assert recorder.metadata["x-goog-request-params"].startswith("location=")


def test_size_limited_batches(server: ServerThread) -> None:
    recorder = Recorder()
    channel = grpc.intercept_channel(grpc.insecure_channel(server.address), recorder)
    text = "x" * 50_000
    try:
        client = EvaluationClient(server.address, channel=channel, max_message_bytes=200_000)
        assert client.exact_match([text] * 7, [text] * 7) == [1.0] * 7
    finally:
        channel.close()
    assert recorder.calls > 1


def test_errors(server: ServerThread) -> None:
    with EvaluationClient(server.address) as client:
        with pytest.raises(InvalidArgumentError) as raised:
            client.evaluate_instances(m.EvaluateInstancesRequest())
        assert raised.value.field_violations[0].field == "metric_inputs"
        complete = m.CometInstance(prediction="Hallo", reference="Hallo", source="Hello")
        with pytest.raises(FailedPreconditionError, match="wmt22-comet-da"):  # no models dir
            client.evaluate_instances(
                m.EvaluateInstancesRequest(comet_input=m.CometInput(instance=complete))
            )
        with pytest.raises(ValueError, match="pairwise"):
            client.exact_match(["a"], [])


def test_v1_requests_pass_through(server: ServerThread) -> None:
    request = v1.EvaluateInstancesRequest(
        exact_match_input=v1.ExactMatchInput(
            instances=[v1.ExactMatchInstance(prediction="a", reference="a")]
        )
    )
    with EvaluationClient(server.address) as client:
        response = client.evaluate_instances(request)
    assert response.exact_match_results.exact_match_metric_values[0].score == 1.0


def test_unreachable_server_is_unavailable() -> None:
    with EvaluationClient("127.0.0.1:1", timeout=5) as client, pytest.raises(UnavailableError):
        client.exact_match(["a"], ["a"])


def test_async_client(server: ServerThread) -> None:
    async def run() -> tuple[list[float], list[float]]:
        async with AsyncEvaluationClient(server.address, max_batch_size=2) as client:
            first = await client.exact_match(["a", "b", "c"], ["a", "x", "c"])
            second = await client.trajectory_recall([[A]], [[A, B]])
            with pytest.raises(InvalidArgumentError):
                await client.evaluate_instances(m.EvaluateInstancesRequest())
            return first, second

    assert asyncio.run(run()) == ([1.0, 0.0, 1.0], [0.5])


MODULES = ["evald_client", "evald_client._client"]


def examples() -> list[doctest.DocTest]:
    finder = doctest.DocTestFinder()
    found = [
        test
        for name in MODULES
        for test in finder.find(importlib.import_module(name), name)
        if test.examples
    ]
    return sorted(found, key=lambda t: t.name)


def test_docstrings_have_examples() -> None:
    names = {t.name.rsplit(".", 1)[-1] for t in examples()}
    assert {"EvaluationClient", "AsyncEvaluationClient", "exact_match", "rouge"} <= names


@pytest.mark.parametrize("test", examples(), ids=lambda t: t.name)
def test_docstring_examples(server: ServerThread, test: doctest.DocTest) -> None:
    test.globs = {**test.globs, "target": server.address}
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    result = runner.run(test, out=lambda text: None)
    if result.failed:
        report: list[str] = []
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        runner.run(test, out=report.append)
        pytest.fail("".join(report))
    assert result.attempted > 0
