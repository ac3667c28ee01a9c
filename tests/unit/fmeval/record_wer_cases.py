"""Records wer_cases.json from jiwer itself; run by hand, never by the suite.

jiwer is not a dependency of evald, so this script runs in a side environment; the suite only
reads the JSON it writes::

    python3 -m venv /tmp/jiwervenv
    /tmp/jiwervenv/bin/pip install "jiwer>=3.0.5,<4"   # the range FMEval 1.2.3 requires
    /tmp/jiwervenv/bin/python tests/unit/fmeval/record_wer_cases.py

Each case is what Hugging Face evaluate's ``wer`` metric returns for the pairs (the metric FMEval
loads): per pair jiwer's ``compute_measures(reference, prediction)``, then the sum of
substitutions, deletions and insertions over the sum of substitutions, deletions and hits. The
metric itself is not run because ``evaluate.load`` fetches its script from the Hugging Face hub.
"""

from __future__ import annotations

import importlib.metadata
import json
import random
from pathlib import Path
from typing import Any

import jiwer  # type: ignore[import-not-found]

OUT = Path(__file__).with_name("wer_cases.json")

HAND = [
    (
        ["this is the prediction", "there is an other sample"],
        ["this is the reference", "there is another one"],
    ),
    (["a b c"], ["a b"]),
    (["a b"], ["a\tb"]),
    (["a b"], ["a\t\tb"]),
    (["a b"], ["  a  b "]),
    ([""], ["a b"]),
    (["   "], ["a b"]),
    (["a b"], ["a\u00a0b"]),
    (["a b"], ["a\u00a0\u00a0b"]),
    (["a b"], ["a\nb"]),
    (["a b"], ["a \nb"]),
    (["The Cat sat."], ["the cat sat"]),
    (["x y z", "a b c d", "q"], ["a b c", "a b c", "a b c"]),
    (["the cat the cat"], ["cat the cat the"]),
    ([""], [""]),
    (["a"], [" \t "]),
]

VOCAB = ["the", "cat", "sat", "on", "mat", "The", "dog", "a", "ran", "mat.", "é", "日本"]
SPACES = [" ", " ", " ", "  ", "\t", "\n", " \t", "\u00a0", "\u3000", "\r\n"]


def noisy(rng: random.Random, n: int) -> str:
    text = "".join(rng.choice(VOCAB) + rng.choice(SPACES) for _ in range(n))
    return rng.choice(["", " ", "\n"]) + text


def hf_wer(predictions: list[str], references: list[str]) -> dict[str, Any]:
    incorrect = total = 0
    try:
        for prediction, reference in zip(predictions, references, strict=True):
            m = jiwer.compute_measures(reference, prediction)
            incorrect += m["substitutions"] + m["deletions"] + m["insertions"]
            total += m["substitutions"] + m["deletions"] + m["hits"]
    except ValueError as exc:
        return {"error": str(exc)}
    return {"expected": incorrect / total}


def main() -> None:
    rng = random.Random(20)
    cases = [(list(p), list(r)) for p, r in HAND]
    for _ in range(300):
        pairs = rng.randint(1, 6)
        references = [noisy(rng, rng.randint(1, 8)) for _ in range(pairs)]
        predictions = [noisy(rng, rng.randint(0, 9)) for _ in range(pairs)]
        cases.append((predictions, references))
    out = {
        "source": (
            f"jiwer {importlib.metadata.version('jiwer')} compute_measures, combined as Hugging "
            "Face evaluate's wer metric, by tests/unit/fmeval/record_wer_cases.py"
        ),
        "cases": [{"predictions": p, "references": r, **hf_wer(p, r)} for p, r in cases],
    }
    OUT.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
