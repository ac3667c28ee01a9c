"""Every judge-backed named metric of the newer SDKs (``general_quality_v1``, ...) over gRPC.

The fake judge answers by prompt kind (see ``tests.e2e.test_rubrics.smart``): generated rubrics
are 3, of which the one about citing a source is not met (score 2/3); claim labelling gives one
supported and one contradicted claim plus a no-claim sentence (score 1/2); binary verdicts are 1
except final response match (0). The table below says, independently of the implementation,
which instance fields each metric's judge must see.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import json_format

from tests.e2e.test_rubrics import GENERATED, smart, violation
from tests.fakes.judge_config import configure
from tests.fakes.judge_server import FakeJudge, running
from tests.support import MESSAGES, ServerThread, serving, stub

MARKERS = {
    "prompt": "PROMPT-TEXT",
    "response": "RESPONSE-TEXT",
    "reference": "REFERENCE-TEXT",
    "context": "CONTEXT-TEXT",
    "agent": "[tool call] lookup_capital",
}
INSTANCE: dict[str, Any] = {
    "prompt": {"text": "PROMPT-TEXT What is the capital of France?"},
    "response": {"text": "RESPONSE-TEXT Paris is the capital."},
    "reference": {"text": "REFERENCE-TEXT Paris"},
    "other_data": {"map_instance": {"context": {"text": "CONTEXT-TEXT The capital is Paris."}}},
    "agent_eval_data": {
        "agents": {
            "helper": {
                "instruction": "Answer geography questions.",
                "tools": [{"function_declarations": [{"name": "lookup_capital"}]}],
            }
        },
        "turns": [
            {
                "turn_index": 0,
                "events": [
                    {"author": "user", "content": {"parts": [{"text": "Capital of France?"}]}},
                    {
                        "author": "helper",
                        "content": {
                            "parts": [
                                {
                                    "function_call": {
                                        "name": "lookup_capital",
                                        "args": {"country": "France"},
                                    }
                                }
                            ]
                        },
                    },
                ],
            }
        ],
    },
}

P, R, REF, C, A = "prompt", "response", "reference", "context", "agent"
# name -> (kind, instance fields the judging prompt shows)
NAMED: dict[str, tuple[str, set[str]]] = {
    "general_quality_v1": ("rubric", {P, C, R}),
    "general_quality_v2": ("rubric", {P, C, R}),
    "text_quality_v1": ("rubric", {P, C, R}),
    "text_quality_v2": ("rubric", {P, C, R}),
    "instruction_following_v1": ("rubric", {P, R}),
    "instruction_following_v2": ("rubric", {P, R}),
    "multi_turn_general_quality_v1": ("rubric", {P, C, R}),
    "multi_turn_general_quality_v2": ("rubric", {P, C, R}),
    "multi_turn_text_quality_v1": ("rubric", {P, C, R}),
    "multi_turn_text_quality_v2": ("rubric", {P, C, R}),
    "multi_turn_tool_use_quality_v1": ("rubric", {P, C, A, R}),
    "multi_turn_trajectory_quality_v1": ("rubric", {P, A, R}),
    "tool_use_quality_v1": ("rubric", {P, C, A, R}),
    "tool_use_quality_v2": ("rubric", {P, C, A, R}),
    "final_response_reference_free_v1": ("rubric", {P, C, A, R}),
    "final_response_reference_free_v2": ("rubric", {P, C, A, R}),
    "final_response_quality_v1": ("rubric", {P, C, A, REF, R}),
    "final_response_quality_v2": ("rubric", {P, C, A, REF, R}),
    "safety_v1": ("binary", {P, R}),
    "safety_v3": ("binary", {P, R}),
    "final_response_match_v2": ("binary", {P, REF, R}),
    "final_response_match_v3": ("binary", {P, REF, R}),
    "multi_turn_task_success_v1": ("binary", {P, A, R}),
    "grounding_v1": ("claims", {P, C, R}),
    "grounding_v2": ("claims", {P, C, R}),
    "hallucination_v1": ("claims", {P, C, R}),
    "hallucination_v2": ("claims", {P, C, R}),
    "gecko_text2image_v1": ("unserved", set()),
    "gecko_text2image_v2": ("unserved", set()),
    "gecko_text2video_v1": ("unserved", set()),
    "gecko_text2video_v2": ("unserved", set()),
}
SDK_NAMES = {
    # vertexai/_genai/_evals_constant.py SUPPORTED_PREDEFINED_METRICS (google-cloud-aiplatform)
    "general_quality_v1", "text_quality_v1", "instruction_following_v1", "grounding_v1",
    "safety_v1", "multi_turn_general_quality_v1", "multi_turn_text_quality_v1",
    "multi_turn_tool_use_quality_v1", "multi_turn_trajectory_quality_v1",
    "multi_turn_task_success_v1", "final_response_match_v2", "final_response_reference_free_v1",
    "final_response_quality_v1", "hallucination_v1", "tool_use_quality_v1",
    "gecko_text2image_v1", "gecko_text2video_v1", "general_quality_v2",
    "instruction_following_v2", "text_quality_v2", "grounding_v2", "hallucination_v2",
    "safety_v3", "multi_turn_general_quality_v2", "multi_turn_text_quality_v2",
    "tool_use_quality_v2", "final_response_quality_v2", "final_response_match_v3",
    "final_response_reference_free_v2", "gecko_text2image_v2", "gecko_text2video_v2",
}  # fmt: skip


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


def evaluate(channel: grpc.Channel, name: str, instance: dict[str, Any], **params: Any) -> Any:
    spec: dict[str, Any] = {"metric_spec_name": name}
    if params:
        spec["metric_spec_parameters"] = params
    body = {"metrics": [{"predefined_metric_spec": spec}], "instance": instance}
    request = json_format.ParseDict(body, MESSAGES["v1beta1"].EvaluateInstancesRequest())
    (result,) = stub(channel).EvaluateInstances(request, timeout=30).metric_results
    return result


def test_table_covers_every_sdk_name() -> None:
    assert set(NAMED) == SDK_NAMES


@pytest.mark.parametrize("name", sorted(NAMED))
def test_named_metric(judge: FakeJudge, channel: grpc.Channel, name: str) -> None:
    kind, shown = NAMED[name]
    result = evaluate(channel, name, INSTANCE)
    assert result.HasField("score")
    if kind == "unserved":
        assert result.error.code == grpc.StatusCode.UNIMPLEMENTED.value[0]
        assert name in result.error.message
        assert judge.calls == []
        return
    assert not result.HasField("error"), result.error
    last = judge.calls[-1].prompt
    for field, marker in MARKERS.items():
        assert (marker in last) == (field in shown), (field, last)
    if kind == "rubric":
        generation, _ = judge.calls
        assert MARKERS["response"] not in generation.prompt
        assert result.score == f32(2 / 3)
        assert [v.verdict for v in result.rubric_verdicts] == [True, True, False]
        texts = [v.evaluated_rubric.content.property.description for v in result.rubric_verdicts]
        assert texts == GENERATED
    elif kind == "claims":
        assert len(judge.calls) == 1
        assert result.score == 0.5
        assert [v.verdict for v in result.rubric_verdicts] == [True, False]
        assert (
            "Paris is the capital."
            in result.rubric_verdicts[0].evaluated_rubric.content.property.description
        )
    else:
        assert len(judge.calls) == 1
        assert result.score == (0.0 if name.startswith("final_response_match") else 1.0)
        assert result.explanation == "binary verdict"


def test_hallucination_explanation_is_the_sentence_list(
    judge: FakeJudge, channel: grpc.Channel
) -> None:
    result = evaluate(
        channel, "hallucination_v1", {"prompt": {"text": "p"}, "response": {"text": "r"}}
    )
    assert json.loads(result.explanation) == [
        {"sentence": "Paris is the capital.", "label": "supported", "rationale": "ok"},
        {"sentence": "It has 90M people.", "label": "contradicted", "rationale": "no"},
        {"sentence": "Hope this helps!", "label": "no_rad", "rationale": "filler"},
    ]
    # Without a context the prompt is the source.
    assert "### Source (user prompt)\np\n" in judge.calls[0].prompt


MISSING = [
    ("general_quality_v1", {"response": {"text": "r"}}, "instance.prompt"),
    ("safety_v1", {"prompt": {"text": "p"}}, "instance.response"),
    ("grounding_v1", {"response": {"text": "r"}}, "instance.other_data.map_instance['context']"),
    ("final_response_match_v2", {"response": {"text": "r"}}, "instance.reference"),
    ("multi_turn_trajectory_quality_v1", {"prompt": {"text": "p"}}, "instance.agent_eval_data"),
    ("tool_use_quality_v1", {"prompt": {"text": "p"}}, "instance.agent_eval_data"),
    (
        "hallucination_v2",
        {"response": {"text": "r"}},
        "instance.other_data.map_instance['context']",
    ),
]


@pytest.mark.parametrize(("name", "instance", "field"), MISSING)
def test_missing_input(
    judge: FakeJudge, channel: grpc.Channel, name: str, instance: dict[str, Any], field: str
) -> None:
    result = evaluate(channel, name, instance)
    assert result.error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert violation(result) == field
    assert name in result.error.message
    assert judge.calls == []


def test_multi_turn_conversation_keeps_roles(judge: FakeJudge, channel: grpc.Channel) -> None:
    conversation = {
        "contents": {
            "contents": [
                {"role": "user", "parts": [{"text": "Plan a trip."}]},
                {"role": "model", "parts": [{"text": "Where to?"}]},
                {"role": "user", "parts": [{"text": "Rome, in French please."}]},
            ]
        }
    }
    instance = {"prompt": conversation, "response": {"text": "Voici le plan."}}
    result = evaluate(channel, "multi_turn_general_quality_v1", instance)
    assert not result.HasField("error")
    generation, critique = judge.calls
    expected = "[user] Plan a trip.\n[model] Where to?\n[user] Rome, in French please."
    assert expected in generation.prompt
    assert expected in critique.prompt
    assert "Conversation so far" in critique.prompt


@pytest.mark.parametrize("guidelines", [["Must be in French."], "Must be in French."])
def test_guidelines_reach_the_rubric_writer(
    judge: FakeJudge, channel: grpc.Channel, guidelines: Any
) -> None:
    result = evaluate(channel, "general_quality_v2", INSTANCE, guidelines=guidelines)
    assert not result.HasField("error")
    assert "- Must be in French." in judge.calls[0].prompt


def test_bad_parameters(judge: FakeJudge, channel: grpc.Channel) -> None:
    result = evaluate(channel, "general_quality_v1", INSTANCE, guidelines=[1])
    assert (
        violation(result) == "metrics[0].predefined_metric_spec.metric_spec_parameters.guidelines"
    )
    result = evaluate(channel, "safety_v1", INSTANCE, guidelines=["x"])
    assert result.error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert judge.calls == []


def test_sampling_for_binary_and_claims(judge: FakeJudge, channel: grpc.Channel) -> None:
    claims = [
        {"sentences": [{"sentence": "a", "label": "supported", "rationale": "x"}]},
        {"sentences": [{"sentence": "a", "label": "unsupported", "rationale": "y"}]},
        {"sentences": [{"sentence": "a", "label": "supported", "rationale": "z"}]},
    ]
    judge.script(*(json.dumps(c) for c in claims))
    spec = {"predefined_metric_spec": {"metric_spec_name": "grounding_v1"}}
    body = {"metrics": [spec], "instance": INSTANCE, "autorater_config": {"sampling_count": 3}}
    request = json_format.ParseDict(body, MESSAGES["v1beta1"].EvaluateInstancesRequest())
    (result,) = stub(channel).EvaluateInstances(request, timeout=30).metric_results
    # Per-sample scores 1, 0, 1: the mean.
    assert result.score == f32(2 / 3)
    assert len(judge.calls) == 3
