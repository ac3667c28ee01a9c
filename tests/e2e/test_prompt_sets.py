"""The prompt sets of the predefined judge metrics, end to end: evald over gRPC -> local fake judge.

With ``prompts = "vertex-sdk"`` the prompt the judge receives for each of the ten metrics with a
published analogue is the installed SDK's template (:mod:`tests.published`) filled with the
instance; the other four keep evald's prompts. Also: the required instance fields, over gRPC and
HTTP, answered before any judge is asked.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from evald.judges import prompt_sets
from google.protobuf import json_format
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from tests.fakes.judge_config import configure
from tests.fakes.judge_server import Call, FakeJudge, running
from tests.http_support import http_serving, http_url, post
from tests.published import sdk_templates
from tests.support import MESSAGES, ServerThread, stub

m: Any = MESSAGES["v1beta1"]
VERDICT = json.dumps({"explanation": "fake verdict", "score": 1, "pairwise_choice": "B"})
"""Readable as a score of every predefined scale and as a pairwise choice."""

RESPONSE = "Cats sleep most of the day."
BASELINE = "Cats are animals."
INSTRUCTION = "Summarise the text in one sentence."
CONTEXT = "Cats sleep twelve to sixteen hours a day, more when they are young or old."
REFERENCE = "Cats sleep for most of the day."

VERTEX_SDK_CASES: list[tuple[str, dict[str, str], dict[str, Any], str]] = [
    # (metric input, instance, spec, the published template's {prompt} from the instance)
    ("fluency_input", {"prediction": RESPONSE}, {}, ""),
    ("coherence_input", {"prediction": RESPONSE}, {}, ""),
    ("safety_input", {"prediction": RESPONSE}, {}, ""),
    ("groundedness_input", {"prediction": RESPONSE, "context": CONTEXT}, {}, CONTEXT),
    ("fulfillment_input", {"prediction": RESPONSE, "instruction": INSTRUCTION}, {}, INSTRUCTION),
    (
        "summarization_quality_input",
        {"prediction": RESPONSE, "instruction": INSTRUCTION, "context": CONTEXT},
        {},
        f"{INSTRUCTION}\n\nContext:\n{CONTEXT}",
    ),
    (
        "summarization_verbosity_input",
        {"prediction": RESPONSE, "context": CONTEXT, "reference": REFERENCE},
        {"use_reference": True},
        f"{CONTEXT}\n\nReference:\n{REFERENCE}",
    ),
    (
        "question_answering_quality_input",
        {
            "prediction": RESPONSE,
            "instruction": "How long do cats sleep?",
            "context": CONTEXT,
            "reference": REFERENCE,
        },
        {"use_reference": True},
        f"How long do cats sleep?\n\nContext:\n{CONTEXT}\n\nReference:\n{REFERENCE}",
    ),
    (
        "pairwise_summarization_quality_input",
        {
            "prediction": RESPONSE,
            "baseline_prediction": BASELINE,
            "instruction": INSTRUCTION,
            "context": CONTEXT,
            "reference": REFERENCE,  # not shown: use_reference is off
        },
        {},
        f"{INSTRUCTION}\n\nContext:\n{CONTEXT}",
    ),
    (
        "pairwise_question_answering_quality_input",
        {
            "prediction": RESPONSE,
            "baseline_prediction": BASELINE,
            "instruction": "How long do cats sleep?",
            "context": CONTEXT,
        },
        {},
        f"How long do cats sleep?\n\nContext:\n{CONTEXT}",
    ),
]

EVALD_ONLY = [
    ("summarization_helpfulness_input", {"prediction": RESPONSE, "context": CONTEXT}),
    ("question_answering_relevance_input", {"prediction": RESPONSE, "instruction": "Why?"}),
    ("question_answering_helpfulness_input", {"prediction": RESPONSE, "instruction": "Why?"}),
    ("question_answering_correctness_input", {"prediction": RESPONSE, "instruction": "Why?"}),
]


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeJudge]:
    with running(FakeJudge(default=lambda prompt: VERDICT)) as judge:
        yield judge


@pytest.fixture(scope="module")
def server() -> Iterator[ServerThread]:
    with http_serving() as running_server:
        yield running_server


@pytest.fixture
def channel(server: ServerThread) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(server.address) as ch:
        yield ch


def metric_input(field: str, instance: dict[str, str], spec: dict[str, Any]) -> Any:
    name = "".join(part.title() for part in field.removesuffix("_input").split("_"))
    return getattr(m, f"{name}Input")(
        metric_spec=getattr(m, f"{name}Spec")(**spec),
        instance=getattr(m, f"{name}Instance")(**instance),
    )


def evaluate(channel: grpc.Channel, field: str, metric: Any, **autorater: Any) -> Any:
    request = m.EvaluateInstancesRequest(
        location="projects/p/locations/l",
        autorater_config=m.AutoraterConfig(**autorater),
        **{field: metric},
    )
    response = stub(channel).EvaluateInstances(request, timeout=30)
    return getattr(response, response.WhichOneof("evaluation_results"))


def schema_properties(call: Call) -> set[str]:
    """The properties of the response schema the judge was sent (structured output)."""
    if call.protocol == "gemini":
        schema = call.body["generationConfig"]["responseJsonSchema"]
    else:
        schema = call.body["response_format"]["json_schema"]["schema"]
    return set(schema["properties"])


@pytest.mark.parametrize("backend", ["gemini", "openai"])
@pytest.mark.parametrize(("field", "instance", "spec", "user_input"), VERTEX_SDK_CASES)
def test_vertex_sdk_prompt_is_the_published_template_filled(
    channel: grpc.Channel,
    fake: FakeJudge,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    backend: str,
    field: str,
    instance: dict[str, str],
    spec: dict[str, Any],
    user_input: str,
) -> None:
    fake.reset()
    configure(monkeypatch, tmp_path, fake.url, backend, prompts="vertex-sdk")
    template = sdk_templates()[field]
    metric = metric_input(field, instance, spec)
    if "baseline_prediction" in instance:
        normal, flipped = (
            template.format(prompt=user_input, response=b, baseline_model_response=a)
            for a, b in [(BASELINE, RESPONSE), (RESPONSE, BASELINE)]
        )
        result = evaluate(channel, field, metric, sampling_count=1, flip_enabled=False)
        assert m.PairwiseChoice.Name(result.pairwise_choice) == "CANDIDATE"  # B = the candidate
        assert [call.prompt for call in fake.calls] == [normal]
        fake.reset()
        evaluate(channel, field, metric, sampling_count=2, flip_enabled=True)
        assert sorted(call.prompt for call in fake.calls) == sorted([normal, flipped])
        assert all(schema_properties(c) == {"explanation", "pairwise_choice"} for c in fake.calls)
    else:
        result = evaluate(channel, field, metric, sampling_count=1)
        assert (result.score, result.explanation) == (1.0, "fake verdict")
        (call,) = fake.calls
        assert call.prompt == template.format(prompt=user_input, response=instance["prediction"])
        assert schema_properties(call) == {"explanation", "score"}


@pytest.mark.parametrize(("field", "instance"), EVALD_ONLY)
def test_metrics_without_a_published_analogue_keep_evalds_prompt(
    channel: grpc.Channel,
    fake: FakeJudge,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    field: str,
    instance: dict[str, str],
) -> None:
    prompts = {}
    for prompt_set in ("evald", "vertex-sdk"):
        fake.reset()
        configure(monkeypatch, tmp_path, fake.url, prompts=prompt_set)
        evaluate(channel, field, metric_input(field, instance, {}), sampling_count=1)
        (call,) = fake.calls
        prompts[prompt_set] = call.prompt
    assert prompts["vertex-sdk"] == prompts["evald"]
    assert prompts["evald"].startswith("# Task\n")
    assert "## Evaluation steps\n" in prompts["evald"]


def test_default_set_is_evalds_own(
    channel: grpc.Channel, fake: FakeJudge, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake.reset()
    configure(monkeypatch, tmp_path, fake.url)
    evaluate(channel, "fluency_input", metric_input("fluency_input", {"prediction": "Hi."}, {}))
    assert fake.calls
    assert fake.calls[0].prompt.startswith("# Task\nYou are grading one AI-generated response")
    assert fake.calls[0].prompt != sdk_templates()["fluency_input"].format(
        prompt="", response="Hi."
    )


REQUIRED = {
    # metric input -> the instance fields the API reference marks required
    "fluency_input": ["prediction"],
    "coherence_input": ["prediction"],
    "safety_input": ["prediction"],
    "groundedness_input": ["prediction", "context"],
    "fulfillment_input": ["prediction", "instruction"],
    "summarization_quality_input": ["prediction", "context", "instruction"],
    "pairwise_summarization_quality_input": [
        "prediction",
        "baseline_prediction",
        "context",
        "instruction",
    ],
    "summarization_helpfulness_input": ["prediction", "context"],
    "summarization_verbosity_input": ["prediction", "context"],
    "question_answering_quality_input": ["prediction", "context", "instruction"],
    "pairwise_question_answering_quality_input": [
        "prediction",
        "baseline_prediction",
        "context",
        "instruction",
    ],
    "question_answering_relevance_input": ["prediction", "instruction"],
    "question_answering_helpfulness_input": ["prediction", "instruction"],
    "question_answering_correctness_input": ["prediction", "instruction"],
}
FIELDS = {"prediction", "context", "instruction", "reference"}
MISSING = [
    pytest.param(field, name, how, id=f"{field.removesuffix('_input')}-{name}-{how}")
    for field, names in REQUIRED.items()
    for name in names
    for how in (
        ("absent", "blank") if name not in ("prediction", "baseline_prediction") else ("absent",)
    )
]


def without(field: str, name: str, how: str) -> dict[str, str]:
    """A full instance of ``field`` but for ``name`` (left out, or whitespace)."""
    names = FIELDS | ({"baseline_prediction"} if field.startswith("pairwise_") else set())
    if field in ("fluency_input", "coherence_input", "safety_input"):
        names = {"prediction"}
    elif field == "groundedness_input":
        names = {"prediction", "context"}
    elif field == "fulfillment_input":
        names = {"prediction", "instruction"}
    instance = {n: f"some {n}" for n in names if n != name}
    if how == "blank":
        instance[name] = "  "
    return instance


@pytest.mark.parametrize(("field", "name", "how"), MISSING)
def test_required_field_over_grpc_and_http(
    server: ServerThread, channel: grpc.Channel, fake: FakeJudge, field: str, name: str, how: str
) -> None:
    """A missing required field is INVALID_ARGUMENT at its path, whatever the prompt set, and no
    judge is asked (none is even configured here)."""
    fake.reset()
    request = m.EvaluateInstancesRequest(
        location="projects/p/locations/l",
        **{field: metric_input(field, without(field, name, how), {})},
    )
    path = f"{field}.instance.{name}"
    with pytest.raises(grpc.RpcError) as raised:
        stub(channel).EvaluateInstances(request, timeout=30)
    error: Any = raised.value
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, error.details()
    status = rpc_status.from_call(error)
    assert status is not None
    bad = error_details_pb2.BadRequest()
    assert status.details[0].Unpack(bad)
    assert [v.field for v in bad.field_violations] == [path]

    body = json_format.MessageToDict(request)
    code, data = post(http_url(server), "/v1beta1/projects/p/locations/l:evaluateInstances", body)
    assert code == 400, data
    violations = [
        v["field"]
        for detail in data["error"]["details"]
        if detail["@type"] == "type.googleapis.com/google.rpc.BadRequest"
        for v in detail["fieldViolations"]
    ]
    assert violations == [path]
    assert fake.calls == []


def test_vertex_sdk_without_the_sdk_is_failed_precondition_naming_the_extra(
    channel: grpc.Channel, fake: FakeJudge, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def find_spec() -> None:
        return None  # google-cloud-aiplatform as if it were not installed

    prompt_sets.vertex_sdk_templates.cache_clear()
    monkeypatch.setattr(prompt_sets, "find_vertexai", find_spec)
    fake.reset()
    # A timeout no other test writes: the watched file's content is new, so it is reloaded.
    configure(monkeypatch, tmp_path, fake.url, prompts="vertex-sdk", timeout=4.25)
    try:
        metric = metric_input("fluency_input", {"prediction": "Hi."}, {})
        with pytest.raises(grpc.RpcError) as raised:
            evaluate(channel, "fluency_input", metric, sampling_count=1)
    finally:
        prompt_sets.vertex_sdk_templates.cache_clear()
    error: Any = raised.value
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "pip install 'evald[vertex-sdk-prompts]'" in error.details()
    assert fake.calls == []
