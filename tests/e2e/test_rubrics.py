"""Rubric-based judging end to end over gRPC, against the local fake judge.

The legacy ``rubric_based_instruction_following_input`` and the Metric API's rubric sources
(``rubric_group_key``, ``rubric_generation_spec``, ``predefined_rubric_generation_spec``).
Expected scores are hand-worked from the scripted verdicts and the documented score rule.
"""

from __future__ import annotations

import json
import re
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from evald_proto.evald.v1 import metric_registry_pb2 as pb
from evald_proto.evald.v1 import metric_registry_pb2_grpc as pb_grpc
from google.protobuf import json_format
from google.rpc import error_details_pb2

from tests.fakes.judge_config import configure
from tests.fakes.judge_server import FakeJudge, running
from tests.support import MESSAGES, ServerThread, serving, stub

GENERATED = [
    "Does the response name the capital?",
    "Is the response a single sentence?",
    "Does the response cite a source?",
]
"""What the fake judge writes as rubrics; every rubric mentioning 'cite' or 'FAIL' is not met."""


def critique_answer(prompt: str) -> str:
    listed = re.findall(r"^\[(\d+)\] (.*)$", prompt, re.MULTILINE)
    return json.dumps(
        {
            "verdicts": [
                {
                    "rubric_id": number,
                    "reasoning": f"checked {number}",
                    "verdict": "no" if ("cite" in text or "FAIL" in text) else "yes",
                }
                for number, text in listed
            ]
        }
    )


def smart(prompt: str) -> str:
    """The fake judge's answer, by the kind of prompt evald sent."""
    if "BROKEN" in prompt:
        return "Sorry, I cannot answer in JSON today."
    if "# Rubric rules" in prompt:
        ontology = re.search(r"exactly one of: (.+)\.\n", prompt)
        extra = {"type": ontology.group(1).split(", ")[0]} if ontology else {}
        return json.dumps({"rubrics": [{"description": d, **extra} for d in GENERATED]})
    if '"verdicts"' in prompt:
        return critique_answer(prompt)
    if '"sentences"' in prompt:
        return json.dumps(
            {
                "sentences": [
                    {"sentence": "Paris is the capital.", "label": "supported", "rationale": "ok"},
                    {"sentence": "It has 90M people.", "label": "contradicted", "rationale": "no"},
                    {"sentence": "Hope this helps!", "label": "no_rad", "rationale": "filler"},
                ]
            }
        )
    if "Rating rubric (0 or 1)" in prompt:
        score = 0 if "final response match" in prompt else 1
        return json.dumps({"explanation": "binary verdict", "score": score})
    return json.dumps({"explanation": "plain", "score": 3})


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
    """The fake judge, configured as evald's default judge (gemini protocol, cache off)."""
    fake.reset()
    configure(monkeypatch, tmp_path, fake.url)
    return fake


def evaluate(channel: grpc.Channel, body: dict[str, Any], **kwargs: Any) -> Any:
    request = json_format.ParseDict(body, MESSAGES["v1beta1"].EvaluateInstancesRequest())
    return stub(channel).EvaluateInstances(request, timeout=30, **kwargs)


def violation(result: Any) -> str:
    for detail in result.error.details:
        bad = error_details_pb2.BadRequest()
        if detail.Unpack(bad):
            return str(bad.field_violations[0].field)
    return ""


def rubric(text: str, importance: str | None = None, rubric_id: str = "") -> dict[str, Any]:
    item: dict[str, Any] = {"rubric_id": rubric_id, "content": {"property": {"description": text}}}
    if importance is not None:
        item["importance"] = importance
    return item


PROMPT, RESPONSE = "What is the capital of France?", "Paris is the capital."
INSTANCE: dict[str, Any] = {
    "prompt": {"text": PROMPT},
    "response": {"text": RESPONSE},
    "rubric_groups": {
        "g": {
            "group_id": "g",
            "rubrics": [
                rubric("Does the response name the capital?", "HIGH", "a"),
                rubric("Does the response cite a source?", "LOW", "b"),
                rubric("Is the response polite?", None, "c"),
            ],
        },
        "empty": {"group_id": "empty"},
        "textless": {"rubrics": [{"rubric_id": "x"}]},
    },
}


# Legacy input ----------------------------------------------------------------------------------


