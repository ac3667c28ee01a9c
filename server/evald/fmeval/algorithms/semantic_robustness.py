"""FMEval's four semantic robustness evaluations: how much the model's output, or its score, moves
when the input is perturbed in ways that keep its meaning (typos, upper case, whitespace).

Every row goes the same way first (``src/fmeval/eval_algorithms/semantic_robustness_utils.py``):
the prompt template makes the prompt of ``model_input`` and the model answers it (the original
output: FMEval always asks the model, even when the dataset holds outputs, and so does evald);
the configured perturbation makes ``num_perturbations`` perturbed copies of ``model_input``,
each goes through the template and the model answers each (the perturbed outputs).

Perturbation seeding, evald's choice: FMEval's perturbation transform holds one numpy generator
seeded 5 whose stream runs on across the rows a Ray actor happens to process, so which
perturbations a row gets depends on Ray's scheduling. evald perturbs every row from a generator
seeded afresh with 5 (:func:`evald.fmeval.perturbations.perturb`): a row's perturbations are the
ones FMEval gives that row when it is the first its transform sees, whatever the order rows run
in.

The scores, per algorithm:

- ``general_semantic_robustness`` (:class:`GeneralSemanticRobustness`): ``word_error_rate``,
  the corpus word error rate of the perturbed outputs (predictions) against the original output
  repeated (references), as Hugging Face evaluate's ``wer`` (:mod:`evald.metrics.text.wer`);
  None when the original output has no words (jiwer refuses it, FMEval fails).
  ``bertscore_dissimilarity``: 1 minus the mean BERTScore of the perturbed outputs (candidates)
  against the original output (reference). Before the rows, the model's determinism is
  checked as FMEval's ``verify_model_determinism`` does: the prompts of the first
  ``NUM_ROWS_DETERMINISTIC`` (5) rows are each answered twice and the model is deterministic when
  every pair agrees. For a model that is not, each row also asks ``num_baseline_samples - 1``
  more answers of the unperturbed prompt; with the original output last, every pair (a, b) of
  them in order (``itertools.combinations``) gives a prediction a and a reference b, whose word
  error rate is the baseline, and the row's score becomes ``max(0, wer - baseline)``. The
  BERTScore dissimilarity's baseline is 1 minus the mean over the pairs of the best BERTScore
  of b against any a: FMEval's ``BertScore`` transform there is given every a as a target and
  keeps the maximum, so a b that is also an a elsewhere scores against itself. Its score
  becomes ``max(0, dissimilarity - baseline)`` likewise.
- ``qa_accuracy_semantic_robustness`` (:class:`QAAccuracySemanticRobustness`): FMEval's QA
  accuracy scores of the original output (``f1_score``, ``exact_match_score``,
  ``quasi_exact_match_score``, ``precision_over_words``, ``recall_over_words``; each the best
  over the answers of ``target_output`` split by ``target_output_delimiter``, null splitting at
  whitespace), and each one's ``delta_`` score: the mean over the perturbed outputs of
  ``|original score - perturbed score|``; ``bertscore`` is the best BERTScore of the output
  against the answers, and ``delta_bertscore`` likewise.
- ``summarization_accuracy_semantic_robustness``
  (:class:`SummarizationAccuracySemanticRobustness`): ``meteor`` and ``rouge`` of the original
  output against ``target_output`` (as summarization accuracy) and ``delta_meteor``,
  ``delta_rouge`` likewise; ``bertscore`` (against ``target_output``) and ``delta_bertscore``
  likewise.
- ``classification_accuracy_semantic_robustness``
  (:class:`ClassificationAccuracySemanticRobustness`): ``classification_accuracy_score``, 1 when
  the label read from the original output (FMEval's default converter) equals ``target_output``,
  and ``delta_classification_accuracy_score`` likewise. Without ``valid_labels`` the labels are
  the distinct target outputs of the dataset, collected in ``prepare``.

The BERTScores (``bertscore``, ``delta_bertscore``, ``bertscore_dissimilarity``) need a BERTScore
model (``model_type_for_bertscore``): without one they are None and reported unavailable.

The mean of the deltas is numpy's, as FMEval's ``MeanDeltaScores`` takes it (the same float).
Every dataset score is the mean over the rows, overall and per category
(:mod:`evald.fmeval.algorithms.base`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from evald.errors import EvalError, InvalidArgument
from evald.fmeval.algorithms.base import (
    BertScore,
    Model,
    RowResult,
    ScoreSummary,
    apply_template,
    generate_all,
    mean_f1,
    summarize_means,
    text,
)
from evald.fmeval.algorithms.summarization_accuracy import score_summaries
from evald.fmeval.configs import (
    ClassificationAccuracySemanticRobustnessConfig,
    GeneralSemanticRobustnessConfig,
    QAAccuracySemanticRobustnessConfig,
    SemanticRobustnessConfig,
    SummarizationAccuracySemanticRobustnessConfig,
)
from evald.fmeval.perturbations import DEFAULT_SEED, perturb
from evald.metrics.named.fmeval.classification_accuracy import convert_label
from evald.metrics.named.fmeval.exact_match import ExactMatch
from evald.metrics.text import quac
from evald.metrics.text.wer import corpus_wer

NUM_ROWS_DETERMINISTIC: Final = 5
"""FMEval's count of leading rows answered twice to decide whether the model is deterministic."""

