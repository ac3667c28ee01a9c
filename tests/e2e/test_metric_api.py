"""The Metric API end to end over gRPC: metrics / metric_sources + instance -> metric_results."""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import sacrebleu
from evald_proto.evald.v1 import metric_registry_pb2 as pb
from evald_proto.evald.v1 import metric_registry_pb2_grpc as pb_grpc
from google.protobuf import json_format
from google.rpc import error_details_pb2
from rouge_score.rouge_scorer import RougeScorer

from tests.fakes.judge_config import configure
from tests.fakes.judge_server import FakeJudge, running
from tests.support import MESSAGES, ServerThread, serving, stub

PARENT = "projects/p/locations/us-central1"


def registry_stub(channel: grpc.Channel) -> Any:
    """A MetricRegistry stub (the generated stub class is untyped)."""
    stub_class: Any = pb_grpc.MetricRegistryStub
    return stub_class(channel)


def f32(x: float) -> float:
    return float(struct.unpack("f", struct.pack("f", x))[0])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    with serving(data_dir=tmp_path_factory.mktemp("data")) as running_server:
        yield running_server


@pytest.fixture
def channel(server: ServerThread) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(server.address) as ch:
        yield ch


def evaluate(channel: grpc.Channel, body: dict[str, Any], version: str = "v1beta1") -> Any:
    request = json_format.ParseDict(body, MESSAGES[version].EvaluateInstancesRequest())
    return stub(channel, version).EvaluateInstances(request)


def violation(result: Any) -> str:
    for detail in result.error.details:
        bad = error_details_pb2.BadRequest()
        if detail.Unpack(bad):
            return str(bad.field_violations[0].field)
    return ""


RESPONSE, REFERENCE = "the cat sat on the mat", "the cat is on the mat"
INSTANCE = {"response": {"text": RESPONSE}, "reference": {"text": REFERENCE}}


def test_computed_specs_match_reference_libraries(channel: grpc.Channel) -> None:
    body = {
        "metrics": [
            {"exact_match_spec": {}},
            {"bleu_spec": {}},
            {"rouge_spec": {"rouge_type": "rouge1"}},
            {"computation_based_metric_spec": {"type": "BLEU", "parameters": {}}},
            {
                "computation_based_metric_spec": {
                    "type": "ROUGE",
                    "parameters": {"rouge_type": "rougeL"},
                }
            },
            {"computation_based_metric_spec": {"type": "EXACT_MATCH"}},
        ],
        "instance": INSTANCE,
    }
    bleu = sacrebleu.sentence_bleu(RESPONSE, [REFERENCE]).score / 100
    rouge = RougeScorer(["rouge1", "rougeL"]).score(REFERENCE, RESPONSE)
    expected = [0.0, bleu, rouge["rouge1"].fmeasure, bleu, rouge["rougeL"].fmeasure, 0.0]
    results = evaluate(channel, body).metric_results  # the Metric API is v1beta1 only
    assert [r.HasField("score") for r in results] == [True] * 6
    assert [r.score for r in results] == pytest.approx([f32(x) for x in expected])
    assert not any(r.HasField("error") for r in results)


def test_one_failing_metric_does_not_fail_the_others(channel: grpc.Channel) -> None:
    body = {
        "metrics": [
            {"rouge_spec": {"rouge_type": "rouge99"}},
            {"exact_match_spec": {}},
            {"computation_based_metric_spec": {"type": "BLEU", "parameters": {"typo": 1}}},
            {"custom_code_execution_spec": {"evaluation_function": "def evaluate(i):\n  return 1"}},
            {"predefined_metric_spec": {"metric_spec_name": "no-such-metric"}},
            {},
        ],
        "metric_sources": [
            {"metric": {"predefined_metric_spec": {"metric_spec_name": "fmeval/exact_match"}}},
            {"metric_resource_name": f"{PARENT}/evaluationMetrics/unknown"},
        ],
        "instance": {"response": {"text": "x"}, "reference": {"text": "x"}},
    }
    results = evaluate(channel, body).metric_results
    assert len(results) == 8
    codes = [r.error.code if r.HasField("error") else 0 for r in results]
    assert codes == [
        3,
        0,
        3,
        9,
        3,
        3,
        0,
        5,
    ]  # INVALID_ARGUMENT, OK, ..., FAILED_PRECONDITION, NOT_FOUND
    assert [r.score for r in results] == [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0]
    assert all(r.HasField("score") for r in results)
    assert violation(results[0]) == "metrics[0].rouge_spec.rouge_type"
    assert violation(results[2]) == "metrics[2].computation_based_metric_spec.parameters"
    assert violation(results[4]) == "metrics[4].predefined_metric_spec.metric_spec_name"
    assert violation(results[5]) == "metrics[5]"
    assert "--enable-custom-code" in results[3].error.message


def test_missing_instance_field_is_named(channel: grpc.Channel) -> None:
    body = {"metrics": [{"bleu_spec": {}}], "instance": {"response": {"text": "x"}}}
    (result,) = evaluate(channel, body).metric_results
    assert violation(result) == "instance.reference"


