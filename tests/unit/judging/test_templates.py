"""Filling metric prompt templates from instances."""

from __future__ import annotations

import pytest
from evald.errors import InvalidArgument
from evald.judging import templates

FILL = [
    ("Rate {response} for {prompt}.", {"prompt": "Q", "response": "R"}, "Rate R for Q."),
    ('Answer as {"score": 1}: {response}', {"response": "x"}, 'Answer as {"score": 1}: x'),
    ("{a}{a}", {"a": "1", "unused": "2"}, "11"),
    ("no variables", {}, "no variables"),
    ("{r}", {"r": "contains {prompt} literally"}, "contains {prompt} literally"),  # not re-expanded
]


@pytest.mark.parametrize(("template", "values", "expected"), FILL)
def test_fill(template: str, values: dict[str, str], expected: str) -> None:
    assert templates.fill(template, values, "p") == expected


def test_missing_variable_names_it_and_the_field() -> None:
    with pytest.raises(InvalidArgument) as err:
        templates.fill(
            "{prompt} {response}", {"prompt": "x"}, "pointwise_metric_input.instance.json_instance"
        )
    assert err.value.violations[0].field == "pointwise_metric_input.instance.json_instance"
    assert "'response'" in err.value.violations[0].description


JSON_INSTANCES = [
    ('{"response": "hi", "n": 3, "tags": ["a"]}', {"response": "hi", "n": "3", "tags": '["a"]'}),
    ("{}", {}),
]


@pytest.mark.parametrize(("text", "expected"), JSON_INSTANCES)
def test_json_variables(text: str, expected: dict[str, str]) -> None:
    assert templates.json_variables(text, "p") == expected


@pytest.mark.parametrize("text", ["not json", "[1, 2]", '"s"'])
def test_json_instance_must_be_an_object(text: str) -> None:
    with pytest.raises(InvalidArgument):
        templates.json_variables(text, "p")
