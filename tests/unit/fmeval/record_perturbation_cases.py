"""Records perturbation_cases.json from AWS FMEval itself; run by hand, never by the suite.

FMEval is not a dependency of evald (it pulls Ray, torch and more), so this script runs in a side
environment where ``fmeval`` is installed; the suite only reads the JSON it writes::

    python3 -m venv /tmp/fmevalvenv
    /tmp/fmevalvenv/bin/pip install --no-deps fmeval==1.2.3 numpy==2.4.6
    /tmp/fmevalvenv/bin/pip install ray==2.44.0   # fmeval.util imports ray at module level
    /tmp/fmevalvenv/bin/python tests/unit/fmeval/record_perturbation_cases.py

Keep the numpy version equal to evald's: the expected strings depend on numpy's Generator stream.
"""

from __future__ import annotations

import importlib.metadata
import json
from pathlib import Path
from typing import Any

from fmeval.transforms.semantic_perturbations import (  # type: ignore[import-not-found]
    AddRemoveWhitespace,
    ButterFinger,
    RandomUppercase,
)

OUT = Path(__file__).with_name("perturbation_cases.json")

TEXTS = [
    "A quick brown fox jumps over the lazy dog 10 times.",
    "",
    " ",
    "p",
    "P",
    "   multiple   spaces\tand\ttabs\nnew lines  ",
    "Hello, World! How's it going? (fine) [ok] {yes} ;:'\"",
    "0123456789 +-*/= 3.14159 -42 1e10",
    "Çé ß Ünïcödé naïve façade — ẞ İstanbul Kelvin \u212a Ω",
    "ALL CAPS SENTENCE WITH QWERTY KEYS",
    "MiXeD cAsE tExT",
    "日本語のテキストと English mixed",
    "emoji 😀 test 👍🏽 ok",
    "qwertyuiopasdfghjklzxcvbnm QWERTYUIOPASDFGHJKLZXCVBNM",
    "\u00a0non-breaking\u2003em space\u3000ideographic\u2028line sep\x0bvt\x0cff",
    "trailing space ",
    "What is the capital of France? Answer in one word.",
    (
        "Summarize the following article. The committee met on Tuesday to review the "
        "quarterly budget, which showed a 12% rise in spending on infrastructure and a "
        "modest decline in administrative costs. Several members raised concerns about "
        "the timeline for the new bridge, noting that the contractor had missed two "
        "deadlines already. The chair proposed a follow-up meeting in March, where the "
        "contractor would present a revised schedule. Meanwhile, the public comment "
        "period will remain open until the end of February, and residents are "
        "encouraged to submit feedback online or by mail.  Double  spaces, tabs\there, "
        "and a final line.\n"
    ),
]

# (seed, num_perturbations): FMEval's default pair (5, 5) plus others.
SEEDS = [(5, 5), (0, 1), (42, 3), (2**40 + 3, 5)]

PARAMS: dict[str, list[dict[str, float]]] = {
    "butter_finger": [
        {"perturbation_prob": 0.1},
        {"perturbation_prob": 0.0},
        {"perturbation_prob": 0.5},
        {"perturbation_prob": 1.0},
    ],
    "random_upper_case": [
        {"uppercase_fraction": 0.1},
        {"uppercase_fraction": 0.0},
        {"uppercase_fraction": 0.5},
        {"uppercase_fraction": 1.0},
    ],
    "whitespace_add_remove": [
        {"add_prob": 0.05, "remove_prob": 0.1},
        {"add_prob": 0.0, "remove_prob": 0.0},
        {"add_prob": 0.5, "remove_prob": 0.5},
        {"add_prob": 1.0, "remove_prob": 1.0},
    ],
}

CLASSES = {
    "butter_finger": ButterFinger,
    "random_upper_case": RandomUppercase,
    "whitespace_add_remove": AddRemoveWhitespace,
}


def transform(kind: str, params: dict[str, Any], seed: int) -> Any:
    n = params["num_perturbations"]
    keys = [f"out_{i}" for i in range(n)]
    return CLASSES[kind]("model_input", keys, seed=seed, **params)


def main() -> None:
    cases = []
    for kind, param_sets in PARAMS.items():
        for extra in param_sets:
            for seed, n in SEEDS:
                params = {**extra, "num_perturbations": n}
                for text in TEXTS:
                    # A fresh transform per case: FMEval seeds its generator in the constructor.
                    expected = transform(kind, params, seed).perturb(text)
                    cases.append(
                        {
                            "perturbation_type": kind,
                            "params": params,
                            "seed": seed,
                            "text": text,
                            "expected": expected,
                        }
                    )
    # One transform instance over successive records: what one Ray actor (or repeated
    # evaluate_sample calls on one algorithm object) sees.
    streams = []
    for kind, param_sets in PARAMS.items():
        params = {**param_sets[0], "num_perturbations": 5}
        shared = transform(kind, params, 5)
        streams.append(
            {
                "perturbation_type": kind,
                "params": params,
                "seed": 5,
                "texts": TEXTS,
                "expected": [shared.perturb(text) for text in TEXTS],
            }
        )
    versions = {name: importlib.metadata.version(name) for name in ("fmeval", "numpy")}
    document = {
        "source": (
            f"AWS FMEval {versions['fmeval']} from PyPI (fmeval.transforms.semantic_perturbations: "
            f"ButterFinger, RandomUppercase, AddRemoveWhitespace) with numpy {versions['numpy']}, "
            "run in a side environment by tests/unit/fmeval/record_perturbation_cases.py"
        ),
        "cases": cases,
        "streams": streams,
    }
    OUT.write_text(json.dumps(document, indent=1, ensure_ascii=True) + "\n", encoding="utf-8")
    print(f"{len(cases)} cases, {len(streams)} streams -> {OUT}")


if __name__ == "__main__":
    main()
