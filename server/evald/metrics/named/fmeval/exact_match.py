"""``fmeval/exact_match``: 1 when the response equals a target after stripping surrounding
whitespace."""

from __future__ import annotations

from evald.metrics.named.fmeval.targets import BestOverTargets


class ExactMatch(BestOverTargets):
    """1 when the response equals a target after stripping surrounding whitespace."""

    name = "fmeval/exact_match"
    definition = (
        "1 when `response.strip() == target.strip()` for some target (reference split on "
        "`<OR>`), else 0. Case and punctuation count. An empty `target_output_delimiter` is "
        "refused."
    )

    @staticmethod
    def compare(output: str, target: str) -> float:
        return float(output.strip() == target.strip())