DELTA: Final = "delta_"

WORD_ERROR_RATE: Final = "word_error_rate"
BERTSCORE_DISSIMILARITY: Final = "bertscore_dissimilarity"
BERTSCORE: Final = "bertscore"

QA_SCORES: Final[dict[str, Callable[[str, str], float]]] = {
    "f1_score": lambda output, target: quac.word_scores(output, target)[2],
    "exact_match_score": ExactMatch.compare,
    "quasi_exact_match_score": quac.quasi_exact_match,
    "precision_over_words": lambda output, target: quac.word_scores(output, target)[0],
    "recall_over_words": lambda output, target: quac.word_scores(output, target)[1],
}
"""FMEval's QA accuracy scores in its order, each of (model output, one target)."""

CLASSIFICATION_ACCURACY_SCORE: Final = "classification_accuracy_score"


@dataclass(frozen=True)
class Perturbed:
    """A row's prompt and outputs, original and perturbed."""

    prompt: str
    model_output: str
    inputs: list[str]
    prompts: list[str]
    outputs: list[str]

    def details(self) -> dict[str, Any]:
        return {
            "prompt": self.prompt,
            "model_output": self.model_output,
            "perturbed_model_inputs": self.inputs,
            "perturbed_prompts": self.prompts,
            "perturbed_model_outputs": self.outputs,
        }


async def _answer(
    row: Mapping[str, Any],
    config: SemanticRobustnessConfig,
    model: Model,
    prompt_template: str,
    extra: int = 0,
) -> tuple[Perturbed, list[str]]:
    """The row's original and perturbed outputs, and ``extra`` more answers to its unperturbed
    prompt, all asked concurrently."""
    model_input = text(row, "model_input")
    prompt = apply_template(prompt_template, model_input)
    inputs = perturb(config.perturbation(), model_input, seed=DEFAULT_SEED)
    prompts = [apply_template(prompt_template, perturbed) for perturbed in inputs]
    answers = await generate_all(model, [prompt, *prompts, *[prompt] * extra])
    n = len(prompts)
    perturbed = Perturbed(prompt, answers[0], inputs, prompts, answers[1 : n + 1])
    return perturbed, answers[n + 1 :]


def _mean_delta(original: float, perturbed: Sequence[float]) -> float:
    return float(np.mean([abs(original - score) for score in perturbed]))


def _wer(predictions: Sequence[str], references: Sequence[str]) -> float | None:
    try:
        return corpus_wer(predictions, references)
    except ValueError:
        return None  # a reference without words


class _SemanticRobustness:
    """What the four share: a config class, their columns, mean aggregation."""

    name: str
    columns: tuple[str, ...] = ("model_input",)
    score_names: tuple[str, ...]
    unavailable: tuple[str, ...]
    config_class: type[SemanticRobustnessConfig]

    def config(self, data: Mapping[str, Any], path: str) -> Any:
        return self.config_class.from_json(data, path)

    async def prepare(
        self,
        rows: Sequence[Mapping[str, Any]],
        config: Any,
        model: Model,
        prompt_template: str,
    ) -> Any:
        return None

    def summarize(
        self, results: Sequence[tuple[Mapping[str, Any], RowResult | None]]
    ) -> list[ScoreSummary]:
        return summarize_means(self.score_names, results)


@dataclass(frozen=True)
class Determinism:
    """What the determinism check found (the context of general semantic robustness)."""

    deterministic: bool
    rows_checked: int


