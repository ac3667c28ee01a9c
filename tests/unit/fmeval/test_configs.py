"""The semantic robustness configs: FMEval's fields and defaults, read from JSON, with bad values
refused naming the field."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import pytest
from evald.errors import InvalidArgument
from evald.fmeval.configs import (
    ALGORITHM_CONFIGS,
    ClassificationAccuracySemanticRobustnessConfig,
    GeneralSemanticRobustnessConfig,
    QAAccuracySemanticRobustnessConfig,
    SemanticRobustnessConfig,
    SummarizationAccuracySemanticRobustnessConfig,
)
from evald.fmeval.perturbations import ButterFinger, RandomUpperCase, WhitespaceAddRemove

DEBERTA = "microsoft/deberta-xlarge-mnli"
SHARED = {
    "perturbation_type": "butter_finger",
    "num_perturbations": 5,
    "butter_finger_perturbation_prob": 0.1,
    "random_uppercase_corrupt_proportion": 0.1,
    "whitespace_add_prob": 0.05,
    "whitespace_remove_prob": 0.1,
}


@pytest.mark.parametrize(
    ("config", "own"),
    [
        (SemanticRobustnessConfig, {}),
        (
            GeneralSemanticRobustnessConfig,
            {
                "num_baseline_samples": 4,
                "model_type_for_bertscore": DEBERTA,
            },
        ),
        (
            QAAccuracySemanticRobustnessConfig,
            {
                "target_output_delimiter": "<OR>",
                "model_type_for_bertscore": DEBERTA,
            },
        ),
        (
            SummarizationAccuracySemanticRobustnessConfig,
            {
                "rouge_type": "rouge2",
                "use_stemmer_for_rouge": True,
                "model_type_for_bertscore": DEBERTA,
            },
        ),
        (ClassificationAccuracySemanticRobustnessConfig, {"valid_labels": None}),
    ],
)
def test_fmeval_fields_and_defaults(
    config: type[SemanticRobustnessConfig], own: dict[str, Any]
) -> None:
    assert asdict(config()) == {**SHARED, **own}
    assert config.from_json({}) == config()


def test_algorithm_names() -> None:
    assert set(ALGORITHM_CONFIGS) == {
        "general_semantic_robustness",
        "qa_accuracy_semantic_robustness",
        "summarization_accuracy_semantic_robustness",
        "classification_accuracy_semantic_robustness",
        "prompt_stereotyping",
        "summarization_accuracy",
    }


def test_values_read_from_json() -> None:
    config = GeneralSemanticRobustnessConfig.from_json(
        {
            "perturbation_type": "whitespace_add_remove",
            "num_perturbations": 3,
            "whitespace_add_prob": 0,
            "whitespace_remove_prob": 1,
            "num_baseline_samples": 2,
            "model_type_for_bertscore": "roberta-large-mnli",
        }
    )
    assert config.whitespace_add_prob == 0.0
    assert isinstance(config.whitespace_add_prob, float)
    assert config.perturbation() == WhitespaceAddRemove(0.0, 1.0, 3)
    assert config.model_type_for_bertscore == "roberta-large-mnli"


def test_the_perturbation_type_picks_its_own_parameters() -> None:
    common = {"butter_finger_perturbation_prob": 0.3, "random_uppercase_corrupt_proportion": 0.4}
    butter = SemanticRobustnessConfig.from_json({**common, "num_perturbations": 2})
    upper = SemanticRobustnessConfig.from_json({**common, "perturbation_type": "random_upper_case"})
    assert butter.perturbation() == ButterFinger(0.3, 2)
    assert upper.perturbation() == RandomUpperCase(0.4, 5)


def test_optional_values() -> None:
    qa = QAAccuracySemanticRobustnessConfig.from_json({"target_output_delimiter": None})
    assert qa.target_output_delimiter is None
    labels = ClassificationAccuracySemanticRobustnessConfig.from_json(
        {"valid_labels": ["0", 1, 2.5]}
    )
    # FMEval casts labels that are not strings.
    assert labels.valid_labels == ("0", "1", "2.5")
    summary = SummarizationAccuracySemanticRobustnessConfig.from_json(
        {"rouge_type": "rougeL", "use_stemmer_for_rouge": False}
    )
    assert (summary.rouge_type, summary.use_stemmer_for_rouge) == ("rougeL", False)


Base = SemanticRobustnessConfig
General = GeneralSemanticRobustnessConfig
QA = QAAccuracySemanticRobustnessConfig
Summary = SummarizationAccuracySemanticRobustnessConfig
Labels = ClassificationAccuracySemanticRobustnessConfig


@pytest.mark.parametrize(
    ("config", "name", "value"),
    [
        (Base, "perturbation_type", "typo"),
        (Base, "perturbation_type", None),
        (Base, "num_perturbations", 0),
        (Base, "num_perturbations", 2.5),
        (Base, "num_perturbations", True),
        (Base, "butter_finger_perturbation_prob", 1.1),
        (Base, "random_uppercase_corrupt_proportion", "0.1"),
        (Base, "whitespace_add_prob", float("nan")),
        (Base, "whitespace_remove_prob", -0.5),
        (Base, "num_baseline_samples", 4),
        (General, "num_baseline_samples", 1),
        (General, "model_type_for_bertscore", "bert-base"),
        (QA, "target_output_delimiter", ""),
        (QA, "target_output_delimiter", 1),
        (Summary, "rouge_type", "rougeLsum"),
        (Summary, "use_stemmer_for_rouge", 1),
        (Labels, "valid_labels", "0,1"),
        (Labels, "converter_fn", "x"),
    ],
)
def test_bad_values_are_refused_naming_the_field(
    config: type[SemanticRobustnessConfig], name: str, value: object
) -> None:
    with pytest.raises(InvalidArgument) as refused:
        config.from_json({name: value}, "p")
    assert refused.value.violations[0].field == f"p.{name}"


def test_a_bad_label_is_named_by_its_index() -> None:
    with pytest.raises(InvalidArgument) as refused:
        Labels.from_json({"valid_labels": ["0", None]}, "p")
    assert refused.value.violations[0].field == "p.valid_labels[1]"


def test_a_config_must_be_an_object() -> None:
    with pytest.raises(InvalidArgument, match="JSON object") as refused:
        SemanticRobustnessConfig.from_json(["butter_finger"], "params")
    assert refused.value.violations[0].field == "params"


def test_without_a_path_the_field_is_named_alone() -> None:
    with pytest.raises(InvalidArgument) as refused:
        SemanticRobustnessConfig.from_json({"seed": 1})
    assert refused.value.violations[0].field == "seed"