@pytest.mark.parametrize("backend", ["gemini", "openai"])
def test_legacy_rubric_based_instruction_following(
    fake: FakeJudge,
    channel: grpc.Channel,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    backend: str,
) -> None:
    fake.reset()
    configure(monkeypatch, tmp_path, fake.url, backend)
    body = {
        "rubric_based_instruction_following_input": {
            "instance": {"json_instance": json.dumps({"prompt": PROMPT, "response": RESPONSE})}
        }
    }
    response = evaluate(channel, body)
    result = response.rubric_based_instruction_following_result
    assert result.HasField("score")
    assert result.score == f32(2 / 3)
    assert [(r.rubric, r.verdict) for r in result.rubric_critique_results] == [
        (GENERATED[0], True),
        (GENERATED[1], True),
        (GENERATED[2], False),
    ]
    generation, critique = fake.calls
    assert {generation.protocol, critique.protocol} == {backend}
    assert PROMPT in generation.prompt
    assert RESPONSE not in generation.prompt
    assert "instruction" in generation.prompt
    assert PROMPT in critique.prompt
    assert RESPONSE in critique.prompt
    assert all(f"[{i}] {text}" in critique.prompt for i, text in enumerate(GENERATED, 1))


def test_legacy_zero_score_is_set(judge: FakeJudge, channel: grpc.Channel) -> None:
    judge.script(json.dumps({"rubrics": ["Does it FAIL?"]}))
    body = {
        "rubric_based_instruction_following_input": {
            "instance": {"json_instance": json.dumps({"instruction": "x", "prediction": "y"})}
        }
    }
    result = evaluate(channel, body).rubric_based_instruction_following_result
    assert result.HasField("score")
    assert result.score == 0.0
    assert [(r.rubric, r.verdict) for r in result.rubric_critique_results] == [
        ("Does it FAIL?", False)
    ]


LEGACY_BAD = [
    {},
    {"json_instance": "not json"},
    {"json_instance": json.dumps({"prompt": "p"})},
    {"json_instance": json.dumps({"response": "r"})},
]


@pytest.mark.parametrize("instance", LEGACY_BAD)
def test_legacy_bad_instance(
    judge: FakeJudge, channel: grpc.Channel, instance: dict[str, Any]
) -> None:
    body = {"rubric_based_instruction_following_input": {"instance": instance}}
    with pytest.raises(grpc.RpcError) as raised:
        evaluate(channel, body)
    error: Any = raised.value
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "rubric_based_instruction_following_input.instance.json_instance" in error.details()
    assert judge.calls == []


# Rubric groups ---------------------------------------------------------------------------------


def test_rubric_group_verdicts_and_weighted_score(judge: FakeJudge, channel: grpc.Channel) -> None:
    body = {"metrics": [{"llm_based_metric_spec": {"rubric_group_key": "g"}}], "instance": INSTANCE}
    (result,) = evaluate(channel, body).metric_results
    assert not result.HasField("error")
    # HIGH met (3), LOW not met (1), unset met (2): (3 + 2) / (3 + 1 + 2).
    assert result.score == f32(5 / 6)
    assert [(v.evaluated_rubric.rubric_id, v.verdict) for v in result.rubric_verdicts] == [
        ("a", True),
        ("b", False),
        ("c", True),
    ]
    assert result.rubric_verdicts[1].reasoning == "checked 2"
    assert result.rubric_verdicts[0].evaluated_rubric.importance == 1  # HIGH, kept as sent
    assert "2 of 3 rubrics met" in result.explanation
    (sent,) = judge.calls  # the rubrics were given: no generation call
    for text in (PROMPT, RESPONSE, "[2] Does the response cite a source?"):
        assert text in sent.prompt


def test_rubric_group_with_caller_template(judge: FakeJudge, channel: grpc.Channel) -> None:
    spec = {
        "rubric_group_key": "g",
        "metric_prompt_template": "Grade {response} for {prompt}.\nChecklist:\n{rubrics}",
        "system_instruction": "Be strict.",
    }
    body = {"metrics": [{"llm_based_metric_spec": spec}], "instance": INSTANCE}
    (result,) = evaluate(channel, body).metric_results
    assert result.score == f32(5 / 6)
    (sent,) = judge.calls
    assert sent.prompt.startswith(
        f"Grade {RESPONSE} for {PROMPT}.\nChecklist:\n[1] Does the response name the capital?\n"
    )
    assert sent.prompt.count("[3] Is the response polite?") == 1
    assert '"verdicts"' in sent.prompt
    assert sent.system == "Be strict."


GROUP_ERRORS = [
    ("nope", "metrics[0].llm_based_metric_spec.rubric_group_key"),
    ("empty", "instance.rubric_groups['empty'].rubrics"),
    ("textless", "instance.rubric_groups['textless'].rubrics[0].content.property.description"),
]


@pytest.mark.parametrize(("key", "field"), GROUP_ERRORS)
def test_bad_rubric_group(judge: FakeJudge, channel: grpc.Channel, key: str, field: str) -> None:
    body = {
        "metrics": [
            {"llm_based_metric_spec": {"rubric_group_key": key}},
            {"exact_match_spec": {}},
        ],
        "instance": {**INSTANCE, "reference": {"text": RESPONSE}},
    }
    bad, fine = evaluate(channel, body).metric_results
    assert bad.error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert violation(bad) == field
    assert bad.HasField("score")
    assert bad.score == 0.0
    assert (fine.score, fine.HasField("error")) == (1.0, False)
    assert judge.calls == []


