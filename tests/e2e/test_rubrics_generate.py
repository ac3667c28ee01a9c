"""GenerateInstanceRubrics end to end over gRPC and HTTP, against the local fake judge.

Rubrics come from the judge's (scripted) generation answer, as messages with ids 1, 2, ...,
type and importance; errors name the request field and cost no judge call.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from evald_proto.aiplatform.v1beta1 import evaluation_rubric_pb2 as rubric_pb2
from google.protobuf import json_format
from google.rpc import error_details_pb2, status_pb2

from tests.e2e.test_rubrics import GENERATED, smart
from tests.fakes.judge_config import configure
from tests.fakes.judge_server import FakeJudge, Reply, running
from tests.http_support import http_url, post
from tests.support import MESSAGES, ServerThread, serving, stub

m = MESSAGES["v1beta1"]
PROMPT = "PROMPT-TEXT List three rivers of France."
PATHS = ["/v1beta1/projects/p/locations/us-central1:generateInstanceRubrics",
         "/v1beta1:generateInstanceRubrics"]  # fmt: skip
WITH_IMPORTANCE = json.dumps(
    {
        "rubrics": [
            {"description": "Does the response list three rivers?", "type": "CONTENT",
             "importance": "high"},
            {"description": "Is every river in France?", "type": "FACTUAL_ACCURACY",
             "importance": "MEDIUM"},
            {"description": "Is the list formatted as bullets?", "type": "FORMAT",
             "importance": "somewhat"},
        ]
    }
)  # fmt: skip
KEY = "rubrics-test-key-4c1d"


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeJudge]:
    with running(FakeJudge(default=smart)) as judge:
        yield judge


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    with serving(data_dir=tmp_path_factory.mktemp("data"), http_port=0) as running_server:
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


def user(text: str, role: str = "user") -> dict[str, Any]:
    return {"role": role, "parts": [{"text": text}]}


def generate(channel: grpc.Channel, body: dict[str, Any], **kwargs: Any) -> Any:
    request = json_format.ParseDict(body, m.GenerateInstanceRubricsRequest())
    return stub(channel).GenerateInstanceRubrics(request, timeout=30, **kwargs)


def refused(channel: grpc.Channel, body: dict[str, Any], **kwargs: Any) -> tuple[Any, str]:
    """The error of a refused call and the field its BadRequest detail names ('' if none)."""
    with pytest.raises(grpc.RpcError) as raised:
        generate(channel, body, **kwargs)
    error: Any = raised.value
    trailers = dict(error.trailing_metadata() or ())
    field = ""
    if "grpc-status-details-bin" in trailers:
        status = status_pb2.Status.FromString(trailers["grpc-status-details-bin"])
        for detail in status.details:
            bad = error_details_pb2.BadRequest()
            if detail.Unpack(bad):
                field = bad.field_violations[0].field
    return error, field


def described(rubrics: Any) -> list[tuple[str, str, str, str]]:
    return [
        (
            r.rubric_id,
            r.content.property.description,
            r.type_,
            rubric_pb2.Rubric.Importance.Name(r.importance),
        )
        for r in rubrics
    ]


# Media ------------------------------------------------------------------------------------------

IMAGE = {"inline_data": {"mime_type": "image/png", "data": "iVBORw0KGgpjYXQ="}}


@pytest.mark.parametrize(
    "spec",
    [
        {"predefined_rubric_generation_spec": {"metric_spec_name": "general_quality_v1"}},
        {"rubric_generation_spec": {"prompt_template": "Rubrics for: {prompt}"}},
    ],
)
def test_an_image_in_the_prompt_reaches_the_judge(
    judge: FakeJudge, channel: grpc.Channel, spec: dict[str, Any]
) -> None:
    judge.script(WITH_IMPORTANCE)
    body = {"contents": [{"role": "user", "parts": [{"text": "Describe this:"}, IMAGE]}], **spec}
    assert len(generate(channel, body).generated_rubrics) == 3
    (sent,) = judge.calls
    assert "Describe this:\n[media 1: image/png]" in sent.prompt
    parts = sent.body["contents"][0]["parts"]
    assert parts[-2] == {"text": "[media 1: image/png]"}
    assert parts[-1]["inlineData"]["data"] == IMAGE["inline_data"]["data"]


def test_a_text_only_judge_refuses_the_image_naming_the_part(
    fake: FakeJudge, channel: grpc.Channel, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake.reset()
    configure(monkeypatch, tmp_path, fake.url, media_types=[])
    body = {
        "contents": [{"role": "user", "parts": [{"text": "Describe this:"}, IMAGE]}],
        "predefined_rubric_generation_spec": {"metric_spec_name": "general_quality_v1"},
    }
    error, field = refused(channel, body)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert field == "contents[0].parts[1].inline_data"
    assert "reads text only" in error.details()
    assert fake.calls == []


# Predefined specs --------------------------------------------------------------------------------


def test_predefined_spec(judge: FakeJudge, channel: grpc.Channel) -> None:
    judge.script(WITH_IMPORTANCE)
    body = {
        "location": "projects/p/locations/us-central1",
        "contents": [user(PROMPT)],
        "predefined_rubric_generation_spec": {
            "metric_spec_name": "instruction_following_v1",
            "metric_spec_parameters": {"guidelines": "Answer in French."},
        },
        # Ignored: the predefined spec takes precedence.
        "rubric_generation_spec": {"prompt_template": "IGNORED {prompt}"},
    }
    response = generate(channel, body)
    assert described(response.generated_rubrics) == [
        ("1", "Does the response list three rivers?", "CONTENT", "HIGH"),
        ("2", "Is every river in France?", "FACTUAL_ACCURACY", "MEDIUM"),
        ("3", "Is the list formatted as bullets?", "FORMAT", "IMPORTANCE_UNSPECIFIED"),
    ]
    assert not response.generated_rubrics[2].HasField("importance")
    (sent,) = judge.calls  # one generation call, no critique
    assert PROMPT in sent.prompt
    assert "IGNORED" not in sent.prompt
    assert "- Answer in French." in sent.prompt
    assert "Informational accuracy" in sent.prompt  # the instruction-following recipe
    assert '"importance": "HIGH" | "MEDIUM" | "LOW"' in sent.prompt


def test_multi_turn_contents(judge: FakeJudge, channel: grpc.Channel) -> None:
    body = {
        "contents": [user("FIRST-TURN hi"), user("MODEL-TURN hello", "model"), user(PROMPT)],
        "predefined_rubric_generation_spec": {"metric_spec_name": "multi_turn_general_quality_v1"},
    }
    response = generate(channel, body)
    assert [r.content.property.description for r in response.generated_rubrics] == GENERATED
    (sent,) = judge.calls
    assert "[user] FIRST-TURN hi\n[model] MODEL-TURN hello\n[user] " + PROMPT in sent.prompt


def test_agent_config_reaches_the_rubric_writer(judge: FakeJudge, channel: grpc.Channel) -> None:
    body = {
        "contents": [user(PROMPT)],
        "predefined_rubric_generation_spec": {"metric_spec_name": "tool_use_quality_v1"},
        "agent_config": {
            "developer_instruction": {"text": "AGENT-INSTRUCTION use the atlas"},
            "tools": {"tool": [{"function_declarations": [{"name": "search_atlas"}]}]},
        },
    }
    generate(channel, body)
    (sent,) = judge.calls
    assert "AGENT-INSTRUCTION use the atlas" in sent.prompt
    assert "search_atlas" in sent.prompt


# rubric_generation_spec ------------------------------------------------------------------------


def test_rubric_generation_spec(judge: FakeJudge, channel: grpc.Channel) -> None:
    body = {
        "contents": [user(PROMPT)],
        "rubric_generation_spec": {
            "prompt_template": "Write checks for: {prompt}",
            "rubric_content_type": "PROPERTY",
            "rubric_type_ontology": ["content", "style"],
            "model_config": {"generation_config": {"temperature": 0.25}},
        },
    }
    response = generate(channel, body)
    assert [(r.rubric_id, r.type_) for r in response.generated_rubrics] == [
        ("1", "content"), ("2", "content"), ("3", "content")
    ]  # fmt: skip
    (sent,) = judge.calls
    assert sent.prompt.startswith(f"Write checks for: {PROMPT}\n\n# Rubric rules\n")
    assert "exactly one of: content, style." in sent.prompt
    assert "statement of one property" in sent.prompt
    assert sent.body["generationConfig"]["temperature"] == 0.25


def test_template_without_prompt_gets_it_appended(judge: FakeJudge, channel: grpc.Channel) -> None:
    body = {
        "contents": [user(PROMPT)],
        "rubric_generation_spec": {"prompt_template": "Write strict checks."},
    }
    generate(channel, body)
    (sent,) = judge.calls
    assert sent.prompt.startswith(f"Write strict checks.\n\n# Inputs\n### User prompt\n{PROMPT}\n")


def test_empty_spec_uses_evald_prompt(judge: FakeJudge, channel: grpc.Channel) -> None:
    generate(channel, {"contents": [user(PROMPT)], "rubric_generation_spec": {}})
    (sent,) = judge.calls
    assert "### User prompt\n" + PROMPT in sent.prompt
    assert "UPPER_SNAKE_CASE" in sent.prompt  # a free type is asked for


# Errors ------------------------------------------------------------------------------------------

ERRORS = [
    # (request, code, field)
    ({"rubric_generation_spec": {}}, "INVALID_ARGUMENT", "contents"),
    ({"contents": [{"role": "user", "parts": [{"text": "  "}]}], "rubric_generation_spec": {}},
     "INVALID_ARGUMENT", "contents"),
    ({"contents": [user(PROMPT)]}, "INVALID_ARGUMENT", "rubric_generation_spec"),
    ({"contents": [user(PROMPT)], "predefined_rubric_generation_spec": {"metric_spec_name": "x"}},
     "INVALID_ARGUMENT", "predefined_rubric_generation_spec.metric_spec_name"),
    ({"contents": [user(PROMPT)],
      "predefined_rubric_generation_spec": {"metric_spec_name": "safety_v1"}},
     "INVALID_ARGUMENT", "predefined_rubric_generation_spec.metric_spec_name"),
    ({"contents": [user(PROMPT)],
      "predefined_rubric_generation_spec": {
          "metric_spec_name": "general_quality_v1", "metric_spec_parameters": {"tone": "x"}}},
     "INVALID_ARGUMENT", "predefined_rubric_generation_spec.metric_spec_parameters.tone"),
    ({"contents": [user(PROMPT)],
      "predefined_rubric_generation_spec": {"metric_spec_name": "general_quality_v1"},
      "agent_config": {"agent_id": "a"}},
     "INVALID_ARGUMENT", "agent_config"),
    ({"contents": [user(PROMPT)],
      "predefined_rubric_generation_spec": {"metric_spec_name": "multi_turn_tool_use_quality_v1"}},
     "INVALID_ARGUMENT", "agent_config"),
    ({"contents": [user(PROMPT)],
      "rubric_generation_spec": {"prompt_template": "{prompt} vs {response}"}},
     "INVALID_ARGUMENT", "rubric_generation_spec.prompt_template"),
    ({"contents": [user(PROMPT)],
      "predefined_rubric_generation_spec": {"metric_spec_name": "gecko_text2image_v1"}},
     "UNIMPLEMENTED", ""),
]  # fmt: skip


@pytest.mark.parametrize(("body", "code", "field"), ERRORS)
def test_errors_name_the_field(
    judge: FakeJudge, channel: grpc.Channel, body: dict[str, Any], code: str, field: str
) -> None:
    error, named = refused(channel, body)
    assert error.code().name == code, error.details()
    assert named == field
    if code == "UNIMPLEMENTED":
        assert "predefined_rubric_generation_spec.metric_spec_name" in error.details()
    assert judge.calls == []


def test_unreadable_answer_is_unavailable(judge: FakeJudge, channel: grpc.Channel) -> None:
    judge.script("no rubrics here", "still none", '{"rubrics": []}')
    error, _ = refused(channel, {"contents": [user(PROMPT)], "rubric_generation_spec": {}})
    assert error.code() == grpc.StatusCode.UNAVAILABLE
    assert "unreadable answer" in error.details()
    assert len(judge.calls) == 3  # the configured attempts


def test_no_judge_is_failed_precondition(
    channel: grpc.Channel, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("EVALD_JUDGE_CONFIG", str(tmp_path / "missing.json"))
    error, _ = refused(channel, {"contents": [user(PROMPT)], "rubric_generation_spec": {}})
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "judge" in error.details()


def test_caller_deadline_stops_the_call(judge: FakeJudge, channel: grpc.Channel) -> None:
    judge.script(Reply(text=WITH_IMPORTANCE, delay=2.0))
    request = m.GenerateInstanceRubricsRequest(rubric_generation_spec={})
    request.contents.add(role="user").parts.add(text=PROMPT)
    with pytest.raises(grpc.RpcError) as raised:
        stub(channel).GenerateInstanceRubrics(request, timeout=0.5)
    error: Any = raised.value
    assert error.code() == grpc.StatusCode.DEADLINE_EXCEEDED


def test_v1_has_no_such_method(channel: grpc.Channel) -> None:
    call = channel.unary_unary(
        "/google.cloud.aiplatform.v1.EvaluationService/GenerateInstanceRubrics",
        request_serializer=None,
        response_deserializer=None,
    )
    with pytest.raises(grpc.RpcError) as raised:
        call(b"", timeout=10)
    error: Any = raised.value
    assert error.code() == grpc.StatusCode.UNIMPLEMENTED


# HTTP --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", PATHS)
def test_http(judge: FakeJudge, server: ServerThread, path: str) -> None:
    judge.script(WITH_IMPORTANCE)
    body = {
        "contents": [user(PROMPT)],
        "predefinedRubricGenerationSpec": {"metricSpecName": "general_quality_v1"},
    }
    status, answer = post(http_url(server), path, body)
    assert status == 200, answer
    first, second, third = answer["generatedRubrics"]
    assert first == {
        "rubricId": "1",
        "content": {"property": {"description": "Does the response list three rivers?"}},
        "type": "CONTENT",
        "importance": "HIGH",
    }
    assert second["importance"] == "MEDIUM"
    assert "importance" not in third
    assert len(judge.calls) == 1


def test_http_error_shape(judge: FakeJudge, server: ServerThread) -> None:
    status, answer = post(http_url(server), PATHS[0], {"rubricGenerationSpec": {}})
    assert status == 400
    error = answer["error"]
    assert error["status"] == "INVALID_ARGUMENT"
    (bad,) = [d for d in error["details"] if d["@type"].endswith("google.rpc.BadRequest")]
    assert bad["fieldViolations"][0]["field"] == "contents"
    assert judge.calls == []


# Limits and keys -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    keys = tmp_path_factory.mktemp("keys") / "keys.toml"
    keys.write_text(f'[[keys]]\nname = "ci"\nkey = "{KEY}"\n', encoding="utf-8")
    with serving(http_port=0, auth_keys_file=keys, max_template_bytes=32) as running_server:
        yield running_server


def test_key_is_checked_before_any_work(judge: FakeJudge, guarded: ServerThread) -> None:
    body = {"contents": [user(PROMPT)], "rubric_generation_spec": {}}
    with grpc.insecure_channel(guarded.address) as channel:
        error, _ = refused(channel, body)
        assert error.code() == grpc.StatusCode.UNAUTHENTICATED
        status, _ = post(http_url(guarded), PATHS[0], body)
        assert status == 401
        assert judge.calls == []
        response = generate(channel, body, metadata=(("x-goog-api-key", KEY),))
    assert len(response.generated_rubrics) == 3


def test_template_size_limit(judge: FakeJudge, guarded: ServerThread) -> None:
    body = {"contents": [user(PROMPT)], "rubric_generation_spec": {"prompt_template": "x" * 33}}
    with grpc.insecure_channel(guarded.address) as channel:
        error, field = refused(channel, body, metadata=(("x-goog-api-key", KEY),))
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert field == "rubric_generation_spec.prompt_template"
    assert "max_template_bytes" in error.details()
    assert judge.calls == []
