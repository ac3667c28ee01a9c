"""rouge: ROUGE F-measure of the prediction against its reference (Google's rouge-score).

Served as ``rouge_input``, ``rouge_spec``, the ``ROUGE`` computation type and NeMo Evaluator's
named metric ``nemo/rouge`` (its candidate and reference are Jinja2 templates over the instance;
it always stems, as NeMo's scorer does, and explains with NeMo's four scores).

The score is ``RougeScorer([rouge_type], use_stemmer=..., split_summaries=...)
.score(target=reference, prediction=prediction)[rouge_type].fmeasure``. ``rouge_type`` is matched
case-insensitively; empty means :data:`DEFAULT_ROUGE_TYPE`. With ``split_summaries`` (which only
``rougeLsum`` reads) sentences are split by :mod:`evald.metrics.text.sentences`, the same
splitting rouge-score gets from NLTK, but without NLTK's downloadable data. Scores are computed
by :mod:`evald.kernels.rouge`, which gives the same floats as rouge-score, faster
(``tests/unit/kernels`` and ``tests/unit/metrics/computed/test_rouge.py`` compare against
rouge-score).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from evald import api, kernels
from evald.errors import InvalidArgument
from evald.metrics.base import ComputedNamed, Outcome
from evald.metrics.computed.base import TextMetric
from evald.metrics.instance import InstanceView, TemplateRow
from evald.metrics.named.nemo.api_params import OUTPUT_TEXT, translate
from evald.metrics.params import Parameter, Params
from evald.metrics.text.jinja import render
from evald.metrics.text.sentences import split_sentences

ROUGE_TYPES = (*(f"rouge{n}" for n in range(1, 10)), "rougeL", "rougeLsum")
"""The ROUGE types rouge-score computes and the Vertex AI SDKs send, canonical spelling."""

DEFAULT_ROUGE_TYPE = "rougeL"
"""Used when ``rouge_type`` is empty, as it is from the stable SDK's bare ``rouge`` metric, or
plain ``rouge``, as the genai SDK sends for a metric named ``rouge`` (neither the SDKs nor the
API reference name a default)."""

_BY_LOWER = {name.lower(): name for name in ROUGE_TYPES}

NEMO_SCORES = {
    "rouge_1_score": "rouge1",
    "rouge_2_score": "rouge2",
    "rouge_3_score": "rouge3",
    "rouge_L_score": "rougeL",
}
"""The scores NeMo's rouge emits, by name, and the rouge-score type of each."""


@dataclass(frozen=True)
class RougeOptions:
    """The parsed ``RougeSpec``."""

    rouge_type: str
    use_stemmer: bool
    split_summaries: bool


