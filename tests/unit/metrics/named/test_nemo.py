"""NeMo metrics against NeMo Evaluator's own test cases, hand-worked edges, and the reference
libraries NeMo calls (sacrebleu, rouge-score) called directly.

Rows marked "nemo" are cases of packages/nemo_evaluator_sdk/tests/metrics/test_*.py in
NVIDIA-NeMo/nemo-platform (inputs and expected values copied as data); the others are worked by
hand from NeMo's metric code.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
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
    (["{{response}}", "==", "{{reference}}"], "hello", "hello", 1.0),  # nemo
    (["{{response}}", "!=", "{{reference}}"], "hello", "goodbye", 1.0),  # nemo
    (["{{response}}", "<>", "{{reference}}"], "hello", "goodbye", 1.0),  # nemo
    (["{{response}}", "<>", "{{reference}}"], "hello", "hello", 0.0),
    (["{{response}}", "equals", "{{reference}}"], "hello", "Hello", 0.0),  # nemo: case-sensitive
    (["{{response | trim}}", "equals", "{{reference | trim}}"], "hello", "  hello  ", 1.0),  # nemo
    (["{{response}}", "contains", "{{reference}}"], "hello world", "goodbye", 0.0),  # nemo
    (["{{response}}", "startswith", "{{reference}}"], "hello world", "world", 0.0),  # nemo
    (["{{response}}", "endswith", "{{reference}}"], "hello world", "world", 1.0),  # nemo
    (["{{response}}", " EQUALS ", "{{reference}}"], "a", "a", 1.0),  # evald: case, spaces
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
    ("the cat sat", ["the cat sat"], 100.0),  # nemo
    ("the cat", ["the cat"], 100.0),  # nemo
    ("dog barked", ["the cat"], 0.0),  # nemo
    ("a", ["a"], 100.0),  # nemo: one word, effective order
    ("the", ["the"], 100.0),  # effective order: corpus BLEU would give 0
    ("The cat sat on the mat.", ["The cat sat on the mat."], 100.0),  # nemo (> 90)
    ("The dog sat on the floor.", ["The cat sat on the mat."], None),  # nemo (< 100)
    ("the cat is on the mat", ["the cat sat on the mat"], None),
    ("The cat sat on the mat.", ["The cat sat on the mat.", "A cat was sitting on the mat."], None),
    ("completely different", ["the cat sat on the mat"], None),
    ("", ["the cat"], 0.0),
]


def _bleu_instance(candidate: str, references: list[str]) -> tuple[Params, InstanceView]:
    message = api.messages.EvaluationInstance()
    message.response.text = candidate
    for i, r in enumerate(references):
        message.other_data.map_instance[f"r{i}"].text = r
    metric: Any = builtin().named["nemo/bleu"]
    templates = [f"{{{{r{i}}}}}" for i in range(len(references))]
    return Params({"references": templates}, metric.parameters, "p"), InstanceView(message)


@pytest.mark.parametrize(("candidate", "references", "expected"), BLEU)
def test_bleu_is_sacrebleu_sentence_bleu(
    candidate: str, references: list[str], expected: float | None
) -> None:
    params, view = _bleu_instance(candidate, references)
    got = builtin().named["nemo/bleu"].score_named(params, view).score  # type: ignore[attr-defined]
    assert got == pytest.approx(sacrebleu.sentence_bleu(candidate, references).score)
    if expected is not None:
        assert got == pytest.approx(expected)


def test_corpus_bleu_keeps_the_first_reference_of_each_row() -> None:
    rows = [
        ("The cat sat on the mat.", ["The cat sat on the mat.", "x"]),
        ("The dog ran in the park.", ["The dog ran in a park.", "The dog ran in the park."]),
        ("the", ["the"]),
    ]
    metric = builtin().named["nemo/bleu"]
    params = _bleu_instance(*rows[0])[0]
    views = [_bleu_instance(c, r)[1] for c, r in rows]
    # Each row's templates are {{r0}}, {{r1}}...: the first row's two templates serve all.
    got = metric.dataset_scores(params, views[:2])["corpus_bleu"]
    expected = sacrebleu.corpus_bleu([c for c, _ in rows[:2]], [[r[0] for _, r in rows[:2]]])
    assert got == pytest.approx(expected.score)
    assert metric.dataset_scores(params, []) == {}


ROUGE = [
    ("running dogs", "run dog"),  # the Porter stemmer: rouge1 1.0
    ("the cat was found under the bed", "the cat was under the bed"),
    ("The quick brown fox jumps", "a quick brown dog jumped over"),
    ("", "the cat"),
]


@pytest.mark.parametrize(("reference", "candidate"), ROUGE)
@pytest.mark.parametrize("rouge_type", ["rouge1", "rouge2", "rougeL", "rouge_3_score"])
def test_rouge_is_rouge_score_with_the_stemmer(
    reference: str, candidate: str, rouge_type: str
) -> None:
    key = {"rouge_3_score": "rouge3"}.get(rouge_type, rouge_type)
    scorer = RougeScorer(["rouge1", "rouge2", "rouge3", "rougeL"], use_stemmer=True)
    expected = scorer.score(reference, candidate)
    got = score("nemo/rouge", {"rouge_type": rouge_type}, response=candidate, reference=reference)
    assert got == pytest.approx(expected[key].fmeasure)


def test_rouge_stems_and_explains_with_nemo_score_names() -> None:
    metric: Any = builtin().named["nemo/rouge"]
    message = api.messages.EvaluationInstance()
    message.response.text, message.reference.text = "run dog", "running dogs"
    outcome = metric.score_named(Params({}, metric.parameters, "p"), InstanceView(message))
    assert outcome.score == 1.0
    assert outcome.explanation == (
        "rouge_1_score: 1.0, rouge_2_score: 1.0, rouge_3_score: 0.0, rouge_L_score: 1.0"
    )


# (left, right) of NeMo's own number-check tests: "{{item.reference_answer | trim}}" against
# "{{output_text | trim}}", here the reference and the response.
LEFT, RIGHT = "{{reference | trim}}", "{{response | trim}}"
NAN = math.nan
NUMBERS = [
    # (reference, response, equals, not equals, >=, |a - b| <= 2)
    ("context 1.\n", "my reasoning 123 and final answer is 1 with more words", 1, 0, 1, 1),
    ("context 1.\n", "1.0", 1, 0, 1, 1),  # nemo: int equals float
    ("1", "my reasoning 123 and final answer is 1.2", 0, 1, 0, 1),  # nemo
    ("-0.123", "I first thought 123 but then my final answer is -0.123.", 1, 0, 1, 1),  # nemo
    ("0.123", "-0.123.", 0, 1, 1, 1),  # nemo
    ("-0.1", "I first thought 123 but then my final answer is -0.22.", 0, 1, 1, 1),  # nemo
    ("1.123", "-2.123.", 0, 1, 1, 0),  # nemo
    ("1", "23", 0, 1, 0, 0),  # nemo
    ("23", "1", 0, 1, 1, 0),  # nemo
    ("0", "my reasoning 123 and final answer is 2.2", 0, 1, 0, 0),  # nemo
    ("1", "no number here", NAN, NAN, NAN, NAN),  # nemo
    ("no number here", "1", NAN, NAN, NAN, NAN),  # nemo
    ("127.0.0.1", "1", NAN, NAN, NAN, NAN),  # several dots: no number
    ("The values are 10.5, -3.14, and .75.", "0.75", 1, 0, 1, 1),  # the last one, ".75"
]
OPERATION_GROUPS = [
    ("equals", "=="),
    ("not equals", "!=", "<>"),
    ("greater than or equal", ">=", "gte"),
]


def _number(reference: str, response: str, operation: str, epsilon: float | None) -> float:
    params: dict[str, Any] = {"check": [LEFT, operation, RIGHT]}
    if epsilon is not None:
        params["epsilon"] = epsilon
    return score("nemo/number-check", params, response=response, reference=reference)


def _same(got: float, expected: float) -> bool:
    return math.isnan(got) if math.isnan(expected) else got == expected


@pytest.mark.parametrize(("reference", "response", "eq", "ne", "ge", "near"), NUMBERS)
def test_number_check(
    reference: str, response: str, eq: float, ne: float, ge: float, near: float
) -> None:
    for operations, expected in zip(OPERATION_GROUPS, (eq, ne, ge), strict=True):
        for operation in operations:
            assert _same(_number(reference, response, operation, None), expected), operation
    assert _same(_number(reference, response, "absolute difference", 2), near)


@pytest.mark.parametrize(
    ("operation", "left", "right", "expected"),
    [
        ("gt", "4", "3", 1.0),  # nemo
        ("greater than", "3", "3", 0.0),
        (">", "3", "3", 0.0),
        ("lte", "3", "3", 1.0),  # nemo
        ("less than or equal", "4", "3", 0.0),
        ("<=", "3", "3", 1.0),
        ("lt", "2", "3", 1.0),  # nemo
        ("less than", "3", "3", 0.0),
        ("<", "2.5", "3", 1.0),
    ],
)
def test_number_check_orders(operation: str, left: str, right: str, expected: float) -> None:
    assert _number(left, right, operation, None) == expected


def test_number_check_tolerance() -> None:  # nemo: epsilon 0.25
    assert _number("3.0", "3.1", "absolute difference", 0.25) == 1.0
    assert _number("3.0", "3.4", "absolute difference", 0.25) == 0.0
    assert _number("3", "3", "equals", 0) == 1.0  # a zero epsilon passes, as in NeMo


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"check": [LEFT, "absolute difference", RIGHT]}, "epsilon"),  # nemo
        ({"check": [LEFT, "equals", RIGHT], "epsilon": 0.25}, "epsilon"),  # nemo
        ({"check": [LEFT, "not-supported", RIGHT]}, "check[1]"),  # nemo
        ({"check": [LEFT, "equals"]}, "check"),
        ({"check": [LEFT, "absolute difference", RIGHT], "epsilon": "2"}, "epsilon"),
    ],
)
def test_number_check_errors(params: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        score("nemo/number-check", params, response="1", reference="1")
    assert caught.value.violations[0].field.endswith(f"metric_spec_parameters.{field}")


def _call(name: str, arguments: Any) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "arguments": arguments}}


def _calls(*calls: tuple[str, Any], as_string: bool = True) -> str:
    return json.dumps([_call(n, json.dumps(a) if as_string else a) for n, a in calls])


def _completion(*calls: dict[str, Any]) -> str:
    return json.dumps({"choices": [{"message": {"role": "assistant", "tool_calls": list(calls)}}]})


AREA = {"base": 10, "height": 5}
TOOLS = [
    # (predicted, expected, name accuracy, name-and-args accuracy)
    (_completion(_call("sum", '{"x": 1}')), _calls(("sum", {"x": 1}), as_string=False), 1, 1),
    (_completion(_call("subtract", '{"x": 1}')), _calls(("sum", {"x": 1})), 0, 0),  # nemo
    (_completion(_call("sum", '{"x": 2}')), _calls(("sum", {"x": 1})), 1, 0),  # nemo
    (_completion(_call("sum", "{bad json")), _calls(("sum", {"x": 1})), 1, NAN),  # nemo
    (_completion(_call("other", "{bad")), _calls(("sum", {"x": 1})), 0, NAN),  # parsed first
    (  # nemo: a call without a name is skipped
        _completion({"function": {"arguments": '{"x": 1}'}}, _call("sum", '{"x": 1}')),
        _calls(("sum", {"x": 1})),
        1,
        1,
    ),
    (_completion(_call("sum", None)), _calls(("sum", {}), as_string=False), 1, 1),  # nemo
    (json.dumps({"choices": [{"message": {"content": "hi"}}]}), "[]", 1, 1),  # nemo: no calls
    (_completion(), _calls(("calculate_area", AREA)), 0, 0),  # nemo
    (  # nemo: order-insensitive
        _completion(_call("b", '{"y": 2}'), _call("a", '{"x": 1}')),
        _calls(("a", {"x": 1}), ("b", {"y": 2})),
        1,
        1,
    ),
    (_calls(("f", {"x": 1})), _calls(("f", {"x": 1})), 1, 1),
    (_calls(("F", {"x": 1})), _calls(("f", {"x": 1})), 0, 0),  # case-sensitive
    (_calls(("f", {"x": "1"})), _calls(("f", {"x": 1})), 1, 0),  # "1" is not 1
    (_calls(("f", {"x": 1.0})), _calls(("f", {"x": 1})), 1, 1),  # Python: 1 == 1.0
    (_calls(("f", {"x": True})), _calls(("f", {"x": 1})), 1, 1),  # Python: True == 1
    (_calls(("f", {"x": [1, 2.0]})), _calls(("f", {"x": [1.0, 2]})), 1, 1),
    (_calls(("f", {"a": 1, "b": 2})), _calls(("f", {"b": 2, "a": 1}), as_string=False), 1, 1),
    # Sets of names: a repeated call counts once; arguments are the last call's of the name.
    (_calls(("f", {})), _calls(("f", {}), ("f", {})), 1, 1),
    (_calls(("f", {"x": 1}), ("f", {"x": 2})), _calls(("f", {"x": 2})), 1, 1),
    (_calls(("f", {"x": 2}), ("f", {"x": 1})), _calls(("f", {"x": 2})), 1, 0),
    (json.dumps({"content": "", "tool_calls": None}), "[]", 1, 1),  # no calls either side
]


@pytest.mark.parametrize(("made", "expected", "names", "full"), TOOLS)
def test_tool_calling(made: str, expected: str, names: float, full: float) -> None:
    name_params = {"score": "function_name_accuracy"}
    assert score("nemo/tool-calling", name_params, response=made, reference=expected) == names
    got = score("nemo/tool-calling", None, response=made, reference=expected)
    assert _same(got, full)


@pytest.mark.parametrize(
    ("made", "expected", "field"),
    [
        ("{not json", "[]", "tool_calls"),
        ("[]", "{not json", "tool_calls_ground_truth"),
        (json.dumps({"choices": []}), "[]", "tool_calls"),  # nemo
        (json.dumps({"choices": [{}]}), "[]", "tool_calls"),  # nemo
        (json.dumps({"choices": "x"}), "[]", "tool_calls"),  # nemo
        ("[]", json.dumps([{"function": {"arguments": {}}}]), "tool_calls_ground_truth[0]"),
        ("[]", json.dumps([{"function": {"name": "f"}}]), "tool_calls_ground_truth[0]"),
        ("[]", json.dumps([{"name": "f", "arguments": {}}]), "tool_calls_ground_truth[0]"),
        ("[]", json.dumps("a string"), "tool_calls_ground_truth"),
    ],
)
def test_tool_calling_errors_name_the_parameter(made: str, expected: str, field: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        score("nemo/tool-calling", response=made, reference=expected)
    assert caught.value.violations[0].field.endswith(f"metric_spec_parameters.{field}")


def test_malformed_arguments_still_explain_the_name_accuracy() -> None:
    metric: Any = builtin().named["nemo/tool-calling"]
    message = api.messages.EvaluationInstance()
    message.response.text = _completion(_call("sum", "{bad"))
    message.reference.text = _calls(("sum", {"x": 1}))
    outcome = metric.score_named(Params({}, metric.parameters, "p"), InstanceView(message))
    assert math.isnan(outcome.score)
    assert outcome.explanation.startswith(
        "function_name_accuracy: 1.0, function_name_and_args_accuracy: nan"
    )


PEER_CALLS = json.loads(
    (Path(__file__).parent / "nemo_peer_tool_calls.json").read_text(encoding="utf-8")
)


@pytest.mark.parametrize("case", PEER_CALLS["cases"])
def test_tool_calling_values_recorded_from_nemo_itself(case: dict[str, Any]) -> None:
    """Values NeMo's own tool-calling code gave on generated cases (see the file's source)."""
    texts = {"response": case["response"], "reference": case["reference"]}
    names = score("nemo/tool-calling", {"score": "function_name_accuracy"}, **texts)
    assert names == case["function_name_accuracy"]
    full = score("nemo/tool-calling", None, **texts)
    expected = case["function_name_and_args_accuracy"]
    assert math.isnan(full) if expected is None else full == expected
