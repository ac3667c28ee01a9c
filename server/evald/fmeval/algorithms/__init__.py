"""AWS FMEval's model evaluations, by FMEval's ``EvalAlgorithm`` names (FMEval 1.2.3).

=============================================  ==============================================
name                                           module
=============================================  ==============================================
``general_semantic_robustness``                :mod:`.semantic_robustness`
``qa_accuracy_semantic_robustness``            :mod:`.semantic_robustness`
``summarization_accuracy_semantic_robustness`` :mod:`.semantic_robustness`
``classification_accuracy_semantic_robustness`` :mod:`.semantic_robustness`
``prompt_stereotyping``                        :mod:`.prompt_stereotyping`
``summarization_accuracy``                     :mod:`.summarization_accuracy`
=============================================  ==============================================

The interface they share is in :mod:`.base`.
"""

from __future__ import annotations

from typing import Final

from evald.fmeval.algorithms.base import (
    DEFAULT_PROMPT_TEMPLATE,
    Algorithm,
    Model,
    RowResult,
    ScoreSummary,
    apply_template,
)
from evald.fmeval.algorithms.prompt_stereotyping import PromptStereotyping
from evald.fmeval.algorithms.semantic_robustness import (
    ClassificationAccuracySemanticRobustness,
    GeneralSemanticRobustness,
    QAAccuracySemanticRobustness,
    SummarizationAccuracySemanticRobustness,
)
from evald.fmeval.algorithms.summarization_accuracy import SummarizationAccuracy

ALGORITHMS: Final[dict[str, Algorithm]] = {
    algorithm.name: algorithm
    for algorithm in (
        GeneralSemanticRobustness(),
        QAAccuracySemanticRobustness(),
        SummarizationAccuracySemanticRobustness(),
        ClassificationAccuracySemanticRobustness(),
        PromptStereotyping(),
        SummarizationAccuracy(),
    )
}
"""Every algorithm by its name."""

__all__ = [
    "ALGORITHMS",
    "DEFAULT_PROMPT_TEMPLATE",
    "Algorithm",
    "Model",
    "RowResult",
    "ScoreSummary",
    "apply_template",
]