def test_request_without_instance_fails_the_rpc(channel: grpc.Channel) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        evaluate(channel, {"metrics": [{"exact_match_spec": {}}]})
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_contents_are_joined_and_non_text_parts_noted(channel: grpc.Channel) -> None:
    contents = {
        "contents": [
            {"role": "model", "parts": [{"text": "the cat "}, {"text": "sat"}]},
            {"parts": [{"inline_data": {"mime_type": "image/png", "data": "AAAA"}}]},
        ]
    }
    body = {
        "metrics": [{"exact_match_spec": {}}],
        "instance": {"response": {"contents": contents}, "reference": {"text": "the cat sat\n"}},
    }
    (result,) = evaluate(channel, body).metric_results
    assert result.score == 1.0
    assert "inline_data" in result.explanation


def test_predefined_metrics_with_other_data(channel: grpc.Channel) -> None:
    body = {
        "metrics": [
            {
                "predefined_metric_spec": {
                    "metric_spec_name": "nemo/string-check",
                    "metric_spec_parameters": {
                        "check": ["{{response}}", "startswith", "{{label}}"]
                    },
                }
            },
            {"predefined_metric_spec": {"metric_spec_name": "fmeval/quasi_exact_match"}},
        ],
        "instance": {
            "response": {"text": "Yes, it is."},
            "reference": {"text": "no<OR>yes it is"},
            "other_data": {"map_instance": {"label": {"text": "Yes"}}},
        },
    }
    assert [r.score for r in evaluate(channel, body).metric_results] == [1.0, 1.0]


def test_predefined_metrics_are_listed(channel: grpc.Channel) -> None:
    registry = registry_stub(channel)
    listed = registry.ListPredefinedMetrics(pb.ListPredefinedMetricsRequest())
    names = {m.name for m in listed.metrics}
    assert {"nemo/string-check", "nemo/tool-calling", "fmeval/f1_over_words"} <= names
    nemo = registry.ListPredefinedMetrics(pb.ListPredefinedMetricsRequest(family="nemo"))
    assert {m.family for m in nemo.metrics} == {"nemo"}
    assert all(m.definition for m in listed.metrics)


def _register(channel: grpc.Channel, metric_id: str, metric: dict[str, Any]) -> Any:
    registry = registry_stub(channel)
    request = pb.CreateEvaluationMetricRequest(
        parent=PARENT, evaluation_metric_id=metric_id, display_name=metric_id
    )
    json_format.ParseDict(metric, request.metric)
    return registry.CreateEvaluationMetric(request)


def test_registered_metrics_crud(channel: grpc.Channel) -> None:
    registry = registry_stub(channel)
    created = _register(channel, "my-em", {"exact_match_spec": {}})
    assert created.name == f"{PARENT}/evaluationMetrics/my-em"
    with pytest.raises(grpc.RpcError) as caught:
        _register(channel, "my-em", {"exact_match_spec": {}})
    assert caught.value.code() == grpc.StatusCode.ALREADY_EXISTS
    with pytest.raises(grpc.RpcError) as caught:
        _register(channel, "empty", {})
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    got = registry.GetEvaluationMetric(pb.GetEvaluationMetricRequest(name=created.name))
    assert got.metric.HasField("exact_match_spec")
    listed = registry.ListEvaluationMetrics(pb.ListEvaluationMetricsRequest(parent=PARENT))
    assert created.name in [m.name for m in listed.evaluation_metrics]
    body = {
        "metric_sources": [{"metric_resource_name": created.name}],
        "instance": {"response": {"text": "a"}, "reference": {"text": "a"}},
    }
    assert evaluate(channel, body).metric_results[0].score == 1.0
    registry.DeleteEvaluationMetric(pb.DeleteEvaluationMetricRequest(name=created.name))
    assert (
        evaluate(channel, body).metric_results[0].error.code == grpc.StatusCode.NOT_FOUND.value[0]
    )


def test_registered_metrics_survive_a_restart(tmp_path: Path) -> None:
    metric = {"predefined_metric_spec": {"metric_spec_name": "nemo/accuracy"}}
    with serving(data_dir=tmp_path) as first, grpc.insecure_channel(first.address) as ch:
        name = _register(ch, "kept", metric).name
    body = {
        "metric_sources": [{"metric_resource_name": name}],
        "instance": {"response": {"text": " yes"}, "reference": {"text": "yes"}},
    }
    with serving(data_dir=tmp_path) as second, grpc.insecure_channel(second.address) as ch:
        (result,) = evaluate(ch, body).metric_results
        assert not result.HasField("error")
        assert result.score == 1.0


def test_custom_code_runs_when_enabled(tmp_path: Path) -> None:
    code = (
        "def evaluate(instance):\n"
        "    return {'score': len(instance['response']['text']), 'explanation': 'n'}"
    )
    body = {
        "metrics": [
            {"custom_code_execution_spec": {"evaluation_function": code}},
            {
                "custom_code_execution_spec": {
                    "evaluation_function": "def evaluate(i):\n  return 'x'"
                }
            },
        ],
        "instance": {"response": {"text": "abcd"}},
    }
    with serving(custom_code=True, data_dir=tmp_path) as s, grpc.insecure_channel(s.address) as ch:
        ok, bad = evaluate(ch, body).metric_results
    assert (ok.score, ok.explanation) == (4.0, "n")
    assert violation(bad) == "metrics[1].custom_code_execution_spec.evaluation_function"


