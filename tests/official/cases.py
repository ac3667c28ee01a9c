"""What the official-client run calls, as plain data shared by the test and its subprocess.

Imports nothing from the official SDK nor from ``evald_proto``, so both the pytest process and the
subprocess that drives the official GAPIC clients can read it.

Expected scores: for ``bleu`` and ``rouge`` the subprocess computes them with sacrebleu and
rouge-score called directly (``reference``); everything else is hand-worked here from the rules in
the section "Tool-call and trajectory rules" of docs/metrics/computed.md (and the handler
docstrings).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

LOCATION = "projects/p/locations/us-central1"
BOTH = ("v1beta1", "v1")
BETA = ("v1beta1",)


@dataclass(frozen=True)
class Case:
    """One EvaluateInstances call and the scores it must return, in instance order."""

    id: str
    member: str
    """The ``metric_inputs`` member, e.g. ``bleu_input``."""
    spec: dict[str, Any]
    instances: list[dict[str, Any]]
    expected: list[float] | None = None
    """Hand-worked scores; None when ``reference`` computes them."""
    reference: str | None = None
    """``bleu`` or ``rouge``: the reference library computes the expected scores."""
    versions: tuple[str, ...] = BOTH
    split: list[tuple[str, str]] = field(default_factory=list)
    """For rougeLsum with split_summaries: (prediction, reference) split one sentence per line by
    hand, as ``nltk.sent_tokenize`` would (its data cannot be downloaded here)."""


def pair(prediction: str, reference: str) -> dict[str, str]:
    return {"prediction": prediction, "reference": reference}


def payload(*calls: tuple[str, Any], content: str = "") -> str:
    """A tool-call payload string as the SDKs send it."""
    return json.dumps(
        {"content": content, "tool_calls": [{"name": n, "arguments": a} for n, a in calls]}
    )


def trajectory(*calls: tuple[str, str]) -> dict[str, Any]:
    return {"tool_calls": [{"tool_name": name, "tool_input": text} for name, text in calls]}


TEXTS = [
    pair("the cat sat on the mat", "the cat sat on the mat"),
    pair("the cat is on the mat", "there is a cat on the mat"),
    pair("the quick brown fox jumps over the lazy dog", "the quick brown dog jumps on the log"),
    pair("Running runners ran quickly.", "The runner runs quick."),
    pair("hello", "hello world"),
    pair("", "something"),
    pair("Paris is the capital of France.", "The capital of France is Paris."),
    # two lines: rougeLsum (per-line LCS union) differs from rougeL here
    pair("The cat sat.\nThe dog ran.", "The dog ran.\nThe cat sat."),
]

# Tool-call payloads (prediction, reference) and their hand-worked scores.
WEATHER = payload(("get_weather", {"city": "Paris", "unit": "C"}))
TOOL_PAIRS = [
    # identical single call
    pair(WEATHER, WEATHER),
    # same tool; keys {city, days} vs {city, unit}: 1 shared of 3; city "paris" ~ "Paris" loosely
    pair(payload(("get_weather", {"city": "paris", "days": 3})), WEATHER),
    # other tool name: nothing matches
    pair(payload(("get_time", {"city": "Paris"})), WEATHER),
    # malformed prediction: scores 0 everywhere
    pair("not json", WEATHER),
    # an extra call: 2 positions, first one perfect, second unpaired
    pair(
        payload(("get_weather", {"city": "Paris", "unit": "C"}), ("get_time", {})),
        WEATHER,
    ),
    # values as strings: "3" == 3 and "TRUE " == true only when not strict
    pair(payload(("f", {"n": "3", "flag": "TRUE "})), payload(("f", {"n": 3, "flag": True}))),
    # arguments as a JSON string; 1 == 1.0 in both modes
    pair(
        json.dumps({"tool_calls": [{"name": "f", "arguments": '{"a": 1}'}]}),
        payload(("f", {"a": 1.0})),
    ),
]

A = ("search", '{"q": "x"}')
A_SPACED = ("search", '{ "q":"x" }')
A_OTHER = ("search", '{"q": "X"}')
B = ("open", '{"id": 1}')
B_FLOAT = ("open", '{"id": 1.0}')
C = ("buy", "")
NOISE = ("noise", "{}")
TRAJECTORIES = [
    {"predicted_trajectory": trajectory(A, B, C), "reference_trajectory": trajectory(A, B, C)},
    {"predicted_trajectory": trajectory(A, C, B), "reference_trajectory": trajectory(A, B, C)},
    {"predicted_trajectory": trajectory(A, NOISE, B), "reference_trajectory": trajectory(A, B)},
    {"predicted_trajectory": trajectory(A), "reference_trajectory": trajectory(A, B)},
    {
        "predicted_trajectory": trajectory(A_SPACED, B_FLOAT),
        "reference_trajectory": trajectory(A, B),
    },
    {"predicted_trajectory": trajectory(A_OTHER), "reference_trajectory": trajectory(A)},
    {"reference_trajectory": trajectory()},  # no prediction, empty reference
    {"predicted_trajectory": trajectory(), "reference_trajectory": trajectory(A)},
]
# One column per trajectory above.
TRAJECTORY_SCORES: dict[str, list[float]] = {
    "trajectory_exact_match": [1, 0, 0, 0, 1, 0, 1, 0],
    "trajectory_in_order_match": [1, 0, 1, 0, 1, 0, 1, 0],
    "trajectory_any_order_match": [1, 1, 1, 0, 1, 0, 1, 0],
    "trajectory_precision": [1, 1, 2 / 3, 1, 1, 0, 1, 0],
    "trajectory_recall": [1, 1, 1, 1 / 2, 1, 0, 1, 0],
}

LSUM_PREDICTION = "The cat sat on the mat. The dog barked loudly."
LSUM_REFERENCE = "The dog barked. A cat sat on a mat."


def rouge(case_id: str, spec: dict[str, Any], **extra: Any) -> Case:
    return Case(f"rouge/{case_id}", "rouge_input", spec, TEXTS, reference="rouge", **extra)


CASES = [
    Case(
        "exact_match",
        "exact_match_input",
        {},
        [pair("Paris", "Paris"), pair("Paris", "paris"), pair("", ""), pair("a ", "a")],
        expected=[1, 0, 1, 0],
    ),
    Case("bleu/default", "bleu_input", {}, TEXTS, reference="bleu"),
    Case(
        "bleu/effective_order", "bleu_input", {"use_effective_order": True}, TEXTS, reference="bleu"
    ),
    Case(
        "bleu/no_effective_order",
        "bleu_input",
        {"use_effective_order": False},
        TEXTS,
        reference="bleu",
    ),
    rouge("rouge1", {"rouge_type": "rouge1"}),
    rouge("rouge2", {"rouge_type": "rouge2"}),
    rouge("rougeL", {"rouge_type": "rougeL"}),
    rouge("rougeLsum", {"rouge_type": "rougeLsum"}),
    rouge("rougel-lowercase", {"rouge_type": "rougel"}),
    rouge("rougelsum-lowercase", {"rouge_type": "rougelsum"}),
    rouge("empty-type", {"rouge_type": ""}),  # documented default: rougeL
    rouge("rouge1-stemmer", {"rouge_type": "rouge1", "use_stemmer": True}),
    rouge("rougeL-stemmer", {"rouge_type": "rougeL", "use_stemmer": True}),
    Case(
        "rouge/rougeLsum-split_summaries",
        "rouge_input",
        {"rouge_type": "rougeLsum", "split_summaries": True},
        [pair(LSUM_PREDICTION, LSUM_REFERENCE)],
        reference="rouge",
        split=[
            (
                "The cat sat on the mat.\nThe dog barked loudly.",
                "The dog barked.\nA cat sat on a mat.",
            )
        ],
    ),
    Case(
        "tool_call_valid",
        "tool_call_valid_input",
        {},
        [
            {"prediction": WEATHER, "reference": WEATHER},
            {"prediction": "not json", "reference": ""},
            {"prediction": json.dumps({"content": "hi"})},  # no calls
            {"prediction": payload()},  # empty tool_calls
            {"prediction": payload(("f", {}))},
        ],
        expected=[1, 0, 0, 0, 1],
    ),
    Case(
        "tool_name_match", "tool_name_match_input", {}, TOOL_PAIRS, expected=[1, 1, 0, 0, 0, 1, 1]
    ),
    Case(
        "tool_parameter_key_match",
        "tool_parameter_key_match_input",
        {},
        TOOL_PAIRS,
        expected=[1, 1 / 3, 0, 0, 1 / 2, 1, 1],
    ),
    Case(
        "tool_parameter_kv_match/loose",
        "tool_parameter_kv_match_input",
        {"use_strict_string_match": False},
        TOOL_PAIRS,
        expected=[1, 1 / 3, 0, 0, 1 / 2, 1, 1],
    ),
    Case(
        "tool_parameter_kv_match/strict",
        "tool_parameter_kv_match_input",
        {"use_strict_string_match": True},
        TOOL_PAIRS,
        expected=[1, 0, 0, 0, 1 / 2, 0, 1],
    ),
    *[
        Case(name, f"{name}_input", {}, TRAJECTORIES, expected=scores, versions=BETA)
        for name, scores in TRAJECTORY_SCORES.items()
    ],
    Case(
        "trajectory_single_tool_use",
        "trajectory_single_tool_use_input",
        {"tool_name": "open"},
        [
            {"predicted_trajectory": trajectory(A, B)},
            {"predicted_trajectory": trajectory(A)},
            {},
            {"predicted_trajectory": trajectory(("Open", "{}"))},
        ],
        expected=[1, 0, 0, 0],
        versions=BETA,
    ),
]

EXTRA_CHECKS = [
    f"{name}-{version}"
    for version in BOTH
    for name in (
        "error/invalid_argument",
        "error/judge_without_judge",
        "error/pending_not_implemented",
        "metadata/routing_header",
    )
] + ["rubrics/invalid_argument-v1beta1", "rubrics/without_judge-v1beta1"]


def check_ids() -> list[str]:
    """Every check the subprocess reports on, in order."""
    return [f"{c.id}-{v}" for c in CASES for v in c.versions] + EXTRA_CHECKS
