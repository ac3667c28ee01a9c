"""rouge: ROUGE F-measure of the prediction against its reference (Google's rouge-score).

The score is ``RougeScorer([rouge_type], use_stemmer=..., split_summaries=...)
.score(target=reference, prediction=prediction)[rouge_type].fmeasure``. ``rouge_type`` is matched
case-insensitively; empty means :data:`DEFAULT_ROUGE_TYPE`. With ``split_summaries`` (which only
``rougeLsum`` reads) sentences are split by :mod:`evald.metrics.text.sentences`, the same
splitting rouge-score gets from NLTK, but without NLTK's downloadable data.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from rouge_score.rouge_scorer import RougeScorer

from evald.errors import InvalidArgument
from evald.metrics.base import ComputedMetric
from evald.metrics.text.sentences import split_sentences

ROUGE_TYPES = (*(f"rouge{n}" for n in range(1, 10)), "rougeL", "rougeLsum")
"""The ROUGE types rouge-score computes and the Vertex AI SDKs send, canonical spelling."""

DEFAULT_ROUGE_TYPE = "rougeL"
"""Used when ``rouge_type`` is empty, as it is from the stable SDK's bare ``rouge`` metric, or
plain ``rouge``, as the genai SDK sends for a metric named ``rouge`` (neither the SDKs nor the
API reference name a default)."""

_BY_LOWER = {name.lower(): name for name in ROUGE_TYPES}


@dataclass(frozen=True)
class RougeOptions:
    """The parsed ``RougeSpec``."""

    rouge_type: str
    use_stemmer: bool
    split_summaries: bool


class _Scorers(threading.local):
    """rouge-score scorers per thread, by (rouge type, stemmer): never shared across threads."""

    def __init__(self) -> None:
        self.by_key: dict[tuple[str, bool], RougeScorer] = {}


class Rouge(ComputedMetric[RougeOptions]):
    """ROUGE-N (1..9), ROUGE-L and ROUGE-Lsum F-measure from rouge-score."""

    input_field = "rouge_input"
    result_field = "rouge_results"

    def __init__(self) -> None:
        self._scorers = _Scorers()

    def options(self, spec: Any, path: str) -> RougeOptions:
        requested: str = spec.rouge_type
        bare = requested.lower() in ("", "rouge")
        rouge_type = DEFAULT_ROUGE_TYPE if bare else _BY_LOWER.get(requested.lower())
        if rouge_type is None:
            raise InvalidArgument(
                f"{path}.rouge_type",
                f"unknown rouge_type {requested!r}; allowed (any letter case): "
                f"{', '.join(ROUGE_TYPES)}, or empty or 'rouge' for {DEFAULT_ROUGE_TYPE}",
            )
        return RougeOptions(rouge_type, bool(spec.use_stemmer), bool(spec.split_summaries))

    def score(self, instance: Any, options: RougeOptions, path: str) -> float:
        prediction: str = instance.prediction
        reference: str = instance.reference
        if options.split_summaries and options.rouge_type == "rougeLsum":
            prediction = _sentence_lines(prediction, f"{path}.prediction")
            reference = _sentence_lines(reference, f"{path}.reference")
        scores = self._scorer(options).score(target=reference, prediction=prediction)
        return float(scores[options.rouge_type].fmeasure)

    def _scorer(self, options: RougeOptions) -> RougeScorer:
        key = (options.rouge_type, options.use_stemmer)
        scorer = self._scorers.by_key.get(key)
        if scorer is None:
            # split_summaries stays off here: sentences were already put one per line, which is
            # what rougeLsum reads when rouge-score does not split them itself.
            scorer = RougeScorer([options.rouge_type], use_stemmer=options.use_stemmer)
            self._scorers.by_key[key] = scorer
        return scorer


def _sentence_lines(text: str, field: str) -> str:
    """``text`` with one sentence per line, as rougeLsum with ``split_summaries`` sees it.

    rouge-score splits with ``nltk.sent_tokenize`` and scores each sentence's tokens; without
    ``split_summaries`` it splits on ``\\n``. A newline inside a sentence only separates tokens
    (the ROUGE tokenizer drops every non-alphanumeric character), so it becomes a space and the
    sentences can be joined by newlines without changing any sentence's tokens.
    """
    try:
        sentences = split_sentences(text)
    except TimeoutError as exc:  # NLTK bounds its regular expressions' run time
        raise InvalidArgument(field, "text too hard to split into sentences") from exc
    return "\n".join(sentence.replace("\n", " ") for sentence in sentences)