def judge_answer(prompt: str) -> str:
    if "Response A" in prompt:
        return json.dumps({"explanation": "B wins", "pairwise_choice": "B"})
    return json.dumps({"explanation": "fine", "score": 3})


def test_llm_specs_use_the_judge(
    channel: grpc.Channel, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with running(FakeJudge(default=judge_answer)) as fake:
        configure(monkeypatch, tmp_path, fake.url)
        body = {
            "metrics": [
                {
                    "pointwise_metric_spec": {
                        "metric_prompt_template": "Rate {response} for {prompt}"
                    }
                },
                {
                    "pairwise_metric_spec": {
                        "metric_prompt_template": "Response A: {baseline_model_response}\n"
                        "Response B: {response}"
                    }
                },
                {"llm_based_metric_spec": {"metric_prompt_template": "Rate {response}"}},
                {
                    "llm_based_metric_spec": {
                        "metric_prompt_template": "{response}",
                        "rubric_group_key": "g",
                    }
                },
                {"pointwise_metric_spec": {"metric_prompt_template": "Rate {missing}"}},
                {
                    "predefined_metric_spec": {
                        "metric_spec_name": "nemo/llm-judge",
                        "metric_spec_parameters": {
                            "prompt_template": "Rate {{response}}",
                            "score_regex": '"score": (\\d+)',
                        },
                    }
                },
            ],
            "instance": {
                "prompt": {"text": "p"},
                "response": {"text": "r"},
                "other_data": {"map_instance": {"baseline_model_response": {"text": "b"}}},
            },
        }
        results = evaluate(channel, body).metric_results
    assert [r.score for r in results[:3]] == [3.0, 1.0, 3.0]
    assert results[1].explanation.startswith("pairwise_choice: CANDIDATE")
    # The instance has no rubric group "g": that metric alone fails, naming its field.
    assert results[3].error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert violation(results[3]) == "metrics[3].llm_based_metric_spec.rubric_group_key"
    assert violation(results[4]) == "instance"
    assert results[5].score == 3.0


CAT_PNG = "iVBORw0KGgpjYXQ="  # base64 of a few bytes standing for an image


def media_instance() -> dict[str, Any]:
    return {
        "prompt": {"text": "Draw a cat"},
        "response": {
            "contents": {
                "contents": [
                    {
                        "role": "model",
                        "parts": [
                            {"text": "Here:"},
                            {"inline_data": {"mime_type": "image/png", "data": CAT_PNG}},
                        ],
                    }
                ]
            }
        },
    }


def media_answer(prompt: str) -> str:
    """3 for the caller's template; 1 (safe) for ``safety_v1``, whose scale is 0 or 1."""
    return json.dumps({"explanation": "seen", "score": 3 if prompt.startswith("Rate") else 1})


MEDIA_METRICS = [
    {"pointwise_metric_spec": {"metric_prompt_template": "Rate {response} for {prompt}"}},
    {"predefined_metric_spec": {"metric_spec_name": "safety_v1"}},
]


def test_images_reach_a_gemini_judge_as_image_parts(
    channel: grpc.Channel, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with running(FakeJudge(default=media_answer)) as fake:
        configure(monkeypatch, tmp_path, fake.url)
        body = {"metrics": MEDIA_METRICS, "instance": media_instance()}
        results = evaluate(channel, body).metric_results
        assert [(r.error.code, r.score) for r in results] == [(0, 3.0), (0, 1.0)]
        assert all("ignored" not in r.explanation for r in results)
        for call in fake.calls:
            parts = call.body["contents"][0]["parts"]
            assert "Here:\n[media 1: image/png]" in call.prompt
            assert parts[-2] == {"text": "[media 1: image/png]"}
            inline = parts[-1]["inlineData"]
            assert inline["data"] == CAT_PNG
            assert "image/png" in inline.values()
        assert len(fake.calls) == 2


def test_a_text_only_judge_fails_each_media_metric_naming_the_part(
    channel: grpc.Channel, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with running(FakeJudge(default=judge_answer)) as fake:
        configure(monkeypatch, tmp_path, fake.url, "openai", media_types=[])
        body = {
            "metrics": [*MEDIA_METRICS, {"exact_match_spec": {}}],
            "instance": {**media_instance(), "reference": {"text": "Here:"}},
        }
        results = evaluate(channel, body).metric_results
        assert fake.calls == []  # nothing is scored for content the judge could not see
    part = "instance.response.contents.contents[0].parts[1].inline_data"
    for result in results[:2]:
        assert result.error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
        assert violation(result) == part
        assert "reads text only" in result.error.message
    # A computed metric reads the text and says what it skipped.
    assert results[2].score == 1.0
    assert "ignored" in results[2].explanation
