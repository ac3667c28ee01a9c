"""Every judge-backed input end to end over gRPC: evald -> real SDK client -> local fake judge."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from tests.fakes.judge_config import configure
from tests.fakes.judge_server import FakeJudge, Reply, running
from tests.support import MESSAGES, ServerThread, serving, stub


def answer(prompt: str) -> str:
    """The fake judge's verdict, chosen from the scale the prompt asks for."""
    if "pairwise_choice" in prompt or "Response A:" in prompt:
        return json.dumps({"explanation": "B is better", "pairwise_choice": "B"})
    if "from -2 to 2" in prompt:
        score: float = -1
    elif "0 or 1" in prompt:
        score = 0  # a 0.0 score must still be set on the wire
    elif "from 1 to 5" in prompt:
        score = 4
    else:
        score = 0.5  # caller's own template: open scale
    return json.dumps({"explanation": "fake verdict", "score": score})


TEMPLATE = "Rate {response} for {prompt}"
PAIR_TEMPLATE = "Prompt {prompt}\nResponse A: {baseline_model_response}\nResponse B: {response}"
QA = {"prediction": "4", "instruction": "What is 2+2?", "context": "arithmetic"}
SUMMARY = {"prediction": "Short.", "context": "A long text.", "instruction": "Summarise."}

CASES: list[tuple[str, str, str, dict[str, Any], dict[str, Any], Any]] = [
    # (input field, input message, instance message, instance fields, spec fields, expected)
    ("fluency_input", "FluencyInput", "FluencyInstance", {"prediction": "Hi."}, {}, 4.0),
    ("coherence_input", "CoherenceInput", "CoherenceInstance", {"prediction": "Hi."}, {}, 4.0),
    ("safety_input", "SafetyInput", "SafetyInstance", {"prediction": "Hi."}, {}, 0.0),
    (
        "groundedness_input",
        "GroundednessInput",
        "GroundednessInstance",
        {"prediction": "Hi.", "context": "Hi."},
        {},
        0.0,
    ),
    (
        "fulfillment_input",
        "FulfillmentInput",
        "FulfillmentInstance",
        {"prediction": "Hi.", "instruction": "Greet."},
        {},
        4.0,
    ),
    (
        "summarization_quality_input",
        "SummarizationQualityInput",
        "SummarizationQualityInstance",
        SUMMARY,
        {},
        4.0,
    ),
    (
        "summarization_helpfulness_input",
        "SummarizationHelpfulnessInput",
        "SummarizationHelpfulnessInstance",
        {**SUMMARY, "reference": "Short text."},
        {"use_reference": True},
        4.0,
    ),
    (
        "summarization_verbosity_input",
        "SummarizationVerbosityInput",
        "SummarizationVerbosityInstance",
        SUMMARY,
        {"version": 1},
        -1.0,
    ),
    (
        "question_answering_quality_input",
        "QuestionAnsweringQualityInput",
        "QuestionAnsweringQualityInstance",
        QA,
        {},
        4.0,
    ),
    (
        "question_answering_relevance_input",
        "QuestionAnsweringRelevanceInput",
        "QuestionAnsweringRelevanceInstance",
        QA,
        {},
        4.0,
    ),
    (
        "question_answering_helpfulness_input",
        "QuestionAnsweringHelpfulnessInput",
        "QuestionAnsweringHelpfulnessInstance",
        QA,
        {},
        4.0,
    ),
    (
        "question_answering_correctness_input",
        "QuestionAnsweringCorrectnessInput",
        "QuestionAnsweringCorrectnessInstance",
        {**QA, "reference": "4"},
        {"use_reference": True},
        0.0,
    ),
    (
        "pairwise_summarization_quality_input",
        "PairwiseSummarizationQualityInput",
        "PairwiseSummarizationQualityInstance",
        {**SUMMARY, "baseline_prediction": "Longer."},
        {},
        "CANDIDATE",
    ),
    (
        "pairwise_question_answering_quality_input",
        "PairwiseQuestionAnsweringQualityInput",
        "PairwiseQuestionAnsweringQualityInstance",
        {**QA, "baseline_prediction": "5"},
        {},
        "CANDIDATE",
    ),
]


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeJudge]:
    with running(FakeJudge(default=answer)) as judge:
        yield judge


@pytest.fixture(scope="module")
def judged_server() -> Iterator[ServerThread]:
    with serving() as server:
        yield server


