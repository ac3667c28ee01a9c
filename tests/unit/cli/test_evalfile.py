"""Eval files (``evald evaluate -c``): what valid files mean, the one-line error of each invalid
one, and every assertion type's pass and fail cases."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from evald.cli import assertions, evalfile
from evald.cli.assertions import Assertion, SpecError
from evald.cli.evaluate import parse_metric

HERE = Path("/nowhere/evals.yaml")  # no data file is read unless a case names one
ROW = {"response": "a"}


def test_a_complete_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "rows.jsonl").write_text('{"response": "x", "reference": "x"}\n')
    monkeypatch.setenv("TARGET_KEY", "k")
    document = {
        "description": "qa",
        "data": "rows.jsonl",
        "defaultTest": {"vars": {"lang": "en"}, "assert": [{"contains": "x"}]},
        "tests": [
            {
                "description": "own",
                "vars": {"response": "y", "lang": "fr"},
                "assert": [{"type": "metric", "value": "rouge:rougeL", "threshold": 0.3}],
            }
        ],
        "metrics": ["bleu"],
        "judge": {"model": "judge-llm", "sampling_count": 1},
        "target": {
            "url": "http://m/v1",
            "model_id": "m",
            "prompt": "Q: {{question}}",
            "api_key_env": "TARGET_KEY",
        },
        "server": "localhost:50051",
        "threshold": 0.75,
    }
    found = evalfile.parse(document, tmp_path / "evals.yaml")
    assert [t.where for t in found.tests] == ["data[0]", "tests[0]"]
    assert found.tests[0].row == {"lang": "en", "response": "x", "reference": "x"}
    assert found.tests[1].row == {"lang": "fr", "response": "y"}
    assert [a.where for a in found.tests[1].assertions] == [
        "defaultTest.assert[0]",
        "tests[0].assert[0]",
    ]
    assert found.tests[1].description == "own"
    assert found.metrics == ("bleu", "rouge:rougeL")  # metric assertions' metrics are scored
    assert found.judge == evalfile.Judge("judge-llm", 1, None)
    assert found.target is not None
    assert (found.target.kind, found.target.format) == ("chat", "nim")
    assert (found.server, found.threshold, found.description) == ("localhost:50051", 0.75, "qa")


def test_files_are_read_as_yaml_or_json(tmp_path: Path) -> None:
    (tmp_path / "e.yaml").write_text("tests:\n  - vars: {response: a}\n    assert: [{equals: a}]\n")
    (tmp_path / "e.json").write_text(json.dumps({"tests": [{"vars": ROW}]}))
    assert evalfile.load(tmp_path / "e.yaml").tests[0].assertions[0].type == "equals"
    assert evalfile.load(tmp_path / "e.json").tests[0].row == ROW
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(SpecError, match=r"^file: not valid JSON"):
        evalfile.load(tmp_path / "bad.json")


def test_a_judge_by_name() -> None:
    found = evalfile.parse({"tests": [{"vars": ROW}], "judge": "gemini"}, HERE)
    assert found.judge == evalfile.Judge("gemini")
    config = found.judge.autorater_config()
    assert config.autorater_model == "gemini"
    assert not config.HasField("sampling_count")


INVALID: list[tuple[dict[str, Any], str]] = [
    # (document, the error: field path, then message)
    ({}, "file: no rows"),
    ({"test": []}, "test: unknown key"),
    ({"tests": {}}, "tests: must be a list"),
    ({"tests": [{"vars": ROW, "asserts": []}]}, "tests[0].asserts: unknown key"),
    (
        {"tests": [{"vars": ROW}, {"vars": ROW, "assert": [{"type": "containz", "value": "a"}]}]},
        "tests[1].assert[0].type: unknown assertion 'containz'",
    ),
    ({"tests": [{"vars": ROW, "assert": [{"containz": "a"}]}]}, "tests[0].assert[0].containz:"),
    ({"tests": [{"vars": ROW, "assert": [{"contains": "a", "equals": "a"}]}]}, "name one"),
    ({"tests": [{"vars": ROW, "assert": {"contains": "a"}}]}, "tests[0].assert: must be a list"),
    ({"tests": [{"vars": ROW, "assert": ["contains"]}]}, "tests[0].assert[0]: must be a mapping"),
    ({"tests": [{"vars": ROW, "assert": [{"contains": None}]}]}, "contains: contains needs"),
    ({"tests": [{"vars": ROW, "assert": [{"type": "equals"}]}]}, "[0].value: equals needs a text"),
    ({"tests": [{"vars": ROW, "assert": [{"regex": "("}]}]}, "regex: not a regular expression"),
    ({"tests": [{"vars": ROW, "assert": [{"is-json": "a"}]}]}, "is-json: is-json takes a list"),
    ({"tests": [{"vars": ROW, "assert": [{"metric": "bleu"}]}]}, "needs threshold"),
    ({"tests": [{"vars": ROW, "assert": [{"metric": "blue", "max": 1}]}]}, "unknown metric"),
    (
        {"tests": [{"vars": ROW, "assert": [{"metric": "bleu", "threshold": "high"}]}]},
        "tests[0].assert[0].threshold: must be a number",
    ),
    ({"tests": [{"vars": ROW, "assert": [{"contains": "a", "threshold": 1}]}]}, "takes no thresh"),
    ({"tests": [{"vars": ROW, "assert": [{"rubric": "polite", "max": 1}]}]}, ".max: a rubric"),
    ({"tests": [{"vars": ROW, "assert": [{"type": "rubric", "metric": "x"}]}]}, ".metric: unknown"),
    ({"defaultTest": {"asserts": []}, "tests": [{"vars": ROW}]}, "defaultTest.asserts: unknown"),
    ({"tests": [{"vars": "a"}]}, "tests[0].vars: must be a mapping"),
    ({"tests": [{"vars": ROW}], "metrics": "bleu"}, "metrics: must be a list"),
    ({"tests": [{"vars": ROW}], "metrics": ["bleu", "rouge:x:y", 3]}, "metrics[2]: must be"),
    ({"tests": [{"vars": ROW}], "metrics": ["exact_match:1"]}, "metrics[0]: exact_match takes"),
    ({"tests": [{"vars": ROW}], "threshold": 2}, "threshold: must be a number from 0 to 1"),
    ({"tests": [{"vars": ROW}], "judge": {"name": "x"}}, "judge.name: unknown key"),
    ({"tests": [{"vars": ROW}], "judge": {"sampling_count": 0}}, "judge.sampling_count:"),
    ({"tests": [{"vars": ROW}], "target": {"url": "http://m"}}, "target.model_id: required"),
    (
        {
            "tests": [{"vars": ROW}],
            "target": {"url": "u", "model_id": "m", "prompt": "p", "format": "claude"},
        },
        "target.format: one of gemini, nim, openai",
    ),
    (
        {"tests": [{"vars": ROW}], "target": {"model_id": "m", "prompt": "p"}},
        "target.url: required",
    ),
    (
        {
            "tests": [{"vars": ROW}],
            "target": {
                "url": "u",
                "model_id": "m",
                "prompt": "p",
                "api_key_env": "EVALD_TEST_UNSET_KEY",
            },
        },
        "target.api_key_env: EVALD_TEST_UNSET_KEY is not set",
    ),
    ({"data": "missing.jsonl"}, "data: missing.jsonl:"),
    ({"data": 3}, "data: must be a dataset file path"),
]


@pytest.mark.parametrize(("document", "error"), INVALID)
def test_invalid_files(document: dict[str, Any], error: str) -> None:
    with pytest.raises(SpecError) as raised:
        evalfile.parse(document, HERE)
    assert error in str(raised.value)
    assert "\n" not in str(raised.value)


PASSES: list[tuple[dict[str, Any], dict[str, Any], bool]] = [
    # (assertion, row, passed)
    ({"contains": "cat"}, {"response": "a cat sat"}, True),
    ({"contains": "Cat"}, {"response": "a cat sat"}, False),
    ({"icontains": "CAT"}, {"response": "a cat sat"}, True),
    ({"icontains": "dog"}, {"response": "a cat sat"}, False),
    ({"not-contains": "dog"}, {"response": "a cat sat"}, True),
    ({"type": "not-contains", "value": "cat"}, {"response": "a cat sat"}, False),
    ({"equals": "4"}, {"response": " 4\n"}, True),
    ({"equals": 4}, {"response": "4"}, True),  # a YAML number is compared as text
    ({"equals": "4"}, {"response": "4."}, False),
    ({"not-equals": "4"}, {"response": "5"}, True),
    ({"starts-with": "Yes"}, {"response": "\nYes, it is."}, True),
    ({"starts-with": "Yes"}, {"response": "No."}, False),
    ({"regex": r"^\d+$"}, {"response": "42"}, True),
    ({"regex": r"^\d+$"}, {"response": "4 2"}, False),
    ({"not-regex": "(?i)sorry"}, {"response": "Sorry, no."}, False),
    ({"is-json": None}, {"response": "[1, 2]"}, True),
    ({"type": "is-json"}, {"response": "{'a': 1}"}, False),
    ({"is-json": ["name", "age"]}, {"response": '{"name": "x", "age": 3}'}, True),
    ({"is-json": ["name", "age"]}, {"response": '{"name": "x"}'}, False),
    ({"is-json": ["name"]}, {"response": '["name"]'}, False),
    ({"not-is-json": None}, {"response": "plain"}, True),
    ({"contains": "{{expected}}"}, {"response": "it is Paris", "expected": "Paris"}, True),
    ({"icontains": "{{ expected }}"}, {"response": "it is paris", "expected": "Paris"}, True),
    ({"contains": "{{city.name}}"}, {"response": "Paris!", "city": {"name": "Paris"}}, True),
    ({"contains": "{{n}}"}, {"response": "it is 4", "n": 4}, True),
    ({"contains": "{{missing}}"}, {"response": "x"}, False),  # a missing field fails the row
    ({"contains": "a"}, {"prompt": "no response"}, False),
    ({"contains": "hi"}, {"response": {"text": "hi there"}}, True),  # an InstanceData object
]


@pytest.mark.parametrize(("raw", "row", "passed"), PASSES)
def test_text_assertions(raw: dict[str, Any], row: dict[str, Any], passed: bool) -> None:
    outcome = assertions.check_text(assertions.parse(raw, "a"), row)
    assert outcome.passed is passed, outcome.reason
    assert outcome.reason


def test_reasons_name_what_was_looked_for() -> None:
    row = {"response": "it is Paris", "expected": "Rome"}
    outcome = assertions.check_text(assertions.parse({"contains": "{{expected}}"}, "a"), row)
    assert outcome.reason == '"Rome" not found in the response'
    missing = assertions.check_text(assertions.parse({"equals": "{{answer}}"}, "a"), row)
    assert missing.reason == "the row has no field 'answer'"


SCORED: list[tuple[dict[str, Any], dict[str, Any], bool, str]] = [
    # (assertion, metric result, passed, reason)
    ({"metric": "bleu", "threshold": 0.3}, {"score": 0.5}, True, "score 0.5 >= 0.3"),
    ({"metric": "bleu", "threshold": 0.3}, {"score": 0.3}, True, "score 0.3 >= 0.3"),
    ({"metric": "bleu", "threshold": 0.3}, {"score": 0.2}, False, "score 0.2 < 0.3"),
    ({"metric": "bleu", "max": 0.1}, {"score": 0.2}, False, "score 0.2 > 0.1"),
    ({"metric": "bleu", "max": 0.1}, {"score": 0.0}, True, "score 0 <= 0.1"),
    (
        {"metric": "bleu", "threshold": 0.2, "max": 0.4},
        {"score": 0.3},
        True,
        "score 0.3 >= 0.2 and <= 0.4",
    ),
    ({"metric": "bleu", "threshold": 0}, {"score": None}, False, "bleu gave no score (NaN)"),
    (
        {"metric": "bleu", "threshold": 0},
        {"score": None, "error": {"code": "INVALID_ARGUMENT", "message": "no reference"}},
        False,
        "bleu failed: INVALID_ARGUMENT: no reference",
    ),
    (
        {"rubric": "polite"},
        {"score": 0.5, "explanation": "fairly"},
        True,
        "judge score 0.5 >= 0.5: fairly",
    ),
    ({"llm-rubric": "polite", "threshold": 0.8}, {"score": 0.6}, False, "judge score 0.6 < 0.8"),
]


@pytest.mark.parametrize(("raw", "result", "passed", "reason"), SCORED)
def test_scored_assertions(
    raw: dict[str, Any], result: dict[str, Any], passed: bool, reason: str
) -> None:
    outcome = assertions.check_scored(assertions.parse(raw, "a"), {"error": None, **result})
    assert (outcome.passed, outcome.reason) == (passed, reason)


def test_labels() -> None:
    def label(raw: dict[str, Any]) -> str:
        return assertions.parse(raw, "a").label

    assert label({"metric": "bleu", "threshold": 0.3}) == "bleu >= 0.3"
    assert label({"icontains": "{{reference}}"}) == 'icontains "{{reference}}"'
    assert label({"is-json": ["a", "b"]}) == "is-json with keys a, b"
    assert label({"llm-rubric": "x" * 50}).endswith('..." >= 0.5')


async def test_rubrics_reach_the_judge_as_a_variable() -> None:
    """A rubric's braces are never read as template variables: it travels as one."""
    sent: list[Any] = []

    async def evaluate(request: Any) -> Any:
        from evald import api

        sent.append(request)
        response = api.messages.EvaluateInstancesResponse()
        for score in (0.25, 0.9):
            response.metric_results.add().score = score
        return response

    checks = assertions.parse_list(
        [{"metric": "bleu", "threshold": 0.2}, {"rubric": 'Says {"ok": true} to {{name}}'}], "a"
    )
    metrics = [("bleu", parse_metric("bleu"))]
    row = {"response": "r", "name": "Ann"}
    record, outcomes = await assertions.check_row(evaluate, 7, row, checks, metrics)
    assert [o.passed for o in outcomes] == [True, True]
    assert record == {
        "row": 7,
        "input": row,
        "results": [{"metric": "bleu", "score": 0.25, "explanation": None, "error": None}],
    }
    (request,) = sent
    rubric = request.instance.other_data.map_instance["evald_rubric_0"].text
    assert rubric == 'Says {"ok": true} to Ann'
    template = request.metrics[1].pointwise_metric_spec.metric_prompt_template
    assert "{evald_rubric_0}" in template
    assert "{prompt}" not in template  # the row has none