class Rouge(TextMetric[RougeOptions], ComputedNamed):
    """ROUGE-N (1..9), ROUGE-L and ROUGE-Lsum F-measure from rouge-score."""

    input_field = "rouge_input"
    result_field = "rouge_results"
    spec_fields = ("rouge_spec",)
    computation_type = "ROUGE"
    name = "nemo/rouge"
    family = "nemo"
    definition = (
        "rouge-score F-measure with the Porter stemmer (`use_stemmer=True`, as NeMo's scorer: "
        "`run dog` against `running dogs` is 1 for rouge1), of the given `rouge_type` "
        "(rouge1..rouge9, rougeL, rougeLsum, or NeMo's score names rouge_1_score, "
        f"rouge_2_score, rouge_3_score, rouge_L_score; default {DEFAULT_ROUGE_TYPE}), 0-1. "
        "NeMo emits its four scores together; the explanation gives all four "
        "(`rouge_1_score`, `rouge_2_score`, `rouge_3_score`, `rouge_L_score`), the score is "
        "the chosen one."
    )
    parameters = (
        Parameter("rouge_type", "string", "ROUGE variant", DEFAULT_ROUGE_TYPE),
        Parameter("reference", "string", "Jinja2 template of the reference", "{{reference}}"),
        Parameter("candidate", "string", "Jinja2 template of the text scored", "{{response}}"),
    )
    score_range = "0..1"
    nemo_type = "rouge"
    nemo_score_names = tuple(NEMO_SCORES)

    def nemo_params(self, params: Mapping[str, Any], path: str) -> dict[str, Any]:
        names = {"ground_truth": "reference", "reference": "reference", "candidate": "candidate"}
        return translate(
            params, path, names, required=("reference",), defaults={"candidate": OUTPUT_TEXT}
        )

    def nemo_scores(self, params: Params, row: TemplateRow) -> dict[str, float]:
        variables = row.variables()
        candidate = render(params.string("candidate"), variables, params.field("candidate"))
        reference = render(params.string("reference"), variables, params.field("reference"))
        try:
            scores = _nemo_scorer(DEFAULT_ROUGE_TYPE).score(reference, candidate)
        except TimeoutError as exc:
            field = "candidate" if _splits(reference) else "reference"
            raise InvalidArgument(
                params.field(field), "text too hard to split into sentences"
            ) from exc
        return {name: scores[kind].fmeasure for name, kind in NEMO_SCORES.items()}

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

    def score_text(self, prediction: str, reference: str, options: RougeOptions) -> float:
        scorer = _scorer(options.rouge_type, options.use_stemmer, options.split_summaries)
        return scorer.score(reference, prediction)[options.rouge_type].fmeasure

    def score(self, instance: Any, options: RougeOptions, path: str) -> float:
        try:
            return self.score_text(instance.prediction, instance.reference, options)
        except TimeoutError as exc:  # NLTK bounds its sentence splitter's regular expressions
            field = "prediction" if _splits(instance.reference) else "reference"
            raise InvalidArgument(
                f"{path}.{field}", "text too hard to split into sentences"
            ) from exc

    def score_batch(
        self, instances: Sequence[Any], options: RougeOptions, path: str
    ) -> list[float]:
        # No field path per instance (2-4% of a 60-word pair); a failure is scored again one
        # instance at a time, to name the instance in the error.
        try:
            return _fmeasures(instances, options)
        except TimeoutError:
            return [self.score(i, options, f"{path}[{n}]") for n, i in enumerate(instances)]

    def score_view(self, instance: InstanceView, options: RougeOptions) -> float:
        prediction, reference = instance.require("response"), instance.require("reference")
        try:
            return self.score_text(prediction, reference, options)
        except TimeoutError as exc:
            field = "response" if _splits(reference) else "reference"
            raise InvalidArgument(
                f"{instance.path}.{field}", "text too hard to split into sentences"
            ) from exc

    def score_named(self, params: Params, instance: InstanceView) -> Outcome:
        variables = instance.variables()
        candidate = render(params.string("candidate"), variables, params.field("candidate"))
        reference = render(params.string("reference"), variables, params.field("reference"))
        requested = params.string("rouge_type")
        spec = api.messages.RougeSpec(rouge_type=NEMO_SCORES.get(requested, requested))
        options = self.options(spec, params.path)
        try:
            scores = _nemo_scorer(options.rouge_type).score(reference, candidate)
        except TimeoutError as exc:
            field = "candidate" if _splits(reference) else "reference"
            raise InvalidArgument(
                params.field(field), "text too hard to split into sentences"
            ) from exc
        explanation = ", ".join(f"{n}: {scores[t].fmeasure}" for n, t in NEMO_SCORES.items())
        return Outcome(scores[options.rouge_type].fmeasure, explanation)


@cache
def _nemo_scorer(rouge_type: str) -> kernels.Rouge:
    # NeMo's four types plus the one asked for, stemmed; rougeLsum splits on newlines.
    types = list(dict.fromkeys([*NEMO_SCORES.values(), rouge_type]))
    return kernels.Rouge(types, use_stemmer=True, sentence_splitter=None)


def _fmeasures(instances: Sequence[Any], options: RougeOptions) -> list[float]:
    scorer = _scorer(options.rouge_type, options.use_stemmer, options.split_summaries)
    rouge_type = options.rouge_type
    return [
        scorer.score(instance.reference, instance.prediction)[rouge_type].fmeasure
        for instance in instances
    ]


@cache
def _scorer(rouge_type: str, use_stemmer: bool, split_summaries: bool) -> kernels.Rouge:
    # Kernel scorers hold no per-call state, so one per option set serves every thread.
    # split_summaries only changes rougeLsum, which then splits with NLTK's English punkt model.
    splitter = _split if split_summaries and rouge_type == "rougeLsum" else None
    return kernels.Rouge([rouge_type], use_stemmer=use_stemmer, sentence_splitter=splitter)


def _split(text: str) -> list[str]:
    return split_sentences(text)  # looked up per call, so the splitter can be swapped in tests


def _splits(text: str) -> bool:
    """Whether ``text`` can be split into sentences in time (to name the field that cannot)."""
    try:
        split_sentences(text)
    except TimeoutError:
        return False
    return True