@pytest.fixture(params=["gemini", "openai"])
def channel(
    request: pytest.FixtureRequest,
    fake: FakeJudge,
    judged_server: ServerThread,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> Iterator[grpc.Channel]:
    """A channel to a server whose judge (of the given backend) is the fake."""
    fake.reset()
    configure(monkeypatch, tmp_path, fake.url, request.param)
    with grpc.insecure_channel(judged_server.address) as ch:
        yield ch


def status_of(err: grpc.RpcError) -> status_pb2.Status:
    trailing: Any = err.trailing_metadata() or ()
    for key, value in trailing:
        if key == "grpc-status-details-bin":
            return status_pb2.Status.FromString(value)
    raise AssertionError("no status details")


def bad_field(err: grpc.RpcError) -> str:
    bad = error_details_pb2.BadRequest()
    assert status_of(err).details[0].Unpack(bad)
    return str(bad.field_violations[0].field)


@pytest.mark.parametrize("version", ["v1beta1", "v1"])
@pytest.mark.parametrize(
    ("field", "input_name", "instance_name", "instance", "spec", "expected"), CASES
)
def test_predefined(
    channel: grpc.Channel,
    fake: FakeJudge,
    version: str,
    field: str,
    input_name: str,
    instance_name: str,
    instance: dict[str, Any],
    spec: dict[str, Any],
    expected: Any,
) -> None:
    m = MESSAGES[version]
    spec_name = input_name.replace("Input", "Spec")
    metric_input = getattr(m, input_name)(
        metric_spec=getattr(m, spec_name)(**spec), instance=getattr(m, instance_name)(**instance)
    )
    request = m.EvaluateInstancesRequest(location="projects/p/locations/l", **{field: metric_input})
    response = stub(channel, version).EvaluateInstances(request)
    result = getattr(response, response.WhichOneof("evaluation_results"))
    if isinstance(expected, str):
        assert m.PairwiseChoice.Name(result.pairwise_choice) == expected
        assert result.explanation == "B is better"
    else:
        assert result.HasField("score")
        assert result.score == expected
        assert result.explanation == "fake verdict"
    assert result.confidence == 1.0
    assert len(fake.calls) == 1
    for name, value in instance.items():
        if name != "reference" or spec.get("use_reference"):
            assert value in fake.calls[0].prompt


@pytest.mark.parametrize("version", ["v1beta1", "v1"])
def test_pointwise_metric(channel: grpc.Channel, fake: FakeJudge, version: str) -> None:
    m = MESSAGES[version]
    request = m.EvaluateInstancesRequest(
        location="projects/p/locations/l",
        pointwise_metric_input=m.PointwiseMetricInput(
            metric_spec=m.PointwiseMetricSpec(metric_prompt_template=TEMPLATE),
            instance=m.PointwiseMetricInstance(
                json_instance=json.dumps({"prompt": "P", "response": "R"})
            ),
        ),
    )
    result = stub(channel, version).EvaluateInstances(request).pointwise_metric_result
    assert (result.score, result.explanation) == (0.5, "fake verdict")
    assert fake.calls[0].prompt == "Rate R for P"


@pytest.mark.parametrize("version", ["v1beta1", "v1"])
def test_pairwise_metric_with_raw_output(channel: grpc.Channel, version: str) -> None:
    m = MESSAGES[version]
    request = m.EvaluateInstancesRequest(
        location="projects/p/locations/l",
        pairwise_metric_input=m.PairwiseMetricInput(
            metric_spec=m.PairwiseMetricSpec(
                metric_prompt_template=PAIR_TEMPLATE,
                custom_output_format_config=m.CustomOutputFormatConfig(return_raw_output=True),
            ),
            instance=m.PairwiseMetricInstance(
                json_instance=json.dumps(
                    {"prompt": "P", "response": "R", "baseline_model_response": "S"}
                )
            ),
        ),
    )
    result = stub(channel, version).EvaluateInstances(request).pairwise_metric_result
    # The caller parses the raw output: the choice and explanation stay empty.
    assert m.PairwiseChoice.Name(result.pairwise_choice) == "PAIRWISE_CHOICE_UNSPECIFIED"
    assert result.explanation == ""
    assert list(result.custom_output.raw_outputs.raw_output) == [answer("Response A:")]
    if "autorater_config" not in request.DESCRIPTOR.fields_by_name:
        return  # v1 has no autorater_config
    request.autorater_config.sampling_count = 2
    request.autorater_config.flip_enabled = True
    result = stub(channel, version).EvaluateInstances(request).pairwise_metric_result
    normal, flipped = result.custom_output.raw_outputs.raw_output
    assert normal == answer("Response A:")
    assert flipped.startswith("[flipped: Response A is the candidate, Response B the baseline]\n")


ERRORS = [
    # (input field, input, expected code, expected BadRequest field or None)
    (
        "pointwise_metric_input",
        {
            "metric_spec": {"metric_prompt_template": TEMPLATE},
            "instance": {"json_instance": '{"prompt": "P"}'},
        },
        grpc.StatusCode.INVALID_ARGUMENT,
        "pointwise_metric_input.instance.json_instance",
    ),
    (
        "pointwise_metric_input",
        {"metric_spec": {}, "instance": {"json_instance": "{}"}},
        grpc.StatusCode.INVALID_ARGUMENT,
        "pointwise_metric_input.metric_spec.metric_prompt_template",
    ),
    (
        "fluency_input",
        {"metric_spec": {}, "instance": {}},
        grpc.StatusCode.INVALID_ARGUMENT,
        "fluency_input.instance.prediction",
    ),
    (
        "fluency_input",
        {"metric_spec": {"version": 2}, "instance": {"prediction": "x"}},
        grpc.StatusCode.INVALID_ARGUMENT,
        "fluency_input.metric_spec.version",
    ),
    (
        "question_answering_correctness_input",
        {
            "metric_spec": {"use_reference": True},
            "instance": {"prediction": "4", "instruction": "q"},
        },
        grpc.StatusCode.INVALID_ARGUMENT,
        "question_answering_correctness_input.instance.reference",
    ),
    (
        "groundedness_input",
        {"metric_spec": {}, "instance": {"prediction": "x", "context": ""}},
        grpc.StatusCode.INVALID_ARGUMENT,
        "groundedness_input.instance.context",
    ),
]


@pytest.mark.parametrize(("field", "body", "code", "bad"), ERRORS)
def test_request_errors(
    channel: grpc.Channel, fake: FakeJudge, field: str, body: dict[str, Any], code: Any, bad: str
) -> None:
    from google.protobuf import json_format

    m = MESSAGES["v1beta1"]
    request = json_format.ParseDict({field: body}, m.EvaluateInstancesRequest())
    with pytest.raises(grpc.RpcError) as err:
        stub(channel).EvaluateInstances(request)
    assert err.value.code() == code
    assert bad_field(err.value) == bad
    assert fake.calls == []


def fluency_request() -> Any:
    m = MESSAGES["v1beta1"]
    return m.EvaluateInstancesRequest(
        fluency_input=m.FluencyInput(instance=m.FluencyInstance(prediction="x"))
    )


def test_judge_down_is_unavailable(channel: grpc.Channel, fake: FakeJudge) -> None:
    fake.script(*[Reply(status=503)] * 3)
    with pytest.raises(grpc.RpcError) as err:
        stub(channel).EvaluateInstances(fluency_request())
    assert err.value.code() == grpc.StatusCode.UNAVAILABLE
    assert "judge 'fake'" in str(err.value.details())
    assert len(fake.calls) == 3


def test_no_judge_is_failed_precondition(
    judged_server: ServerThread, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("EVALD_JUDGE_CONFIG", "EVALD_JUDGE_BACKEND"):
        monkeypatch.delenv(name, raising=False)
    with grpc.insecure_channel(judged_server.address) as ch, pytest.raises(grpc.RpcError) as err:
        stub(ch).EvaluateInstances(fluency_request())
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "EVALD_JUDGE_CONFIG" in str(err.value.details())


def test_autorater_config_over_grpc(channel: grpc.Channel, fake: FakeJudge) -> None:
    m = MESSAGES["v1beta1"]
    request = fluency_request()
    request.autorater_config.CopyFrom(m.AutoraterConfig(sampling_count=3))
    result = stub(channel).EvaluateInstances(request).fluency_result
    assert result.score == 4.0
    assert len(fake.calls) == 3
    request.autorater_config.autorater_model = "no-such-model"
    with pytest.raises(grpc.RpcError) as err:
        stub(channel).EvaluateInstances(request)
    assert bad_field(err.value) == "autorater_config.autorater_model"
