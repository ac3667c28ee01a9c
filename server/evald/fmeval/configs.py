"""The configs of AWS FMEval's model evaluations (its four semantic robustness algorithms, prompt
stereotyping and summarization accuracy), with FMEval's field names and defaults (FMEval 1.2.3),
read from JSON.

Which FMEval class each mirrors (paths under ``src/fmeval/eval_algorithms/``):

- ``SemanticRobustnessConfig``: ``semantic_robustness_utils.py``, ``SemanticRobustnessConfig``,
  the fields every algorithm shares.
- ``GeneralSemanticRobustnessConfig``: ``general_semantic_robustness.py``.
- ``QAAccuracySemanticRobustnessConfig``: ``qa_accuracy_semantic_robustness.py``.
- ``SummarizationAccuracySemanticRobustnessConfig``:
  ``summarization_accuracy_semantic_robustness.py``.
- ``ClassificationAccuracySemanticRobustnessConfig``:
  ``classification_accuracy_semantic_robustness.py``. Its ``converter_fn`` (a Python callable)
  has no JSON form and is left out: FMEval's default, the first whitespace-separated word of the
  output that is a valid label, lowered and stripped, else ``"unknown"``, is the only one.
- ``PromptStereotypingConfig``: FMEval's ``PromptStereotyping`` takes no config (it is built with
  an empty ``EvalAlgorithmConfig``); ours has no fields either, so that every algorithm reads its
  config the same way and an unknown field is refused.
- ``SummarizationAccuracyConfig``: ``summarization_accuracy.py``.

``from_json`` checks more than FMEval does, so that a bad value is refused when the config is
read rather than part way through a run: FMEval accepts any ``num_perturbations`` and any
probability, then fails or yields NaN scores (a proportion above 1, a count below 1), or quietly
treats a probability below 0 or above 1 as 0 or 1. FMEval's own checks (the perturbation type,
the BERTScore model, ``num_baseline_samples >= 2``, a non-empty delimiter, the ROUGE type) are
made alike.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final, Self

from evald.errors import InvalidArgument
from evald.fmeval.perturbations import (
    PERTURBATIONS,
    ButterFinger,
    Perturbation,
    RandomUpperCase,
    WhitespaceAddRemove,
)

BERTSCORE_MODELS: Final = ("microsoft/deberta-xlarge-mnli", "roberta-large-mnli")
"""FMEval's ``BertscoreHelperModelTypes``; the first is its ``BERTSCORE_DEFAULT_MODEL``."""

ROUGE_TYPES: Final = ("rouge1", "rouge2", "rougeL")

# Reads one JSON value for the field at the given path, or raises InvalidArgument.
Parser = Callable[[object, str], Any]


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _integer(minimum: int) -> Parser:
    def parse(value: object, field: str) -> int:
        # bool is an int in Python but `true` is no count in JSON. A whole float is an integer:
        # a protobuf Struct (the RPC's config) holds every number as a double.
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidArgument(field, f"must be an integer, not {value!r}")
        if value < minimum:
            raise InvalidArgument(field, f"must be at least {minimum}, not {value}")
        return value

    return parse


