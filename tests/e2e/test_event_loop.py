"""No request holds the event loop: while a hostile request runs, a concurrent health call
never waits more than 100 ms; the caller's deadline stops the work where it runs; each limit
answers RESOURCE_EXHAUSTED naming it."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import grpc
import pytest
from evald import scoring
from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as m
from google.protobuf import json_format
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.support import ServerThread, serving, stub

STALL_BOUND = 0.1
"""Longest a concurrent health call may wait while a hostile request runs (seconds)."""
LOCATION = "projects/p/locations/l"


@pytest.fixture(scope="module")
def server() -> Iterator[ServerThread]:
    with serving(scoring_processes=1) as running:
        yield running


@pytest.fixture(autouse=True)
def one_scoring_process() -> None:
    """The scoring processes are per process: a test run before this one in the same worker
    may have set another number."""
    if scoring.scoring_processes() != 1:
        scoring.configure_scoring(1)


@pytest.fixture
def channel(server: ServerThread) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(server.address) as ch:
        yield ch


@contextmanager
def worst_health_delay(address: str) -> Iterator[list[float]]:
    """Health checks in a loop while the body runs; yields a list that then holds the worst
    latency seen (the first check, connecting, is not counted)."""
    worst = [0.0]
    stop = threading.Event()

    def probe() -> None:
        with grpc.insecure_channel(address) as ch:
            health: Any = health_pb2_grpc.HealthStub(ch)
            health.Check(health_pb2.HealthCheckRequest(), timeout=10)
            started.set()
            while not stop.is_set():
                began = time.monotonic()
                health.Check(health_pb2.HealthCheckRequest(), timeout=10)
                worst[0] = max(worst[0], time.monotonic() - began)
                time.sleep(0.005)

    started = threading.Event()
    thread = threading.Thread(target=probe, daemon=True)
    thread.start()
    assert started.wait(10)
    try:
        yield worst
    finally:
        stop.set()
        thread.join(10)


def words(count: int, seed: int) -> str:
    rng = random.Random(seed)
    vocabulary = [f"w{i}" for i in range(2000)]
    return " ".join(rng.choice(vocabulary) for _ in range(count))


def named(name: str, parameters: dict[str, Any], **texts: str) -> Any:
    body = {
        "location": LOCATION,
        "metrics": [
            {
                "predefined_metric_spec": {
                    "metric_spec_name": name,
                    "metric_spec_parameters": parameters,
                }
            }
        ],
        "instance": {k: {"text": v} for k, v in texts.items()},
    }
    return json_format.ParseDict(body, m.EvaluateInstancesRequest())


LOOPS = "{% for i in range(20000) %}{% for j in range(5000) %}{% endfor %}{% endfor %}"
BIG_A, BIG_B = words(100_000, 1), words(100_000, 2)  # ~540 KB each: ROUGE-L ~2 s of CPU
MR = "Mr. " * 200_000


def rouge(rouge_type: str, prediction: str, reference: str, split: bool = False) -> Any:
    spec = m.RougeSpec(rouge_type=rouge_type, split_summaries=split)
    instance = m.RougeInstance(prediction=prediction, reference=reference)
    return m.EvaluateInstancesRequest(
        location=LOCATION, rouge_input=m.RougeInput(metric_spec=spec, instances=[instance])
    )


def kv(arguments: int) -> Any:
    pairs = ", ".join(f'"k{i}": {i}' for i in range(arguments))
    call = '{"name": "f", "arguments": {' + pairs + "}}"
    instance = m.ToolParameterKVMatchInstance(prediction=call, reference=call)
    return m.EvaluateInstancesRequest(
        location=LOCATION,
        tool_parameter_kv_match_input=m.ToolParameterKVMatchInput(instances=[instance]),
    )


def rouge_spec(prediction: str, reference: str) -> Any:
    body = {
        "location": LOCATION,
        "metrics": [{"rouge_spec": {"rouge_type": "rougeL"}}],
        "instance": {"response": {"text": prediction}, "reference": {"text": reference}},
    }
    return json_format.ParseDict(body, m.EvaluateInstancesRequest())


# (id, request, deadline in seconds, expected status code, or None for a metric result error)
STALLS: list[tuple[str, Callable[[], Any], float, grpc.StatusCode]] = [
    (
        "template-nested-loops",
        lambda: named("nemo/string-check", {"check": [LOOPS, "equals", "x"]}, response="r"),
        10,
        grpc.StatusCode.OK,
    ),
    (
        "template-huge-filter",
        lambda: named(
            "nemo/string-check", {"check": ['{{ "x"|center(300000000) }}', "equals", "x"]}
        ),
        10,
        grpc.StatusCode.OK,
    ),
    ("rouge-l-huge", lambda: rouge("rougeL", BIG_A, BIG_B), 0.5, grpc.StatusCode.DEADLINE_EXCEEDED),
    (
        "rouge-lsum-split",
        lambda: rouge("rougeLsum", MR, MR, split=True),
        1,
        grpc.StatusCode.DEADLINE_EXCEEDED,
    ),
    (
        "bleu-huge",
        lambda: m.EvaluateInstancesRequest(
            location=LOCATION,
            bleu_input=m.BleuInput(instances=[m.BleuInstance(prediction=BIG_A, reference=BIG_B)]),
        ),
        30,
        grpc.StatusCode.OK,
    ),
    ("tool-call-kv-huge", lambda: kv(60_000), 30, grpc.StatusCode.OK),
    (
        "metric-api-rouge-huge",
        lambda: rouge_spec(BIG_A, BIG_B),
        0.5,
        grpc.StatusCode.DEADLINE_EXCEEDED,
    ),
    (
        "nemo-rouge-huge",
        lambda: named("nemo/rouge", {"rouge_type": "rougeL"}, response=BIG_A, reference=BIG_B),
        0.5,
        grpc.StatusCode.DEADLINE_EXCEEDED,
    ),
]


@pytest.mark.parametrize(
    ("request_", "deadline", "code"),
    [(r, d, c) for _, r, d, c in STALLS],
    ids=[name for name, *_ in STALLS],
)
def test_a_hostile_request_does_not_stall_others(
    server: ServerThread,
    channel: grpc.Channel,
    request_: Callable[[], Any],
    deadline: float,
    code: grpc.StatusCode,
) -> None:
    message = request_()
    with worst_health_delay(server.address) as worst:
        began = time.monotonic()
        try:
            response = stub(channel).EvaluateInstances(message, timeout=deadline)
            got = grpc.StatusCode.OK
        except grpc.RpcError as exc:
            got = exc.code()
            response = None
        took = time.monotonic() - began
    assert got == code
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        assert took < deadline + 1.0
    if response is not None and response.metric_results:
        (result,) = response.metric_results  # refused by its budget: an error, not a score
        assert result.HasField("error") == message.metrics[0].HasField("predefined_metric_spec")
    assert worst[0] < STALL_BOUND, f"a health call waited {worst[0]:.3f} s"


def test_the_deadline_stops_the_work_where_it_runs(channel: grpc.Channel) -> None:
    """The scoring process still working for a caller whose deadline passed is killed (it
    would otherwise compute for seconds more), and a replacement serves the next call."""
    medium = words(5_000, 3)  # over the inline size: scored in the scoring process
    stub(channel).EvaluateInstances(rouge("rougeL", medium, medium), timeout=30)
    (working,) = scoring.process_ids()
    with pytest.raises(grpc.RpcError) as caught:
        stub(channel).EvaluateInstances(rouge("rougeL", BIG_A, BIG_B), timeout=0.3)
    assert caught.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    gone = time.monotonic() + 1.0  # the job alone would keep it busy ~2 s of CPU
    while alive(working) and time.monotonic() < gone:
        time.sleep(0.01)
    assert not alive(working)
    response = stub(channel).EvaluateInstances(rouge("rougeL", medium, medium), timeout=30)
    assert response.rouge_results.rouge_metric_values[0].score == pytest.approx(1.0)
    assert working not in scoring.process_ids()


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_a_template_over_budget_is_resource_exhausted(channel: grpc.Channel) -> None:
    message = named("nemo/string-check", {"check": [LOOPS, "equals", "x"]}, response="r")
    (result,) = stub(channel).EvaluateInstances(message, timeout=10).metric_results
    assert result.error.code == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
    assert "metric_spec_parameters.check[0]" in result.error.message
    # Its step budget, or on a loaded machine its time budget, whichever it meets first.
    assert "steps" in result.error.message or "took more than" in result.error.message


def test_too_many_metrics_is_resource_exhausted(channel: grpc.Channel) -> None:
    message = m.EvaluateInstancesRequest(location=LOCATION)
    message.instance.response.text = "r"
    message.metrics.extend([m.Metric(exact_match_spec=m.ExactMatchSpec())] * 200_000)
    with pytest.raises(grpc.RpcError) as caught:
        stub(channel).EvaluateInstances(message, timeout=30)
    error: Any = caught.value
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "max_metrics" in error.details()


def test_a_text_over_the_limit_is_resource_exhausted(channel: grpc.Channel) -> None:
    message = rouge("rougeL", "x" * (1024 * 1024 + 1), "x")
    with pytest.raises(grpc.RpcError) as caught:
        stub(channel).EvaluateInstances(message, timeout=30)
    error: Any = caught.value
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "rouge_input.instances[0].prediction" in error.details()
    assert "max_text_bytes" in error.details()