class GeneralSemanticRobustness(_SemanticRobustness):
    """``general_semantic_robustness``."""

    name: str = "general_semantic_robustness"
    score_names: tuple[str, ...] = (BERTSCORE_DISSIMILARITY, WORD_ERROR_RATE)
    unavailable: tuple[str, ...] = (BERTSCORE_DISSIMILARITY,)
    config_class = GeneralSemanticRobustnessConfig

    async def prepare(
        self,
        rows: Sequence[Mapping[str, Any]],
        config: Any,
        model: Model,
        prompt_template: str,
    ) -> Determinism:
        """FMEval's check, one prompt at a time, stopping at the first disagreement. A row
        whose input is unusable or whose answer fails is passed over (it fails on its own
        later), where FMEval's whole evaluation would fail."""
        checked = 0
        for row in rows[:NUM_ROWS_DETERMINISTIC]:
            try:
                prompt = apply_template(prompt_template, text(row, "model_input"))
                first = await model.generate(prompt)
                second = await model.generate(prompt)
            except EvalError:
                continue
            checked += 1
            if first != second:
                return Determinism(deterministic=False, rows_checked=checked)
        return Determinism(deterministic=True, rows_checked=checked)

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
        assert isinstance(config, GeneralSemanticRobustnessConfig)
        if not isinstance(context, Determinism):
            raise TypeError("general_semantic_robustness needs what prepare returned")
        deterministic = context.deterministic
        extra = 0 if deterministic else config.num_baseline_samples - 1
        perturbed, baseline_outputs = await _answer(row, config, model, prompt_template, extra)
        original = perturbed.model_output
        wer = _wer(perturbed.outputs, [original] * len(perturbed.outputs))
        dissimilarity = None
        if bertscore is not None:
            n = len(perturbed.outputs)
            dissimilarity = _dissimilarity(await bertscore([original] * n, perturbed.outputs))
        details = {**perturbed.details(), "deterministic": deterministic}
        if not deterministic:
            samples = [*baseline_outputs, original]
            pairs = list(itertools.combinations(samples, 2))
            baseline = _wer([a for a, _ in pairs], [b for _, b in pairs])
            details["baseline_model_outputs"] = baseline_outputs
            details["word_error_rate_before_baseline"] = wer
            details["word_error_rate_baseline"] = baseline
            wer = None if wer is None or baseline is None else max(0.0, wer - baseline)
            if bertscore is not None:
                firsts = [a for a, _ in pairs]
                # Each b against every a (the targets of FMEval's transform), keeping the best.
                scores = await bertscore(firsts * len(pairs), [b for _, b in pairs for _ in firsts])
                best = [
                    max(scores[i : i + len(firsts)]) for i in range(0, len(scores), len(firsts))
                ]
                base = _dissimilarity(best)
                details["bertscore_dissimilarity_before_baseline"] = dissimilarity
                details["bertscore_dissimilarity_baseline"] = base
                dissimilarity = (
                    None
                    if dissimilarity is None or base is None
                    else max(0.0, dissimilarity - base)
                )
        return RowResult(
            scores={BERTSCORE_DISSIMILARITY: dissimilarity, WORD_ERROR_RATE: wer}, details=details
        )


def _dissimilarity(scores: Sequence[float]) -> float | None:
    """FMEval's BERTScore dissimilarity: 1 minus the mean BERTScore (None for none)."""
    mean = mean_f1(scores)
    return None if mean is None else 1 - mean


async def _best_bertscores(
    bertscore: BertScore, outputs: Sequence[str], targets: Sequence[str]
) -> list[float]:
    """Each output's best BERTScore over the targets, in one batch."""
    scores = await bertscore(
        [target for _ in outputs for target in targets],
        [output for output in outputs for _ in targets],
    )
    n = len(targets)
    return [max(scores[i : i + n]) for i in range(0, len(scores), n)]


def _bertscores(best: Sequence[float] | None) -> tuple[float | None, float | None]:
    """``bertscore`` and ``delta_bertscore`` of the original output's and the perturbed
    outputs' BERTScores (both None without them)."""
    if best is None:
        return None, None
    original, *others = best
    return original, _mean_delta(original, others)


def _targets(target_output: str, delimiter: str | None) -> list[str]:
    targets = target_output.split(delimiter)
    if not targets:
        # Only a null delimiter (split at whitespace) can leave none; FMEval fails on max([]).
        raise InvalidArgument("target_output", "has no answer to compare with")
    return targets


def qa_scores(output: str, targets: Sequence[str]) -> dict[str, float]:
    """FMEval's QA accuracy scores of one output, each the best over the targets."""
    return {
        name: max(score(output, target) for target in targets) for name, score in QA_SCORES.items()
    }


class QAAccuracySemanticRobustness(_SemanticRobustness):
    """``qa_accuracy_semantic_robustness``."""

    name: str = "qa_accuracy_semantic_robustness"
    columns: tuple[str, ...] = ("model_input", "target_output")
    score_names: tuple[str, ...] = (
        *QA_SCORES,
        BERTSCORE,
        *(DELTA + name for name in QA_SCORES),
        DELTA + BERTSCORE,
    )
    unavailable: tuple[str, ...] = (BERTSCORE, DELTA + BERTSCORE)
    config_class = QAAccuracySemanticRobustnessConfig

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
        assert isinstance(config, QAAccuracySemanticRobustnessConfig)
        targets = _targets(text(row, "target_output"), config.target_output_delimiter)
        perturbed, _ = await _answer(row, config, model, prompt_template)
        original = qa_scores(perturbed.model_output, targets)
        others = [qa_scores(output, targets) for output in perturbed.outputs]
        outputs = [perturbed.model_output, *perturbed.outputs]
        best = None if bertscore is None else await _best_bertscores(bertscore, outputs, targets)
        bert, delta_bert = _bertscores(best)
        scores: dict[str, float | None] = {**original, BERTSCORE: bert}
        for name in QA_SCORES:
            scores[DELTA + name] = _mean_delta(original[name], [o[name] for o in others])
        scores[DELTA + BERTSCORE] = delta_bert
        details = {**perturbed.details(), "perturbed_scores": others}
        if best is not None:
            details["perturbed_bertscores"] = best[1:]
        return RowResult(scores=scores, details=details)