def _probability(value: object, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidArgument(field, f"must be a number, not {value!r}")
    if not (math.isfinite(value) and 0 <= value <= 1):
        raise InvalidArgument(field, f"must be between 0 and 1, not {value!r}")
    return float(value)


def _one_of(options: tuple[str, ...]) -> Parser:
    def parse(value: object, field: str) -> str:
        if not isinstance(value, str) or value not in options:
            raise InvalidArgument(field, f"must be one of {', '.join(options)}; got {value!r}")
        return value

    return parse


def _boolean(value: object, field: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidArgument(field, f"must be true or false, not {value!r}")
    return value


def _delimiter(value: object, field: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidArgument(field, f"must be a string or null, not {value!r}")
    if not value:
        # FMEval's rule: split nothing by giving null, not "".
        raise InvalidArgument(field, "must not be empty; give null for no delimiter")
    return value


def _labels(value: object, field: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise InvalidArgument(field, f"must be a list of labels or null, not {value!r}")
    labels = []
    for i, label in enumerate(value):
        # FMEval casts labels that are not strings with str(); numbers are the likely case.
        if isinstance(label, bool) or not isinstance(label, str | int | float):
            raise InvalidArgument(f"{field}[{i}]", f"must be a string or a number, not {label!r}")
        labels.append(str(label))
    return tuple(labels)


_PERTURBATION_TYPES: Final = tuple(PERTURBATIONS)


@dataclass(frozen=True)
class AlgorithmConfig:
    """A config read from a JSON object by field name; subclasses declare their fields and a
    parser for each in ``_PARSERS``."""

    _PARSERS: ClassVar[Mapping[str, Parser]] = {}

    @classmethod
    def from_json(cls, data: object, path: str = "") -> Self:
        """The config in a JSON object, its absent fields at FMEval's defaults.

        ``path`` is where the object sits in the request; it prefixes the field an
        ``InvalidArgument`` names (``params.num_perturbations``).
        """
        if not isinstance(data, dict):
            raise InvalidArgument(path, f"must be a JSON object, not {data!r}")
        values = {}
        for name, value in data.items():
            field = _join(path, str(name))
            parse = cls._PARSERS.get(name)
            if parse is None:
                known = ", ".join(cls._PARSERS) or "none"
                raise InvalidArgument(field, f"unknown field; the fields are: {known}")
            values[name] = parse(value, field)
        return cls(**values)


@dataclass(frozen=True)
class SemanticRobustnessConfig(AlgorithmConfig):
    """The perturbation of the prompts; each algorithm's config adds its own fields to these.

    Only the parameters of the chosen ``perturbation_type`` are used; the others keep their
    defaults.
    """

    perturbation_type: str = "butter_finger"
    num_perturbations: int = 5
    butter_finger_perturbation_prob: float = 0.1
    random_uppercase_corrupt_proportion: float = 0.1
    whitespace_add_prob: float = 0.05
    whitespace_remove_prob: float = 0.1

    _PARSERS: ClassVar[Mapping[str, Parser]] = {
        "perturbation_type": _one_of(_PERTURBATION_TYPES),
        "num_perturbations": _integer(1),
        "butter_finger_perturbation_prob": _probability,
        "random_uppercase_corrupt_proportion": _probability,
        "whitespace_add_prob": _probability,
        "whitespace_remove_prob": _probability,
    }

    def perturbation(self) -> Perturbation:
        """The perturbation this config selects, with its parameters."""
        match self.perturbation_type:
            case "butter_finger":
                return ButterFinger(self.butter_finger_perturbation_prob, self.num_perturbations)
            case "random_upper_case":
                return RandomUpperCase(
                    self.random_uppercase_corrupt_proportion, self.num_perturbations
                )
            case _:
                return WhitespaceAddRemove(
                    self.whitespace_add_prob, self.whitespace_remove_prob, self.num_perturbations
                )


@dataclass(frozen=True)
class GeneralSemanticRobustnessConfig(SemanticRobustnessConfig):
    """``num_baseline_samples``: for a model found not deterministic, how many outputs of the
    unperturbed prompt (the original one included) give the baseline WER and BERTScore
    dissimilarity, over all their pairs."""

    num_baseline_samples: int = 4
    model_type_for_bertscore: str = BERTSCORE_MODELS[0]

    _PARSERS: ClassVar[Mapping[str, Parser]] = {
        **SemanticRobustnessConfig._PARSERS,
        "num_baseline_samples": _integer(2),
        "model_type_for_bertscore": _one_of(BERTSCORE_MODELS),
    }


@dataclass(frozen=True)
class QAAccuracySemanticRobustnessConfig(SemanticRobustnessConfig):
    """``target_output_delimiter`` separates the acceptable answers in one target output
    (``"UK<OR>England"``). FMEval splits with ``str.split(delimiter)``, so null splits at runs of
    whitespace: every word of the target becomes an acceptable answer, not the target whole."""

    target_output_delimiter: str | None = "<OR>"
    model_type_for_bertscore: str = BERTSCORE_MODELS[0]

    _PARSERS: ClassVar[Mapping[str, Parser]] = {
        **SemanticRobustnessConfig._PARSERS,
        "target_output_delimiter": _delimiter,
        "model_type_for_bertscore": _one_of(BERTSCORE_MODELS),
    }


@dataclass(frozen=True)
class SummarizationAccuracySemanticRobustnessConfig(SemanticRobustnessConfig):
    """The ROUGE variant and stemming, and the BERTScore model, of the summary scores."""

    rouge_type: str = "rouge2"
    use_stemmer_for_rouge: bool = True
    model_type_for_bertscore: str = BERTSCORE_MODELS[0]

    _PARSERS: ClassVar[Mapping[str, Parser]] = {
        **SemanticRobustnessConfig._PARSERS,
        "rouge_type": _one_of(ROUGE_TYPES),
        "use_stemmer_for_rouge": _boolean,
        "model_type_for_bertscore": _one_of(BERTSCORE_MODELS),
    }


@dataclass(frozen=True)
class ClassificationAccuracySemanticRobustnessConfig(SemanticRobustnessConfig):
    """``valid_labels``: the labels a model output may name; null or empty takes the distinct
    target outputs of the dataset, as FMEval does."""

    valid_labels: tuple[str, ...] | None = None

    _PARSERS: ClassVar[Mapping[str, Parser]] = {
        **SemanticRobustnessConfig._PARSERS,
        "valid_labels": _labels,
    }


@dataclass(frozen=True)
class PromptStereotypingConfig(AlgorithmConfig):
    """No fields: FMEval's prompt stereotyping has nothing to configure."""


@dataclass(frozen=True)
class SummarizationAccuracyConfig(AlgorithmConfig):
    """The ROUGE variant and stemming, and the BERTScore model, of the summary scores (the same
    fields and defaults as the summarization semantic robustness config, without perturbation)."""

    rouge_type: str = "rouge2"
    use_stemmer_for_rouge: bool = True
    model_type_for_bertscore: str = BERTSCORE_MODELS[0]

    _PARSERS: ClassVar[Mapping[str, Parser]] = {
        "rouge_type": _one_of(ROUGE_TYPES),
        "use_stemmer_for_rouge": _boolean,
        "model_type_for_bertscore": _one_of(BERTSCORE_MODELS),
    }


ALGORITHM_CONFIGS: Final[dict[str, type[AlgorithmConfig]]] = {
    "general_semantic_robustness": GeneralSemanticRobustnessConfig,
    "qa_accuracy_semantic_robustness": QAAccuracySemanticRobustnessConfig,
    "summarization_accuracy_semantic_robustness": SummarizationAccuracySemanticRobustnessConfig,
    "classification_accuracy_semantic_robustness": ClassificationAccuracySemanticRobustnessConfig,
    "prompt_stereotyping": PromptStereotypingConfig,
    "summarization_accuracy": SummarizationAccuracyConfig,
}
"""FMEval's ``EvalAlgorithm`` names of the algorithms and their configs."""