FORMS: list[tuple[dict[str, Any], Assertion]] = [
    # (written form, what it means)
    ({"not-contains": "x"}, Assertion("contains", "x", "w", negate=True)),
    ({"type": "not-contains", "value": "x"}, Assertion("contains", "x", "w", negate=True)),
    ({"equals": 4.5}, Assertion("equals", "4.5", "w")),
    ({"is-json": None}, Assertion("is-json", None, "w")),
    ({"type": "is-json", "value": ["a"]}, Assertion("is-json", ("a",), "w")),
    ({"metric": "bleu", "threshold": 0.3}, Assertion("metric", "bleu", "w", threshold=0.3)),
    ({"type": "metric", "value": "bleu", "max": 1}, Assertion("metric", "bleu", "w", maximum=1)),
    ({"rubric": "polite"}, Assertion("rubric", "polite", "w", threshold=0.5)),
    ({"llm-rubric": "polite", "threshold": 0.8}, Assertion("rubric", "polite", "w", threshold=0.8)),
    ({"regex": "{{pattern}}"}, Assertion("regex", "{{pattern}}", "w")),  # compiled when checked
]


@pytest.mark.parametrize(("raw", "meant"), FORMS)
def test_assertion_forms(raw: dict[str, Any], meant: Assertion) -> None:
    assert assertions.parse(raw, "w") == meant
