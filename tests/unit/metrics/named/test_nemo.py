"""NeMo metrics against hand-worked cases and the reference libraries called directly."""

from __future__ import annotations

import json
from typing import Any

import pytest
import sacrebleu
from evald import api
from evald.errors import InvalidArgument
from evald.metrics.catalog import builtin
from evald.metrics.instance import InstanceView
from evald.metrics.params import Params
from rouge_score.rouge_scorer import RougeScorer

from tests.unit.metrics.named.helpers import score

CHECKS = [
    (["{{response}}", "equals", "{{reference}}"], "yes", "yes", 1.0),
    (["{{response}}", "equals", "{{reference}}"], "yes ", "yes", 0.0),  # no trimming
    (["{{response | trim}}", "equals", "{{reference}}"], "yes ", "yes", 1.0),
    (["{{response}}", "not equals", "{{reference}}"], "yes", "no", 1.0),
    (["{{response}}", "contains", "cat"], "the cat", "", 1.0),
    (["{{response}}", "contains", "Cat"], "the cat", "", 0.0),  # case-sensitive
    (["{{response}}", "not contains", "dog"], "the cat", "", 1.0),
    (["{{response}}", "startswith", "the"], "the cat", "", 1.0),
    (["{{response}}", "endswith", "the"], "the cat", "", 0.0),
    (["{{sample.output_text}}", "equals", "{{item.reference}}"], "a", "a", 1.0),  # NeMo names
]


@pytest.mark.parametrize(("check", "response", "reference", "expected"), CHECKS)
def test_string_check(check: list[str], response: str, reference: str, expected: float) -> None:
    params = {"check": check}
    assert score("nemo/string-check", params, response=response, reference=reference) == expected


BAD_CHECKS = [
    (["{{response}}", "matches", "x"], "check[1]"),
    (["{{nope}}", "equals", "x"], "check[0]"),  # undefined variable
    (["{{ ''.__class__.__mro__ }}", "equals", "x"], "check[0]"),  # sandboxed: no dunders
    (["{{ 'x' * 100000000 }}", "equals", "x"], "check[0]"),  # no huge repetitions
    (["{{response}}", "equals"], "check"),
]


@pytest.mark.parametrize(("check", "field"), BAD_CHECKS)
def test_string_check_errors(check: list[str], field: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        score("nemo/string-check", {"check": check}, response="r", reference="")
    assert caught.value.violations[0].field.endswith(field)


# (prediction, truth, em, f1): SQuAD normalisation, F1 over token multisets, worked by hand.
EM_F1 = [
    ("The Cat!", "cat", 1.0, 1.0),
    ("a big cat", "the small cat", 0.0, 0.5),  # [big, cat] vs [small, cat]: P 1/2, R 1/2
    ("cat cat", "cat", 0.0, 2 * 0.5 * 1 / 1.5),  # multiset: overlap 1, P 1/2, R 1
    ("dog", "cat", 0.0, 0.0),
    ("the", "", 1.0, 1.0),  # both normalise to nothing
]


@pytest.mark.parametrize(("prediction", "truth", "em", "f1"), EM_F1)
def test_em_f1(prediction: str, truth: str, em: float, f1: float) -> None:
    assert score("nemo/em", response=prediction, reference=truth) == em
    assert score("nemo/f1", response=prediction, reference=truth) == pytest.approx(f1)


def test_em_templates() -> None:
    params = {"ground_truth": "{{answer}}", "prediction": "{{response}}"}
    with pytest.raises(InvalidArgument):  # 'answer' is not a variable of this instance
        score("nemo/em", params, response="x")


@pytest.mark.parametrize(
    ("prediction", "truth", "expected"),
    [("Yes", "Yes", 1.0), (" Yes\n", "Yes", 1.0), ("yes", "Yes", 0.0)],
)
def test_accuracy(prediction: str, truth: str, expected: float) -> None:
    assert score("nemo/accuracy", response=prediction, reference=truth) == expected


BLEU = [
    ("the cat sat on the mat", ["the cat sat on the mat"]),
    ("the cat is on the mat", ["the cat sat on the mat"]),
    ("a cat on a mat", ["the cat sat on the mat", "there is a cat on the mat"]),
    ("completely different", ["the cat sat on the mat"]),
]


@pytest.mark.parametrize(("candidate", "references"), BLEU)
def test_corpus_bleu_is_sacrebleu_on_0_100(candidate: str, references: list[str]) -> None:
    expected = sacrebleu.corpus_bleu([candidate], [[r] for r in references]).score
    templates = [f"{{{{r{i}}}}}" for i in range(len(references))]
    message = api.messages.EvaluationInstance()
    message.response.text = candidate
    for i, r in enumerate(references):
        message.other_data.map_instance[f"r{i}"].text = r
    metric: Any = builtin().named["nemo/bleu"]
    params = Params({"references": templates}, metric.parameters, "p")
    assert metric.score_named(params, InstanceView(message)).score == pytest.approx(expected)


@pytest.mark.parametrize("rouge_type", ["rouge1", "rouge2", "rougeL"])
def test_rouge_is_rouge_score(rouge_type: str) -> None:
    candidate, reference = "the cat was found under the bed", "the cat was under the bed"
    expected = RougeScorer([rouge_type]).score(reference, candidate)[rouge_type].fmeasure
    got = score("nemo/rouge", {"rouge_type": rouge_type}, response=candidate, reference=reference)
    assert got == pytest.approx(expected)


def _calls(*calls: tuple[str, dict[str, Any]], as_string: bool = True) -> str:
    return json.dumps(
        [
            {
                "type": "function",
                "function": {"name": n, "arguments": json.dumps(a) if as_string else a},
            }
            for n, a in calls
        ]
    )


TOOLS = [
    # (predicted, expected, name accuracy, name-and-args accuracy)
    (_calls(("f", {"x": 1})), _calls(("f", {"x": 1})), 1.0, 1.0),
    (_calls(("f", {"x": 1}), ("g", {})), _calls(("g", {}), ("f", {"x": 1})), 1.0, 1.0),  # order
    (_calls(("F", {"x": 1})), _calls(("f", {"x": 1})), 0.0, 0.0),  # case-sensitive
    (_calls(("f", {"x": 2})), _calls(("f", {"x": 1})), 1.0, 0.0),
    (_calls(("f", {"x": "1"})), _calls(("f", {"x": 1})), 1.0, 0.0),  # types count
    (_calls(("f", {"a": 1, "b": 2})), _calls(("f", {"b": 2, "a": 1}), as_string=False), 1.0, 1.0),
    (_calls(("f", {})), _calls(("f", {}), ("f", {})), 0.0, 0.0),  # multiset: one call missing
    (json.dumps({"content": "", "tool_calls": None}), "[]", 1.0, 1.0),  # no calls either side
]


@pytest.mark.parametrize(("made", "expected", "names", "full"), TOOLS)
def test_tool_calling(made: str, expected: str, names: float, full: float) -> None:
    name_params = {"score": "function_name_accuracy"}
    assert score("nemo/tool-calling", name_params, response=made, reference=expected) == names
    assert score("nemo/tool-calling", response=made, reference=expected) == full


def test_tool_calling_bad_json_names_the_parameter() -> None:
    with pytest.raises(InvalidArgument) as caught:
        score("nemo/tool-calling", response="{not json", reference="[]")
    assert caught.value.violations[0].field.endswith("metric_spec_parameters.tool_calls")
