"""Reading rubric and verdict answers, combining samples, and the score rule (hand-worked)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from evald.errors import InvalidArgument
from evald.judges.output import OutputError
from evald.judging import rubrics
from evald.judging.rubrics import Generated, Verdict
from evald.metrics.judged import instruction_following
from evald.metrics.named.vertex.base import Labelled, claims_score, read_claims
from evald_proto.aiplatform.v1beta1 import evaluation_rubric_pb2 as rubric_pb2

RUBRICS_OK: list[tuple[str, list[Generated]]] = [
    ('{"rubrics": [{"description": "Is it short?"}]}', [Generated("Is it short?")]),
    ('```json\n{"rubrics": ["A?", "B?"]}\n```', [Generated("A?"), Generated("B?")]),
    (
        'Here you go: {"rubrics": [{"question": " C? ", "type": "format"}]} done',
        [Generated("C?", "format")],
    ),
    ('[{"description": "D?"}]', [Generated("D?")]),
    ('{"Rubrics": [{"description": "E?"}, {"description": "  "}]}', [Generated("E?")]),
    (
        '{"rubrics": [{"description": "F?", "type": "CONTENT", "importance": "HIGH"}]}',
        [Generated("F?", "CONTENT", "HIGH")],
    ),
]


@pytest.mark.parametrize(("text", "expected"), RUBRICS_OK)
def test_read_rubrics(text: str, expected: list[Generated]) -> None:
    assert rubrics.read_rubrics(text) == expected


IMPORTANCES = [
    ("HIGH", "HIGH"),
    ("high", "HIGH"),
    (" Medium. ", "MEDIUM"),
    ("IMPORTANCE_LOW", "LOW"),
    ("importance low", "LOW"),
    ("critical", None),
    ("IMPORTANCE_UNSPECIFIED", None),
    ("", None),
    (3, None),
    (None, None),
]


@pytest.mark.parametrize(("value", "expected"), IMPORTANCES)
def test_importance_is_read_leniently(value: Any, expected: str | None) -> None:
    assert rubrics.read_importance(value) == expected
    answer = json.dumps({"rubrics": [{"description": "A?", "importance": value}]})
    assert rubrics.read_rubrics(answer) == [Generated("A?", None, expected)]


def test_free_type_is_kept_and_bounded() -> None:
    long = "X" * (rubrics.MAX_TYPE_CHARS + 5)
    answer = json.dumps(
        {"rubrics": [{"description": "A?", "type": " Tone "}, {"description": "B?", "type": long}]}
    )
    first, second = rubrics.read_rubrics(answer)
    assert first.kind == "Tone"
    assert second.kind == "X" * rubrics.MAX_TYPE_CHARS


def test_generation_prompt_asks_for_type_and_importance() -> None:
    free = rubrics.format_rules()
    assert "UPPER_SNAKE_CASE" in free
    assert '"importance": "HIGH" | "MEDIUM" | "LOW"' in free
    assert "importance: HIGH" in free
    fixed = rubrics.format_rules(rubrics.QUESTION, ["format", "content"])
    assert "exactly one of: format, content." in fixed
    assert "UPPER_SNAKE_CASE" not in fixed
    assert '"importance"' in fixed
    schema = rubrics.GENERATION_SCHEMA["properties"]["rubrics"]["items"]
    assert schema["properties"]["importance"]["enum"] == ["HIGH", "MEDIUM", "LOW"]
    assert set(schema["required"]) == {"description", "type", "importance"}


RUBRICS_BAD = [
    "no json here",
    '{"answer": "yes"}',
    '{"rubrics": []}',
    '{"rubrics": [{"type": "x"}]}',
    '{"rubrics": [3]}',
    json.dumps({"rubrics": [f"Q{i}?" for i in range(rubrics.MAX_RUBRICS + 1)]}),
]


@pytest.mark.parametrize("text", RUBRICS_BAD)
def test_unreadable_rubrics(text: str) -> None:
    with pytest.raises(OutputError):
        rubrics.read_rubrics(text)


def test_ontology_types_are_checked_and_normalised() -> None:
    text = '{"rubrics": [{"description": "A?", "type": "FORMAT"}]}'
    assert rubrics.read_rubrics(text, ["format", "content"]) == [Generated("A?", "format")]
    with pytest.raises(OutputError):
        rubrics.read_rubrics('{"rubrics": [{"description": "A?", "type": "tone"}]}', ["format"])
    with pytest.raises(OutputError):
        rubrics.read_rubrics('{"rubrics": [{"description": "A?"}]}', ["format"])


def verdicts(*items: dict[str, Any]) -> str:
    return json.dumps({"verdicts": list(items)})


VERDICTS_OK: list[tuple[str, int, list[bool]]] = [
    (
        verdicts(
            {"rubric_id": "1", "verdict": "yes", "reasoning": "r1"},
            {"rubric_id": "2", "verdict": "no", "reasoning": "r2"},
        ),
        2,
        [True, False],
    ),
    # Out of order, ids in brackets, booleans and other spellings.
    (
        verdicts(
            {"id": "[2]", "passed": True},
            {"id": 1, "verdict": "Not met"},
            {"rubric_id": "3", "verdict": "PASS."},
        ),
        3,
        [False, True, True],
    ),
    # No ids at all, one entry per rubric: by position.
    (verdicts({"verdict": "no"}, {"verdict": 1}), 2, [False, True]),
    ('```json\n{"verdicts": [{"rubric_id": "1", "verdict": "yes"}]}\n```', 1, [True]),
]


@pytest.mark.parametrize(("text", "count", "expected"), VERDICTS_OK)
def test_read_verdicts(text: str, count: int, expected: list[bool]) -> None:
    assert [v.passed for v in rubrics.read_verdicts(text, count)] == expected


def test_reasoning_is_kept() -> None:
    text = verdicts({"rubric_id": "1", "verdict": "no", "reasoning": "too long"})
    assert rubrics.read_verdicts(text, 1) == [Verdict(False, "too long")]


VERDICTS_BAD = [
    ("not json", 1),
    ('{"verdicts": "yes"}', 1),
    (verdicts({"rubric_id": "1", "verdict": "yes"}), 2),  # a rubric has no verdict
    (verdicts({"rubric_id": "3", "verdict": "yes"}, {"rubric_id": "1", "verdict": "no"}), 2),
    (verdicts({"rubric_id": "1", "verdict": "maybe"}), 1),
    (verdicts({"rubric_id": "1", "verdict": "yes"}, {"rubric_id": "1", "verdict": "no"}), 2),
    (verdicts({"verdict": "yes"}), 2),  # no ids, wrong count
]


@pytest.mark.parametrize(("text", "count"), VERDICTS_BAD)
def test_unreadable_verdicts(text: str, count: int) -> None:
    with pytest.raises(OutputError):
        rubrics.read_verdicts(text, count)


Y, N = Verdict(True, "y"), Verdict(False, "n")
COMBINE = [
    ([[Y]], [True]),
    ([[Y], [N]], [False]),  # a tie is not met
    ([[Y, N], [Y, Y], [N, N]], [True, False]),
    ([[N, Y], [Y, Y], [Y, N], [N, N]], [False, False]),
]


@pytest.mark.parametrize(("samples", "expected"), COMBINE)
def test_majority_per_rubric(samples: list[list[Verdict]], expected: list[bool]) -> None:
    combined = rubrics.combine(samples)
    assert [v.passed for v in combined] == expected
    assert all(v.reasoning == ("y" if v.passed else "n") for v in combined)


def rubric(importance: str | None = None) -> Any:
    message: Any = rubric_pb2.Rubric()
    message.content.property.description = "x"
    if importance is not None:
        message.importance = rubric_pb2.Rubric.Importance.Value(importance)
    return message


SCORES = [
    # (importances, verdicts, hand-worked score)
    ([None, None, None], [True, False, True], 2 / 3),
    ([None, None], [False, False], 0.0),
    (["HIGH", "LOW", None], [True, False, True], (3 + 2) / (3 + 1 + 2)),
    (["LOW", "MEDIUM"], [True, False], 1 / 3),
    (["IMPORTANCE_UNSPECIFIED", "HIGH"], [True, False], 2 / 5),
]


@pytest.mark.parametrize(("importances", "passed", "expected"), SCORES)
def test_score_rule(importances: list[str | None], passed: list[bool], expected: float) -> None:
    items = [rubric(i) for i in importances]
    got = rubrics.score(items, [Verdict(p, "") for p in passed])
    assert got == pytest.approx(expected)


def test_generated_rubrics_are_messages_with_ids_types_and_importance() -> None:
    made = rubrics.make_rubrics([Generated("A?"), Generated("B?", "format", "LOW")])
    assert [(r.rubric_id, rubrics.rubric_text(r)) for r in made] == [("1", "A?"), ("2", "B?")]
    assert not made[0].HasField("type_")
    assert made[1].type_ == "format"
    assert not made[0].HasField("importance")
    assert made[1].importance == rubric_pb2.Rubric.Importance.LOW
    assert rubrics.weight(made[0]) == rubrics.DEFAULT_WEIGHT
    assert rubrics.weight(made[1]) == rubrics.WEIGHTS["LOW"]


def test_generated_importance_weighs_the_score() -> None:
    made = rubrics.make_rubrics(
        [Generated("A?", None, "HIGH"), Generated("B?", None, "LOW"), Generated("C?")]
    )
    got = rubrics.score(made, [Verdict(True, ""), Verdict(False, ""), Verdict(False, "")])
    assert got == pytest.approx(3 / (3 + 1 + 2))


def test_group_rubrics() -> None:
    group: Any = rubric_pb2.RubricGroup()
    with pytest.raises(InvalidArgument) as empty:
        rubrics.group_rubrics(group, "instance.rubric_groups['g']")
    assert empty.value.violations[0].field == "instance.rubric_groups['g'].rubrics"
    group.rubrics.add(rubric_id="a").content.property.description = "A?"
    group.rubrics.add(rubric_id="b")
    with pytest.raises(InvalidArgument) as textless:
        rubrics.group_rubrics(group, "g")
    assert textless.value.violations[0].field == "g.rubrics[1].content.property.description"
    del group.rubrics[1]
    assert [r.rubric_id for r in rubrics.group_rubrics(group, "g")] == ["a"]


def test_instruction_following_rubrics_cover_informational_accuracy() -> None:
    prompt = instruction_following.RECIPE.generation_prompt(
        [rubrics.Section("User prompt", "How many r's are in 'strawberry'?")]
    )
    assert "Informational accuracy" in prompt
    assert "correct, specific answer" in prompt
    assert "correctness" not in instruction_following.RECIPE.focus
    assert "wrong" in instruction_following.RECIPE.note


def test_verdict_messages_and_explanation() -> None:
    made = rubrics.make_rubrics([Generated("A?"), Generated("B?")])
    judged = rubrics.Judged(made, [Verdict(True, "ok"), Verdict(False, "missing")])
    first, second = judged.verdict_messages()
    assert first.verdict
    assert first.evaluated_rubric == made[0]
    assert first.reasoning == "ok"
    assert not second.verdict
    assert judged.explanation() == "1 of 2 rubrics met.\nNot met: [2] B? (missing)"


CLAIMS = [
    (["supported", "contradicted", "no_rad"], 0.5),
    (["no_rad"], 1.0),
    (["supported", "supported", "unsupported", "unsupported"], 0.5),
    (["unsupported"], 0.0),
]


@pytest.mark.parametrize(("labels", "expected"), CLAIMS)
def test_claims_score(labels: list[str], expected: float) -> None:
    assert claims_score([Labelled("s", label, "") for label in labels]) == expected


def test_read_claims() -> None:
    text = json.dumps(
        {"sentences": [{"sentence": "A.", "label": "Supported", "rationale": "said"}]}
    )
    assert read_claims(text) == [Labelled("A.", "supported", "said")]
    for bad in ('{"sentences": []}', '{"sentences": [{"sentence": "A.", "label": "meh"}]}'):
        with pytest.raises(OutputError):
            read_claims(bad)


def test_content_types() -> None:
    assert rubrics.content_type_name(0) == rubrics.QUESTION
    assert rubrics.content_type_name(1) == rubrics.PROPERTY
    assert rubrics.content_type_name(3) == rubrics.PYTHON
    assert rubrics.content_type_name(99) == rubrics.QUESTION
