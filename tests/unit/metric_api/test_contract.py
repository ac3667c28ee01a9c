"""Every ``Metric.metric_spec`` member has an evaluator; every predefined metric is defined."""

from __future__ import annotations

import pytest
from evald import api
from evald.metric_api.dispatch import evaluators
from evald.metric_api.instance import InstanceView
from evald.predefined.registry import registry

SPEC_MEMBERS = [f.name for f in api.messages.Metric.DESCRIPTOR.oneofs_by_name["metric_spec"].fields]


@pytest.mark.parametrize("member", SPEC_MEMBERS)
def test_every_spec_member_has_an_evaluator(member: str) -> None:
    assert member in evaluators()


@pytest.mark.parametrize("name", sorted(registry()))
def test_every_predefined_metric_is_defined(name: str) -> None:
    metric = registry()[name]
    assert metric.name == name
    assert metric.family in ("nemo", "fmeval", "vertex")
    assert len(metric.definition) > 40
    assert len({p.name for p in metric.parameters}) == len(metric.parameters)


def test_required_families_are_present() -> None:
    names = set(registry())
    assert {
        "nemo/string-check",
        "nemo/em",
        "nemo/f1",
        "nemo/accuracy",
        "nemo/bleu",
        "nemo/rouge",
        "nemo/tool-calling",
        "nemo/llm-judge",
        "fmeval/exact_match",
        "fmeval/quasi_exact_match",
        "fmeval/f1_over_words",
        "fmeval/factual_knowledge",
        "fmeval/classification_accuracy",
    } <= names


def test_instance_texts_json_and_variables() -> None:
    message = api.messages.EvaluationInstance()
    message.prompt.text = "q"
    part = message.response.contents.contents.add().parts
    part.add(text="a")
    part.add(text="hidden", thought=True)
    part.add(text="b")
    message.response.contents.contents.add().parts.add(text="c")
    message.other_data.map_instance["ctx"].text = "k"
    view = InstanceView(message)
    assert view.text("response") == "ab\nc"
    assert view.text("reference") is None
    assert "1 thought" in view.note()
    assert view.as_json["prompt"] == {"text": "q"}
    variables = view.variables()
    assert variables["ctx"] == "k"
    assert variables["item"]["reference"] == ""
    assert variables["sample"]["output_text"] == "ab\nc"