def test_unreadable_answer_fails_only_that_metric(judge: FakeJudge, channel: grpc.Channel) -> None:
    broken = {**INSTANCE, "response": {"text": "BROKEN"}, "reference": {"text": "BROKEN"}}
    body = {
        "metrics": [
            {"llm_based_metric_spec": {"rubric_group_key": "g"}},
            {"exact_match_spec": {}},
        ],
        "instance": broken,
    }
    bad, fine = evaluate(channel, body).metric_results
    assert bad.error.code == grpc.StatusCode.UNAVAILABLE.value[0]
    assert "unreadable answer" in bad.error.message
    assert "judge 'fake'" in bad.error.message
    assert bad.HasField("score")
    assert not bad.rubric_verdicts
    assert (fine.score, fine.HasField("error")) == (1.0, False)
    assert len(judge.calls) == 3  # the configured attempts, then the error


def test_parser_with_rubrics_is_unimplemented(judge: FakeJudge, channel: grpc.Channel) -> None:
    spec = {
        "rubric_group_key": "g",
        "result_parser_config": {
            "custom_code_parser_config": {"parsing_function": "def parse_results(r): return 1"}
        },
    }
    (result,) = evaluate(
        channel, {"metrics": [{"llm_based_metric_spec": spec}], "instance": INSTANCE}
    ).metric_results
    assert result.error.code == grpc.StatusCode.UNIMPLEMENTED.value[0]
    assert "result_parser_config" in result.error.message


def verdicts(*flags: bool) -> str:
    return json.dumps(
        {
            "verdicts": [
                {"rubric_id": str(i), "reasoning": "r", "verdict": "yes" if f else "no"}
                for i, f in enumerate(flags, 1)
            ]
        }
    )


SAMPLING = [
    # (samples, per-sample verdicts on rubrics a, b (HIGH 3, LOW 1), expected score)
    (3, [(True, False), (True, True), (False, False)], 3 / 4),  # a 2/3 met, b 1/3 not
    (2, [(True, True), (False, True)], 2.5 / 4),  # a split evenly: half its weight
    (4, [(True, False), (True, False), (False, True), (False, True)], 2 / 4),
]


@pytest.mark.parametrize(("count", "samples", "expected"), SAMPLING)
def test_sampling_majority_per_rubric(
    judge: FakeJudge,
    channel: grpc.Channel,
    count: int,
    samples: list[tuple[bool, bool]],
    expected: float,
) -> None:
    judge.script(*(verdicts(*s) for s in samples))
    group = {"rubrics": INSTANCE["rubric_groups"]["g"]["rubrics"][:2]}
    spec = {"rubric_group_key": "two", "judge_autorater_config": {"sampling_count": count}}
    body = {
        "metrics": [{"llm_based_metric_spec": spec}],
        "instance": {**INSTANCE, "rubric_groups": {"two": group}},
    }
    (result,) = evaluate(channel, body).metric_results
    assert result.score == f32(expected)
    assert len(judge.calls) == count


# Generated rubrics -----------------------------------------------------------------------------


def test_rubric_generation_spec(judge: FakeJudge, channel: grpc.Channel) -> None:
    spec = {
        "rubric_generation_spec": {
            "prompt_template": "Write rubrics for: {prompt}",
            "rubric_content_type": "PROPERTY",
            "rubric_type_ontology": ["content", "style"],
            "model_config": {"generation_config": {"temperature": 0.25}},
        }
    }
    body = {"metrics": [{"llm_based_metric_spec": spec}], "instance": INSTANCE}
    (result,) = evaluate(channel, body).metric_results
    assert not result.HasField("error"), result.error
    assert result.score == f32(2 / 3)
    assert [
        (v.evaluated_rubric.rubric_id, v.evaluated_rubric.type_, v.verdict)
        for v in result.rubric_verdicts
    ] == [("1", "content", True), ("2", "content", True), ("3", "content", False)]
    texts = [v.evaluated_rubric.content.property.description for v in result.rubric_verdicts]
    assert texts == GENERATED
    generation, critique = judge.calls
    assert generation.prompt.startswith(f"Write rubrics for: {PROMPT}\n")
    assert "exactly one of: content, style." in generation.prompt
    assert "statement of one property" in generation.prompt
    assert generation.body["generationConfig"]["temperature"] == 0.25
    assert "temperature" not in critique.body.get("generationConfig", {})
    assert RESPONSE in critique.prompt
    assert f"[3] {GENERATED[2]}" in critique.prompt


