"""Rubric-based named metrics judge the rubrics the instance supplies (``rubric_groups``).

The fake judge (``tests.e2e.test_rubrics.smart``) meets every rubric but those mentioning 'cite';
a supplied group means one judge call (the verdicts), no generation. Scores are hand-worked from
the importance weights (HIGH 3, MEDIUM or unset 2, LOW 1).
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import json_format

from tests.e2e.test_rubrics import rubric, smart, violation
from tests.fakes.judge_config import configure
from tests.fakes.judge_server import FakeJudge, running
from tests.support import MESSAGES, ServerThread, serving, stub

PROMPT, RESPONSE = "What is the capital of France?", "Paris is the capital."
OWN = {
    "rubrics": [
        rubric("Does the response name Paris?", "HIGH", "a"),
        rubric("Does the response cite a source?", "LOW", "b"),
        rubric("Is the response one sentence?", None, "c"),
    ]
}
"""Met, not met, met: (3 + 2) / (3 + 1 + 2)."""
OTHER = {"rubrics": [rubric("Does the response cite an atlas?", "HIGH", "z")]}
"""Not met: 0."""


def f32(x: float) -> float:
    return float(struct.unpack("f", struct.pack("f", x))[0])


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeJudge]:
    with running(FakeJudge(default=smart)) as judge:
        yield judge


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    with serving(data_dir=tmp_path_factory.mktemp("data")) as running_server:
        yield running_server


@pytest.fixture
def channel(server: ServerThread) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(server.address) as ch:
        yield ch


@pytest.fixture
def judge(fake: FakeJudge, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> FakeJudge:
    fake.reset()
    configure(monkeypatch, tmp_path, fake.url)
    return fake


def instance(**groups: Any) -> dict[str, Any]:
    return {"prompt": {"text": PROMPT}, "response": {"text": RESPONSE}, "rubric_groups": groups}


def named(name: str, **params: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"metric_spec_name": name}
    if params:
        spec["metric_spec_parameters"] = params
    return {"predefined_metric_spec": spec}


def evaluate(channel: grpc.Channel, body: dict[str, Any]) -> list[Any]:
    request = json_format.ParseDict(body, MESSAGES["v1beta1"].EvaluateInstancesRequest())
    return list(stub(channel).EvaluateInstances(request, timeout=30).metric_results)


def assert_own_group_judged(result: Any, judge: FakeJudge, key: str) -> None:
    assert not result.HasField("error"), result.error
    assert result.score == f32(5 / 6)
    assert [(v.evaluated_rubric.rubric_id, v.verdict) for v in result.rubric_verdicts] == [
        ("a", True),
        ("b", False),
        ("c", True),
    ]
    assert f"Rubrics: instance.rubric_groups[{key!r}] (supplied)." in result.explanation
    (sent,) = judge.calls  # the verdicts only: nothing was generated
    assert "# Rubric rules" not in sent.prompt
    assert "[2] Does the response cite a source?" in sent.prompt
    assert RESPONSE in sent.prompt


@pytest.mark.parametrize(
    "key",
    ["general_quality_v1", "general_quality_v2", "general_quality", "general_quality_rubrics"],
)
def test_the_metrics_own_group(judge: FakeJudge, channel: grpc.Channel, key: str) -> None:
    body = {"metrics": [named("general_quality_v2")], "instance": instance(**{key: OWN}, x=OTHER)}
    (result,) = evaluate(channel, body)
    assert_own_group_judged(result, judge, key)


def test_the_only_group(judge: FakeJudge, channel: grpc.Channel) -> None:
    # Google's guides name the group freely (e.g. gecko_image_rubrics) and send no key.
    body = {"metrics": [named("text_quality_v1")], "instance": instance(my_rubrics=OWN, e={})}
    (result,) = evaluate(channel, body)
    assert_own_group_judged(result, judge, "my_rubrics")


def test_metric_sources_path(judge: FakeJudge, channel: grpc.Channel) -> None:
    body = {
        "metric_sources": [{"metric": named("instruction_following_v1")}],
        "instance": instance(instruction_following_rubrics=OWN, general_quality_rubrics=OTHER),
    }
    (result,) = evaluate(channel, body)
    assert_own_group_judged(result, judge, "instruction_following_rubrics")


def test_each_metric_its_own_group(judge: FakeJudge, channel: grpc.Channel) -> None:
    body = {
        "metrics": [named("general_quality_v1"), named("instruction_following_v1")],
        "instance": instance(general_quality_rubrics=OWN, instruction_following_rubrics=OTHER),
    }
    general, following = evaluate(channel, body)
    assert general.score == f32(5 / 6)
    assert following.HasField("score")
    assert following.score == 0.0
    assert [v.evaluated_rubric.rubric_id for v in following.rubric_verdicts] == ["z"]
    assert len(judge.calls) == 2


def test_rubric_group_key_parameter(judge: FakeJudge, channel: grpc.Channel) -> None:
    body = {
        "metrics": [named("general_quality_v1", rubric_group_key="mine")],
        "instance": instance(general_quality_v1=OTHER, mine=OWN),
    }
    (result,) = evaluate(channel, body)
    assert_own_group_judged(result, judge, "mine")


def test_no_group_or_empty_groups_are_generated(judge: FakeJudge, channel: grpc.Channel) -> None:
    # The SDK stores an empty list for a prompt whose generation failed.
    body = {
        "metrics": [named("general_quality_v1")],
        "instance": instance(general_quality_rubrics={}),
    }
    (result,) = evaluate(channel, body)
    assert result.score == f32(2 / 3)
    generation, _ = judge.calls
    assert "# Rubric rules" in generation.prompt
    assert "(supplied)" not in result.explanation


ERRORS = [
    # (parameters, groups, field)
    ({}, {"x": OWN, "y": OTHER}, "instance.rubric_groups"),
    ({"rubric_group_key": "nope"}, {"x": OWN},
     "metrics[0].predefined_metric_spec.metric_spec_parameters.rubric_group_key"),
    ({"rubric_group_key": "x"}, {"x": {}}, "instance.rubric_groups['x'].rubrics"),
    ({}, {"general_quality_rubrics": {"rubrics": [{"rubric_id": "t"}]}},
     "instance.rubric_groups['general_quality_rubrics'].rubrics[0].content.property.description"),
]  # fmt: skip


@pytest.mark.parametrize(("params", "groups", "field"), ERRORS)
def test_group_errors_name_the_field(
    judge: FakeJudge,
    channel: grpc.Channel,
    params: dict[str, Any],
    groups: dict[str, Any],
    field: str,
) -> None:
    body = {"metrics": [named("general_quality_v1", **params)], "instance": instance(**groups)}
    (result,) = evaluate(channel, body)
    assert result.error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert violation(result) == field
    assert judge.calls == []