class SummarizationAccuracySemanticRobustness(_SemanticRobustness):
    """``summarization_accuracy_semantic_robustness``."""

    name: str = "summarization_accuracy_semantic_robustness"
    columns: tuple[str, ...] = ("model_input", "target_output")
    score_names: tuple[str, ...] = (
        "meteor",
        "rouge",
        BERTSCORE,
        DELTA + "meteor",
        DELTA + "rouge",
        DELTA + BERTSCORE,
    )
    unavailable: tuple[str, ...] = (BERTSCORE, DELTA + BERTSCORE)
    config_class = SummarizationAccuracySemanticRobustnessConfig

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
        assert isinstance(config, SummarizationAccuracySemanticRobustnessConfig)
        target = text(row, "target_output")
        perturbed, _ = await _answer(row, config, model, prompt_template)
        (meteor, rouge), *others = await score_summaries(
            target,
            [perturbed.model_output, *perturbed.outputs],
            config.rouge_type,
            config.use_stemmer_for_rouge,
        )
        outputs = [perturbed.model_output, *perturbed.outputs]
        best = None if bertscore is None else await bertscore([target] * len(outputs), outputs)
        bert, delta_bert = _bertscores(best)
        details = {
            **perturbed.details(),
            "perturbed_scores": [{"meteor": m, "rouge": r} for m, r in others],
        }
        if best is not None:
            details["perturbed_bertscores"] = best[1:]
        return RowResult(
            scores={
                "meteor": meteor,
                "rouge": rouge,
                BERTSCORE: bert,
                DELTA + "meteor": _mean_delta(meteor, [m for m, _ in others]),
                DELTA + "rouge": _mean_delta(rouge, [r for _, r in others]),
                DELTA + BERTSCORE: delta_bert,
            },
            details=details,
        )


@dataclass(frozen=True)
class Labels:
    """The valid labels of a classification run (its context)."""

    valid_labels: tuple[str, ...]


class ClassificationAccuracySemanticRobustness(_SemanticRobustness):
    """``classification_accuracy_semantic_robustness``."""

    name: str = "classification_accuracy_semantic_robustness"
    columns: tuple[str, ...] = ("model_input", "target_output")
    score_names: tuple[str, ...] = (
        CLASSIFICATION_ACCURACY_SCORE,
        DELTA + CLASSIFICATION_ACCURACY_SCORE,
    )
    unavailable: tuple[str, ...] = ()
    config_class = ClassificationAccuracySemanticRobustnessConfig

    async def prepare(
        self,
        rows: Sequence[Mapping[str, Any]],
        config: Any,
        model: Model,
        prompt_template: str,
    ) -> Labels:
        """The configured labels, or (null or empty, as FMEval) the distinct target outputs."""
        assert isinstance(config, ClassificationAccuracySemanticRobustnessConfig)
        if config.valid_labels:
            return Labels(config.valid_labels)
        found = {
            str(row["target_output"]): None for row in rows if row.get("target_output") is not None
        }
        return Labels(tuple(found))

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
        assert isinstance(config, ClassificationAccuracySemanticRobustnessConfig)
        if not isinstance(context, Labels):
            raise TypeError("classification_accuracy_semantic_robustness needs prepare's labels")
        if row.get("target_output") is None:
            raise InvalidArgument("target_output", "missing")
        # FMEval compares the label with str() of the target, which may be a number.
        target = str(row["target_output"])
        perturbed, _ = await _answer(row, config, model, prompt_template)
        labels = context.valid_labels
        original_label = convert_label(perturbed.model_output, labels)
        perturbed_labels = [convert_label(output, labels) for output in perturbed.outputs]
        original = float(original_label == target)
        others = [float(label == target) for label in perturbed_labels]
        return RowResult(
            scores={
                CLASSIFICATION_ACCURACY_SCORE: original,
                DELTA + CLASSIFICATION_ACCURACY_SCORE: _mean_delta(original, others),
            },
            details={
                **perturbed.details(),
                "classified_model_output": original_label,
                "perturbed_classified_model_outputs": perturbed_labels,
            },
        )
