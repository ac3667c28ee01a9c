"""The NeMo Evaluator API entry point of each NeMo metric (``nemo_params``, ``nemo_scores``),
against the reference libraries called directly (sacrebleu, rouge-score) and hand-worked
cases, with rows in NeMo's template context (``item``, ``sample``, the row's columns)."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
import sacrebleu
from evald.errors import InvalidArgument
from evald.metrics.catalog import builtin
from evald.metrics.instance import TemplateRow
from evald.metrics.named.nemo.llm_judge import parse_scores
from evald.metrics.params import Params
from rouge_score.rouge_scorer import RougeScorer
from sacrebleu.metrics.bleu import BLEU

PATH = "config.tasks.t.metrics.m.params"


def context(item: dict[str, Any], output: str, response: Any = None) -> dict[str, Any]:
    sample = {"output_text": output, "response": response}
    return {**item, **sample, "item": item, "sample": sample}


def scores(
    kind: str, params: dict[str, Any], item: dict[str, Any], output: str, response: Any = None
) -> dict[str, float]:
    metric = builtin().nemo[kind]
    values = metric.nemo_params(params, PATH)
    return metric.nemo_scores(
        Params(values, metric.parameters, PATH), TemplateRow(context(item, output, response))
    )


CASES = [
    # (type, params, row, output, expected scores)
    ("string-check", {"check": ["{{sample.output_text}}", "contains", "{{item.answer}}"]},
     {"answer": "Paris"}, "It is Paris.", {"string-check": 1.0}),
    ("string-check", {"left_template": "{{sample.output_text}}", "operation": "equals",
                      "right_template": "{{answer}}"},
     {"answer": "Paris"}, "paris", {"string-check": 0.0}),
    ("number-check", {"check": ["{{sample.output_text}}", "equals", "{{item.n}}"]},
     {"n": 4}, "The answer is 4.0", {"number-check": 1.0}),
    ("number-check", {"check": ["{{sample.output_text}}", "absolute difference", "{{item.n}}"],
                      "epsilon": 0.5},
     {"n": 4}, "3.6", {"number-check": 1.0}),
    ("em", {"ground_truth": "{{item.a}}"}, {"a": "The Cat!"}, "cat", {"em": 1.0}),
    ("em", {"reference": "{{item.a}}"}, {"a": "dog"}, "cat", {"em": 0.0}),
    ("f1", {"ground_truth": "{{item.a}}"}, {"a": "the black cat"}, "black cat sat",
     {"f1": 2 * (2 / 3 * 1.0) / (2 / 3 + 1.0)}),
    ("accuracy", {"ground_truth": "{{item.label}}"}, {"label": "pos"}, " pos\n", {"accuracy": 1.0}),
]  # fmt: skip


@pytest.mark.parametrize(("kind", "params", "item", "output", "expected"), CASES)
def test_scores(
    kind: str, params: dict[str, Any], item: dict[str, Any], output: str, expected: dict[str, float]
) -> None:
    found = scores(kind, params, item, output)
    assert found.keys() == expected.keys()
    for name, value in expected.items():
        assert found[name] == pytest.approx(value)


PAIRS = [
    ("the cat sat on the mat", "the cat is on the mat"),
    ("Paris", "Paris"),
    ("a completely different sentence here", "the cat is on the mat"),
    ("running dogs jump", "run dog jumping"),
]


@pytest.mark.parametrize(("output", "reference"), PAIRS)
def test_bleu_is_sacrebleu_sentence_bleu(output: str, reference: str) -> None:
    found = scores("bleu", {"references": ["{{item.ref}}"]}, {"ref": reference}, output)
    expected = BLEU(effective_order=True).sentence_score(output, [reference])
    assert found == {"sentence": pytest.approx(expected.score)}


def test_bleu_corpus_is_sacrebleu_corpus_bleu() -> None:
    metric = builtin().nemo["bleu"]
    values = metric.nemo_params({"references": "{{item.ref}}"}, PATH)
    params = Params(values, metric.parameters, PATH)
    rows = [TemplateRow(context({"ref": r}, o)) for o, r in PAIRS]
    expected = sacrebleu.corpus_bleu([o for o, _ in PAIRS], [[r for _, r in PAIRS]]).score
    assert metric.nemo_dataset_scores(params, rows) == {"corpus": pytest.approx(expected)}


@pytest.mark.parametrize(("output", "reference"), PAIRS)
def test_rouge_is_rouge_score_with_stemmer(output: str, reference: str) -> None:
    found = scores("rouge", {"ground_truth": "{{item.ref}}"}, {"ref": reference}, output)
    reference_scores = RougeScorer(
        ["rouge1", "rouge2", "rouge3", "rougeL"], use_stemmer=True
    ).score(reference, output)
    assert found == {
        "rouge_1_score": pytest.approx(reference_scores["rouge1"].fmeasure),
        "rouge_2_score": pytest.approx(reference_scores["rouge2"].fmeasure),
        "rouge_3_score": pytest.approx(reference_scores["rouge3"].fmeasure),
        "rouge_L_score": pytest.approx(reference_scores["rougeL"].fmeasure),
    }


def _completion(calls: list[dict[str, Any]]) -> dict[str, Any]:
    tool_calls = [
        {"type": "function", "function": {"name": c["name"], "arguments": json.dumps(c["args"])}}
        for c in calls
    ]
    return {"choices": [{"message": {"role": "assistant", "tool_calls": tool_calls}}]}


TRUTH = [{"function": {"name": "area", "arguments": {"base": 10, "height": 5}}}]
TOOL_CASES = [
    (_completion([{"name": "area", "args": {"height": 5, "base": 10}}]), (1.0, 1.0)),
    (_completion([{"name": "area", "args": {"base": 1, "height": 5}}]), (1.0, 0.0)),
    (_completion([{"name": "perimeter", "args": {"base": 10}}]), (0.0, 0.0)),
    ({"choices": [{"message": {"role": "assistant", "content": "no calls"}}]}, (0.0, 0.0)),
]


@pytest.mark.parametrize(("response", "expected"), TOOL_CASES)
def test_tool_calling_reads_the_chat_completion(
    response: dict[str, Any], expected: tuple[float, float]
) -> None:
    found = scores(
        "tool-calling",
        {"tool_calls_ground_truth": "{{ item.tool_calls | tojson }}"},
        {"tool_calls": TRUTH},
        "",
        response,
    )
    assert found == {
        "function_name_accuracy": expected[0],
        "function_name_and_args_accuracy": expected[1],
    }


BAD = [
    ("string-check", {}, f"{PATH}.check"),
    ("string-check", {"check": ["a", "equals", "b"], "operation": "equals"}, f"{PATH}.check"),
    ("string-check", {"left_template": "a", "operation": "equals"}, f"{PATH}.right_template"),
    ("bleu", {}, f"{PATH}.references"),
    ("bleu", {"references": ["x"], "typo": 1}, f"{PATH}.typo"),
    ("rouge", {"ground_truth": "a", "reference": "b"}, f"{PATH}.reference"),
    ("em", {"candidate": "x"}, f"{PATH}.ground_truth"),
    ("tool-calling", {}, f"{PATH}.tool_calls_ground_truth"),
    ("llm-judge", {"template": {"messages": [{"role": "user", "content": "x"}]}}, f"{PATH}.model"),
    ("llm-judge", {"model": {"api_endpoint": {"url": "http://j", "model_id": "m"}}},
     f"{PATH}.template"),
    ("llm-judge", {"model": "judge", "template": {"messages": [{"role": "user", "content": "x"}]},
                   "scores": {"s": {"type": "int", "parser": {"type": "regex", "pattern": "\\d"}}}},
     f"{PATH}.scores.s.parser.pattern"),
    ("llm-judge", {"model": "judge", "template": {"messages": [{"role": "user", "content": "x"}]},
                   "scores": {"s": {"type": "text", "parser": {"type": "json", "json_path": "s"}}}},
     f"{PATH}.scores.s.type"),
]  # fmt: skip


@pytest.mark.parametrize(("kind", "params", "field"), BAD)
def test_bad_params_name_their_field(kind: str, params: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        builtin().nemo[kind].nemo_params(params, PATH)
    assert caught.value.violations[0].field == field


REGEX = {"type": "regex", "pattern": r"SIMILARITY: (\d+)"}
PARSES = [
    ({"s": {"type": "int", "parser": REGEX}}, "Sure. SIMILARITY: 7", {"s": 7.0}),
    ({"s": {"type": "int", "parser": REGEX}}, "no score", {"s": math.nan}),
    ({"s": {"type": "float", "parser": {"type": "json", "json_path": "score"}}},
     '```json\n{"score": 0.25}\n```', {"s": 0.25}),
    ({"s": {"type": "int", "parser": {"type": "json", "json_path": "score"}}},
     '{"score": 2.5}', {"s": math.nan}),
    ({"ok": {"type": "bool", "parser": {"type": "json", "json_path": "ok"}},
      "n": {"type": "int", "parser": {"type": "json", "json_path": "n"}}},
     '{"ok": true, "n": 3}', {"ok": 1.0, "n": 3.0}),
    ({"llm-judge": {"type": "float", "parser": None}}, " 4.5 ", {"llm-judge": 4.5}),
]  # fmt: skip


@pytest.mark.parametrize(("spec", "answer", "expected"), PARSES)
def test_parse_scores(spec: dict[str, Any], answer: str, expected: dict[str, float]) -> None:
    found = parse_scores(spec, answer)
    assert found.keys() == expected.keys()
    for name, value in expected.items():
        if math.isnan(value):
            assert math.isnan(found[name])
        else:
            assert found[name] == value
