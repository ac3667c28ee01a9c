"""FMEval's summarization accuracy: METEOR, ROUGE and BERTScore of the model's summary against
the target summary.

Per row (``src/fmeval/transforms/summarization_accuracy_metrics.py``):

- ``meteor``: NLTK's ``single_meteor_score`` on both texts tokenized by ``word_tokenize``
  (:func:`evald.metrics.text.meteor.meteor`);
- ``rouge``: Hugging Face evaluate's ``rouge`` on the one pair (``predictions=[output]``,
  ``references=[target]``, ``rouge_types=[rouge_type]``, ``use_stemmer``, default tokenizer,
  ``use_aggregator=True``). The bootstrap aggregate of one score is that score, so the value is
  rouge-score's F-measure of ``rouge_type``, which :mod:`evald.kernels` computes alike;
- ``bertscore``: BERTScore F1 of the output (candidate) against the target (reference) with
  ``model_type_for_bertscore``, when a BERTScore model is available (None, and reported
  unavailable, without one).

The whole target is one reference (no ``<OR>`` split). Dataset scores are the means over rows,
per category too (:mod:`evald.fmeval.algorithms.base`).

Model outputs: FMEval's ``evaluate`` scores the dataset's ``model_output`` column when it is given
no model, and asks the model otherwise. Here a row with ``model_output`` is scored as it is and
the model is asked only for rows without one, from ``model_input`` through the prompt template.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any, Final

from evald import kernels, offload
from evald.fmeval.algorithms.base import (
    BertScore,
    Model,
    RowResult,
    ScoreSummary,
    apply_template,
    summarize_means,
    text,
)
from evald.fmeval.configs import SummarizationAccuracyConfig
from evald.metrics.text.meteor import meteor

METEOR: Final = "meteor"
ROUGE: Final = "rouge"
BERTSCORE: Final = "bertscore"


@cache
def _rouge_scorer(rouge_type: str, use_stemmer: bool) -> kernels.Rouge:
    # Scorers keep no per-call state: one per option set serves every thread.
    return kernels.Rouge([rouge_type], use_stemmer=use_stemmer)


def summary_scores(
    target: str, outputs: Sequence[str], rouge_type: str, use_stemmer: bool
) -> list[tuple[float, float]]:
    """(METEOR, ROUGE F-measure) of each output against the target. Runs off the event loop:
    METEOR reads WordNet and both grow with the texts."""
    scorer = _rouge_scorer(rouge_type, use_stemmer)
    return [
        (meteor(target, output), scorer.score(target, output)[rouge_type].fmeasure)
        for output in outputs
    ]


async def score_summaries(
    target: str, outputs: Sequence[str], rouge_type: str, use_stemmer: bool
) -> list[tuple[float, float]]:
    """:func:`summary_scores` in a scoring process (or a thread without them)."""
    scores: list[tuple[float, float]] = await offload.call(
        summary_scores, target, list(outputs), rouge_type, use_stemmer
    )
    return scores


class SummarizationAccuracy:
    """``summarization_accuracy``."""

    name: str = "summarization_accuracy"
    columns: tuple[str, ...] = ("model_input", "target_output")
    score_names: tuple[str, ...] = (METEOR, ROUGE, BERTSCORE)
    unavailable: tuple[str, ...] = (BERTSCORE,)

    def config(self, data: Mapping[str, Any], path: str) -> SummarizationAccuracyConfig:
        return SummarizationAccuracyConfig.from_json(data, path)

    async def prepare(
        self,
        rows: Sequence[Mapping[str, Any]],
        config: Any,
        model: Model,
        prompt_template: str,
    ) -> None:
        return None

    async def evaluate_row(
        self,
        row: Mapping[str, Any],
        index: int,
        config: Any,
        model: Model,
        prompt_template: str,
        context: Any,
        bertscore: BertScore | None = None,
    ) -> RowResult:
        assert isinstance(config, SummarizationAccuracyConfig)
        target = text(row, "target_output")
        details: dict[str, Any] = {}
        if "model_output" in row:
            output = text(row, "model_output")
        else:
            prompt = apply_template(prompt_template, text(row, "model_input"))
            details["prompt"] = prompt
            output = await model.generate(prompt)
        details["model_output"] = output
        [(meteor_score, rouge_score)] = await score_summaries(
            target, [output], config.rouge_type, config.use_stemmer_for_rouge
        )
        [bert] = [None] if bertscore is None else await bertscore([target], [output])
        return RowResult(
            scores={METEOR: meteor_score, ROUGE: rouge_score, BERTSCORE: bert}, details=details
        )

    def summarize(
        self, results: Sequence[tuple[Mapping[str, Any], RowResult | None]]
    ) -> list[ScoreSummary]:
        return summarize_means(self.score_names, results)
