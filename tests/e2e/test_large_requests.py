"""10,000-instance requests go through end to end (no timing is checked), in order, with the
right field paths in errors, whether large batches are scored in processes or in a thread."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator, Sequence
from typing import Any

import grpc
import pytest
import sacrebleu
from evald import scoring
from evald.errors import FieldViolation, InvalidArgument
from evald.metrics.computed.base import ComputedMetric

from tests.support import CALL, MESSAGES, serving, stub

m = MESSAGES["v1beta1"]
N = 10_000
WORDS = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta")


def text(i: int) -> str:
    """A short sentence that differs with ``i`` (so positions can be told apart)."""
    return " ".join(WORDS[(i + k * (i % 5 + 1)) % len(WORDS)] for k in range(6)) + f" {i % 97}."


@pytest.fixture(scope="module", params=[None, 0], ids=["processes", "thread"])
def channel(request: pytest.FixtureRequest) -> Iterator[grpc.Channel]:
    """A server scoring large batches in processes (default) or in a thread."""
    with (
        serving(scoring_processes=request.param) as server,
        grpc.insecure_channel(
            server.address, options=[("grpc.max_receive_message_length", 64 * 2**20)]
        ) as ch,
    ):
        yield ch
    scoring.configure_scoring(0)


def test_ten_thousand_exact_match_instances(channel: grpc.Channel) -> None:
    instances = [
        m.ExactMatchInstance(prediction=text(i), reference=text(i) if i % 3 else text(i + 1))
        for i in range(N)
    ]
    request = m.EvaluateInstancesRequest(
        location="projects/p/locations/l",
        exact_match_input=m.ExactMatchInput(metric_spec=m.ExactMatchSpec(), instances=instances),
    )
    response = stub(channel).EvaluateInstances(request, timeout=120)
    scores = [v.score for v in response.exact_match_results.exact_match_metric_values]
    assert scores == [0.0 if i % 3 == 0 and text(i) != text(i + 1) else 1.0 for i in range(N)]


def test_ten_thousand_bleu_instances_in_order(channel: grpc.Channel) -> None:
    pairs = [(text(i), text(i * 7 + 3)) for i in range(N)]
    request = m.EvaluateInstancesRequest(
        location="projects/p/locations/l",
        bleu_input=m.BleuInput(
            metric_spec=m.BleuSpec(use_effective_order=True),
            instances=[m.BleuInstance(prediction=p, reference=r) for p, r in pairs],
        ),
    )
    response = stub(channel).EvaluateInstances(request, timeout=300)
    scores = [v.score for v in response.bleu_results.bleu_metric_values]
    assert len(scores) == N
    for i in [0, 1, 2, 31, 32, 33, 999, 5000, 7777, N - 2, N - 1]:  # reference: sacrebleu itself
        prediction, reference = pairs[i]
        expected = sacrebleu.sentence_bleu(prediction, [reference], use_effective_order=True)
        assert scores[i] == pytest.approx(expected.score / 100, rel=1e-6, abs=1e-7), i


def test_missing_field_deep_in_a_large_request_is_named(channel: grpc.Channel) -> None:
    instances = [m.BleuInstance(prediction="a b c", reference="a b c") for _ in range(N)]
    instances[9_000] = m.BleuInstance(prediction="a b c")
    request = m.EvaluateInstancesRequest(
        location="projects/p/locations/l",
        bleu_input=m.BleuInput(instances=instances),
    )
    with pytest.raises(grpc.RpcError) as caught:
        stub(channel).EvaluateInstances(request, timeout=60)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "bleu_input.instances[9000].reference" in (caught.value.details() or "")


class SlowPicky(ComputedMetric[None]):
    """Takes ~1 ms of CPU per instance (so the batch is offloaded) and rejects every 'bad'
    reference, checking them all before scoring, as the tool-call metrics do."""

    input_field = "exact_match_input"
    result_field = "exact_match_results"

    def options(self, spec: Any, path: str) -> None:
        return None

    def score(self, instance: Any, options: None, path: str) -> float:
        end = time.thread_time() + 0.001  # CPU, not sleep: offloading goes by CPU time
        while time.thread_time() < end:
            pass
        return float(instance.prediction == instance.reference)

    def score_batch(self, instances: Sequence[Any], options: None, path: str) -> list[float]:
        bad = [i for i, instance in enumerate(instances) if instance.reference == "bad"]
        if bad:
            raise InvalidArgument.of([FieldViolation(f"{path}[{i}].reference", "bad") for i in bad])
        return super().score_batch(instances, options, path)


@pytest.mark.parametrize("processes", [1, 0], ids=["processes", "thread"])
def test_offloaded_errors_name_the_whole_batch(processes: int) -> None:
    scoring.configure_scoring(processes)
    try:
        instances = [m.ExactMatchInstance(prediction="x", reference="x") for _ in range(200)]
        good = m.ExactMatchInput(instances=instances)
        result: Any = asyncio.run(SlowPicky().evaluate_input(good, "exact_match_input", CALL))
        assert [v.score for v in result.exact_match_metric_values] == [1.0] * 200

        instances[150] = m.ExactMatchInstance(prediction="x", reference="bad")
        instances[190] = m.ExactMatchInstance(prediction="x", reference="bad")
        with pytest.raises(InvalidArgument) as caught:
            asyncio.run(
                SlowPicky().evaluate_input(
                    m.ExactMatchInput(instances=instances), "exact_match_input", CALL
                )
            )
        assert [v.field for v in caught.value.violations] == [
            "exact_match_input.instances[150].reference",
            "exact_match_input.instances[190].reference",
        ]
    finally:
        scoring.configure_scoring(0)
