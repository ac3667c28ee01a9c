"""evald's own prompts of the 14 predefined judge metrics: their structure, the fields they show,
required fields, and the filling of a published template."""

from __future__ import annotations

import re
from typing import Any

import pytest
from evald import api
from evald.errors import InvalidArgument
from evald.metrics.catalog import builtin
from evald.metrics.judged.defined import (
    DefinedJudgeMetric,
    JudgePrompt,
    fill_published,
    render_pairwise,
    render_pointwise,
)

from tests.published import sdk_templates

m: Any = api.messages
METRICS: dict[str, DefinedJudgeMetric] = {
    name: metric
    for name, metric in builtin().inputs.items()
    if isinstance(metric, DefinedJudgeMetric)
}
FIELDS = {
    "prediction": "RESPONSE-TEXT",
    "baseline_prediction": "BASELINE-TEXT",
    "instruction": "INSTRUCTION-TEXT",
    "context": "CONTEXT-TEXT",
    "reference": "REFERENCE-TEXT",
}
SECTIONS = [
    "# Task\n",
    "# Evaluation\n",
    "## Metric\n",
    "## Criteria\n",
    "## Rating rubric",
    "## Evaluation steps\n",
    "# Inputs\n",
    "# Output format\n",
]


def render(d: JudgePrompt, fields: dict[str, str], flipped: bool = False) -> str:
    return (
        render_pointwise(d, fields) if d.scale is not None else render_pairwise(d, fields, flipped)
    )


def test_all_fourteen() -> None:
    assert len(METRICS) == 14


@pytest.mark.parametrize("name", sorted(METRICS))
def test_structure(name: str) -> None:
    """Task, what is measured, criteria, rating rubric, evaluation steps, inputs, output format,
    in that order; every rubric answer and the scale appear; no general warning about length."""
    d = METRICS[name].prompt
    fields = {k: v for k, v in FIELDS.items() if k in ("prediction", "baseline_prediction")}
    fields.update({k: FIELDS[k] for k in (*d.required, *d.optional)})
    prompt = render(d, fields)
    positions = [prompt.index(section) for section in SECTIONS]
    assert positions == sorted(positions), name
    assert prompt.startswith("# Task\n")
    for value, meaning in d.rubric:
        assert f"- {value}: {meaning}\n" in prompt
    for i, step in enumerate(d.steps, 1):
        assert f"{i}. {step}\n" in prompt
    for criterion, text in d.criteria:
        assert f"- {criterion}: {text}\n" in prompt
    if d.scale is not None:
        assert f'"score": <{d.scale.describe()}>' in prompt
        assert f"## Rating rubric ({d.scale.describe()})\n" in prompt
        assert {v for v, _ in d.rubric} == {str(v) for v in d.scale.values or ()}
    else:
        assert '"pairwise_choice": "A" | "SAME" | "B"' in prompt
    assert "reward length" not in prompt
    assert "impartial" not in prompt


@pytest.mark.parametrize("name", sorted(METRICS))
def test_inputs_shown(name: str) -> None:
    """Required and optional fields are shown, in the order instruction, context, reference,
    response(s); the reference only with use_reference."""
    d = METRICS[name].prompt
    fields = dict(FIELDS)
    if d.scale is not None:
        del fields["baseline_prediction"]
    inputs = render(d, fields).split("# Inputs\n")[1].split("# Output format")[0]
    order = [
        inputs.index(f"## {label}\n") for label in ("User instruction", "Context", "Reference")
    ]
    assert order == sorted(order)
    if d.scale is None:
        assert "## Response A\nBASELINE-TEXT\n" in inputs
        assert "## Response B\nRESPONSE-TEXT\n" in inputs
        flipped = render(d, fields, True)
        assert "## Response A\nRESPONSE-TEXT\n" in flipped
    else:
        assert inputs.rstrip().endswith("## Response\nRESPONSE-TEXT")


@pytest.mark.parametrize("name", sorted(METRICS))
def test_fields_read(name: str) -> None:
    """What :meth:`DefinedJudgeMetric.fields` hands the prompt: the responses, the required and
    optional fields that are set, and the reference only with use_reference."""
    metric = METRICS[name]
    d = metric.prompt
    kind = metric.input_field or ""
    stem = "".join(p.title() for p in kind.removesuffix("_input").split("_"))
    instance_fields = getattr(m, f"{stem}Instance").DESCRIPTOR.fields_by_name
    instance = {k: v for k, v in FIELDS.items() if k in instance_fields}
    spec_class = getattr(m, f"{stem}Spec")
    for use_reference in (False, True):
        if use_reference and "use_reference" not in spec_class.DESCRIPTOR.fields_by_name:
            continue
        spec = spec_class(use_reference=True) if use_reference else spec_class()
        metric_input = getattr(m, f"{stem}Input")(
            metric_spec=spec, instance=getattr(m, f"{stem}Instance")(**instance)
        )
        got = metric.fields(metric_input, kind)
        expected = {"prediction", *d.required, *d.optional}
        if d.scale is None:
            expected.add("baseline_prediction")
        if use_reference:
            expected.add("reference")
        assert set(got) == expected


def test_required_field_names_its_path() -> None:
    metric = METRICS["summarization_quality_input"]
    metric_input = m.SummarizationQualityInput(
        instance=m.SummarizationQualityInstance(prediction="p", context="c")
    )
    with pytest.raises(InvalidArgument) as raised:
        metric.fields(metric_input, "summarization_quality_input")
    assert [v.field for v in raised.value.violations] == [
        "summarization_quality_input.instance.instruction"
    ]


def test_fill_published_maps_fields_and_flips() -> None:
    template = "U={prompt}|A={baseline_model_response}|B={response}"
    fields = {"prediction": "P", "baseline_prediction": "Q", "instruction": "I", "context": "C"}
    assert fill_published(template, fields, False) == "U=I\n\nContext:\nC|A=Q|B=P"
    assert fill_published(template, fields, True) == "U=I\n\nContext:\nC|A=P|B=Q"
    assert fill_published("{prompt}/{response}", {"prediction": "{prompt}"}, False) == "/{prompt}"


def sentences(text: str) -> set[str]:
    parts = re.split(r"(?<=[.:;!?])\s+|\n", text)
    return {" ".join(p.split()).lower() for p in parts if len(p.split()) >= 6}


def test_evalds_prompts_are_its_own_words() -> None:
    """No sentence of six words or more of a published template is in an evald prompt."""
    published = set().union(*(sentences(t) for t in sdk_templates().values()))
    assert len(published) > 50
    for name, metric in METRICS.items():
        d = metric.prompt
        fields = {"prediction": "x", "baseline_prediction": "y", "instruction": "z", "context": "c"}
        shared = sentences(render(d, fields)) & published
        assert not shared, f"{name}: {shared}"