def test_rubric_generation_with_evald_prompt(judge: FakeJudge, channel: grpc.Channel) -> None:
    spec = {"rubric_generation_spec": {"rubric_content_type": "PYTHON_CODE_ASSERTION"}}
    body = {"metrics": [{"llm_based_metric_spec": spec}], "instance": INSTANCE}
    (result,) = evaluate(channel, body).metric_results
    assert result.score == f32(2 / 3)
    generation, _ = judge.calls
    assert PROMPT in generation.prompt
    assert RESPONSE not in generation.prompt
    assert "Python boolean expression" in generation.prompt


def test_rubric_generation_needs_a_prompt(judge: FakeJudge, channel: grpc.Channel) -> None:
    spec: dict[str, Any] = {"rubric_generation_spec": {}}
    body = {"metrics": [{"llm_based_metric_spec": spec}], "instance": {"response": {"text": "r"}}}
    (result,) = evaluate(channel, body).metric_results
    assert violation(result) == "instance.prompt"
    assert judge.calls == []


def test_predefined_rubric_generation_spec(judge: FakeJudge, channel: grpc.Channel) -> None:
    spec = {
        "predefined_rubric_generation_spec": {
            "metric_spec_name": "general_quality_v1",
            "metric_spec_parameters": {"guidelines": ["Answer in French."]},
        },
        "metric_prompt_template": "Check {response}:\n{rubrics}",
    }
    body = {"metrics": [{"llm_based_metric_spec": spec}], "instance": INSTANCE}
    (result,) = evaluate(channel, body).metric_results
    assert result.score == f32(2 / 3)
    assert len(result.rubric_verdicts) == 3
    generation, critique = judge.calls
    assert "- Answer in French." in generation.prompt
    assert PROMPT in generation.prompt
    assert critique.prompt.startswith(f"Check {RESPONSE}:\n[1] {GENERATED[0]}")


@pytest.mark.parametrize("name", ["nemo/em", "safety_v1", "nope"])
def test_predefined_rubric_generation_needs_a_rubric_metric(
    judge: FakeJudge, channel: grpc.Channel, name: str
) -> None:
    spec = {"predefined_rubric_generation_spec": {"metric_spec_name": name}}
    body = {"metrics": [{"llm_based_metric_spec": spec}], "instance": INSTANCE}
    (result,) = evaluate(channel, body).metric_results
    assert violation(result) == (
        "metrics[0].llm_based_metric_spec.predefined_rubric_generation_spec.metric_spec_name"
    )
    assert "general_quality_v1" in result.error.message


def test_cache_hit_makes_no_call(
    fake: FakeJudge, channel: grpc.Channel, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake.reset()
    configure(monkeypatch, tmp_path, fake.url, cache=True)
    body = {
        "metrics": [
            {"llm_based_metric_spec": {"rubric_generation_spec": {}}},
            {"predefined_metric_spec": {"metric_spec_name": "hallucination_v1"}},
        ],
        "instance": INSTANCE,
    }
    first = evaluate(channel, body)
    assert len(fake.calls) == 3  # generation + critique, and the labelling
    second = evaluate(channel, body)
    assert len(fake.calls) == 3  # all three answers came from the cache
    assert second == first
    evaluate(channel, body, metadata=(("x-evald-judge-cache", "off"),))
    assert len(fake.calls) == 6


def test_no_judge_configured(
    channel: grpc.Channel, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("EVALD_JUDGE_CONFIG", str(tmp_path / "missing.json"))
    body = {
        "metrics": [
            {"llm_based_metric_spec": {"rubric_group_key": "g"}},
            {"predefined_metric_spec": {"metric_spec_name": "general_quality_v1"}},
        ],
        "instance": {**INSTANCE, "rubric_groups": {"g": INSTANCE["rubric_groups"]["g"]}},
    }
    for result in evaluate(channel, body).metric_results:
        assert result.error.code == grpc.StatusCode.FAILED_PRECONDITION.value[0]
        assert "judge" in result.error.message


def test_named_judge_metrics_are_listed(channel: grpc.Channel) -> None:
    registry: Any = pb_grpc.MetricRegistryStub(channel)  # type: ignore[no-untyped-call]
    listed = registry.ListPredefinedMetrics(pb.ListPredefinedMetricsRequest(family="vertex"))
    by_name = {m.name: m for m in listed.metrics}
    for name in ("general_quality_v1", "safety_v3", "hallucination_v2", "gecko_text2image_v1"):
        assert by_name[name].needs_judge, name
    assert by_name["general_quality_v1"].parameters[0].name == "guidelines"
    assert "share of rubrics met" in by_name["text_quality_v2"].score_range
