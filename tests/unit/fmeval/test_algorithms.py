"""FMEval's model evaluations on small datasets, against hand-computed scores.

The model is scripted: it answers from the prompt text, so the perturbations chosen here (all
whitespace removed, everything upper cased) change its answers predictably.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest
from evald.errors import FailedPrecondition, InvalidArgument, Unavailable
from evald.fmeval.algorithms import (
    ALGORITHMS,
    DEFAULT_PROMPT_TEMPLATE,
    Algorithm,
    RowResult,
    ScoreSummary,
    apply_template,
)
from evald.fmeval.configs import PromptStereotypingConfig, SummarizationAccuracyConfig
from evald.fmeval.perturbations import ButterFinger, perturb
from evald.metrics.text.meteor import meteor

NO_SPACES = {
    "perturbation_type": "whitespace_add_remove",
    "whitespace_add_prob": 0,
    "whitespace_remove_prob": 1,
    "num_perturbations": 2,
}
UPPER = {
    "perturbation_type": "random_upper_case",
    "random_uppercase_corrupt_proportion": 1,
    "num_perturbations": 3,
}


class Scripted:
    """Answers ``answer(prompt, n)``, n counting the earlier calls with that prompt; fails a
    prompt containing "boom"; gives log-probabilities from a table."""

    def __init__(
        self,
        answer: Callable[[str, int], str],
        log_probs: Mapping[str, float] | None = None,
    ) -> None:
        self.answer = answer
        self.log_probs = log_probs
        self.calls: list[str] = []

    async def generate(self, prompt: str) -> str:
        n = self.calls.count(prompt)
        self.calls.append(prompt)
        if "boom" in prompt:
            raise Unavailable("the model is down")
        return self.answer(prompt, n)

    async def log_probability(self, text: str) -> float:
        if self.log_probs is None:
            raise FailedPrecondition("this model gives no log-probabilities")
        return self.log_probs[text]


def never(prompt: str, n: int) -> str:
    raise AssertionError(f"the model was asked {prompt!r}")


async def run(
    name: str,
    rows: Sequence[Mapping[str, Any]],
    model: Scripted,
    config: Mapping[str, Any] | None = None,
    template: str = DEFAULT_PROMPT_TEMPLATE,
) -> tuple[list[RowResult | None], dict[str, ScoreSummary], Any]:
    """Runs an algorithm as the job does; a row whose evaluation raises an EvalError fails."""
    algorithm = ALGORITHMS[name]
    parsed = algorithm.config(config or {}, "config")
    context = await algorithm.prepare(rows, parsed, model, template)
    results: list[RowResult | None] = []
    for index, row in enumerate(rows):
        try:
            results.append(
                await algorithm.evaluate_row(row, index, parsed, model, template, context)
            )
        except (Unavailable, InvalidArgument):
            results.append(None)
    summaries = algorithm.summarize(list(zip(rows, results, strict=True)))
    return results, {s.name: s for s in summaries}, context


def test_names_and_scores() -> None:
    assert {name: (a.score_names, a.unavailable) for name, a in ALGORITHMS.items()} == {
        "general_semantic_robustness": (
            ("bertscore_dissimilarity", "word_error_rate"),
            ("bertscore_dissimilarity",),
        ),
        "qa_accuracy_semantic_robustness": (
            (
                "f1_score",
                "exact_match_score",
                "quasi_exact_match_score",
                "precision_over_words",
                "recall_over_words",
                "bertscore",
                "delta_f1_score",
                "delta_exact_match_score",
                "delta_quasi_exact_match_score",
                "delta_precision_over_words",
                "delta_recall_over_words",
                "delta_bertscore",
            ),
            ("bertscore", "delta_bertscore"),
        ),
        "summarization_accuracy_semantic_robustness": (
            ("meteor", "rouge", "bertscore", "delta_meteor", "delta_rouge", "delta_bertscore"),
            ("bertscore", "delta_bertscore"),
        ),
        "classification_accuracy_semantic_robustness": (
            ("classification_accuracy_score", "delta_classification_accuracy_score"),
            (),
        ),
        "prompt_stereotyping": (("prompt_stereotyping", "log_probability_difference"), ()),
        "summarization_accuracy": (("meteor", "rouge", "bertscore"), ("bertscore",)),
    }
    for algorithm in ALGORITHMS.values():
        assert set(algorithm.unavailable) <= set(algorithm.score_names)


@pytest.mark.parametrize(
    ("template", "prompt"),
    [
        ("$model_input", "Hi"),
        ("Q: ${model_input}!", "Q: Hi!"),
        ("Costs $$5: $model_input", "Costs $5: Hi"),
        ("no placeholder", "no placeholder"),
    ],
)
def test_apply_template(template: str, prompt: str) -> None:
    assert apply_template(template, "Hi") == prompt


@pytest.mark.parametrize("template", ["$question", "costs $5", "$"])
def test_apply_template_refuses(template: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        apply_template(template, "Hi")
    assert caught.value.violations[0].field == "prompt_template"


def test_new_configs() -> None:
    algorithm = ALGORITHMS["summarization_accuracy"]
    assert algorithm.config({}, "c") == SummarizationAccuracyConfig("rouge2", True)
    assert algorithm.config({"rouge_type": "rougeL", "use_stemmer_for_rouge": False}, "c") == (
        SummarizationAccuracyConfig("rougeL", False)
    )
    with pytest.raises(InvalidArgument, match=r"c\.rouge_type"):
        algorithm.config({"rouge_type": "rougeLsum"}, "c")
    assert ALGORITHMS["prompt_stereotyping"].config({}, "c") == PromptStereotypingConfig()
    with pytest.raises(InvalidArgument, match=r"c\.x: unknown field; the fields are: none"):
        ALGORITHMS["prompt_stereotyping"].config({"x": 1}, "c")


# QA: the model answers "the Paris" while the question keeps its spaces, else "London".
def qa_answer(prompt: str, n: int) -> str:
    question = prompt.removeprefix("Q: ")
    return "the Paris" if " " in question else "London"


async def test_qa_accuracy_semantic_robustness() -> None:
    rows = [
        {
            "model_input": "capital of France",
            "target_output": "Paris<OR>paris city",
            "category": "geo",
        },
        {"model_input": "London", "target_output": "London", "category": "geo"},
        {"model_input": "boom now", "target_output": "x", "category": "broken"},
    ]
    model = Scripted(qa_answer)
    results, summary, _ = await run(
        "qa_accuracy_semantic_robustness", rows, model, NO_SPACES, "Q: $model_input"
    )
    first, second, failed = results
    assert failed is None
    assert first is not None
    assert second is not None
    # "the Paris" against "Paris": not exact, but equal once normalised (article dropped).
    assert first.scores == {
        "f1_score": 1.0,
        "exact_match_score": 0.0,
        "quasi_exact_match_score": 1.0,
        "precision_over_words": 1.0,
        "recall_over_words": 1.0,
        "bertscore": None,
        "delta_f1_score": 1.0,
        "delta_exact_match_score": 0.0,
        "delta_quasi_exact_match_score": 1.0,
        "delta_precision_over_words": 1.0,
        "delta_recall_over_words": 1.0,
        "delta_bertscore": None,
    }
    assert first.details["perturbed_model_inputs"] == ["capitalofFrance"] * 2
    assert first.details["perturbed_prompts"] == ["Q: capitalofFrance"] * 2
    assert first.details["model_output"] == "the Paris"
    assert first.details["perturbed_model_outputs"] == ["London"] * 2
    # "London" has no space to lose: every answer is London, exact, nothing moves.
    assert second.scores["exact_match_score"] == 1.0
    assert second.scores["delta_exact_match_score"] == 0.0
    assert summary["exact_match_score"] == ScoreSummary(
        "exact_match_score", 0.5, 2, {"geo": 0.5, "broken": None}
    )
    assert summary["delta_f1_score"].value == 0.5
    assert summary["bertscore"] == ScoreSummary("bertscore", None, 0, {"geo": None, "broken": None})


async def test_qa_null_delimiter_splits_at_whitespace() -> None:
    rows = [{"model_input": "q", "target_output": "Paris  France"}]
    config = {**NO_SPACES, "target_output_delimiter": None}
    results, _, _ = await run(
        "qa_accuracy_semantic_robustness", rows, Scripted(lambda p, n: "France"), config
    )
    assert results[0] is not None
    assert results[0].scores["exact_match_score"] == 1.0


# Classification: a shouted review reads as negative.
def sentiment(prompt: str, n: int) -> str:
    if "unsure" in prompt.lower():
        return "hmm"
    return "Negative." if prompt.isupper() else "I think positive overall"


async def test_classification_accuracy_semantic_robustness() -> None:
    rows = [
        {"model_input": "great shoes", "target_output": "positive"},
        {"model_input": "bad fit", "target_output": "negative"},
        {"model_input": "unsure", "target_output": "negative"},
    ]
    results, summary, context = await run(
        "classification_accuracy_semantic_robustness", rows, Scripted(sentiment), UPPER
    )
    assert context.valid_labels == ("positive", "negative")
    happy, sad, unsure = results
    assert happy is not None
    assert sad is not None
    assert unsure is not None
    # "Negative." is no label ("negative." is not one): unknown. The originals read positive.
    assert happy.scores == {
        "classification_accuracy_score": 1.0,
        "delta_classification_accuracy_score": 1.0,
    }
    assert happy.details["perturbed_model_inputs"] == ["GREAT SHOES"] * 3
    assert happy.details["perturbed_classified_model_outputs"] == ["unknown"] * 3
    assert sad.scores == {
        "classification_accuracy_score": 0.0,
        "delta_classification_accuracy_score": 0.0,
    }
    assert unsure.details["classified_model_output"] == "unknown"
    assert summary["classification_accuracy_score"].value == 1 / 3
    assert summary["delta_classification_accuracy_score"].value == 1 / 3
    assert summary["classification_accuracy_score"].categories == {}


async def test_classification_configured_labels() -> None:
    rows = [{"model_input": "bad fit", "target_output": "negative."}]
    config = {**UPPER, "valid_labels": ["negative."]}
    results, _, context = await run(
        "classification_accuracy_semantic_robustness", rows, Scripted(sentiment), config
    )
    assert context.valid_labels == ("negative.",)
    assert results[0] is not None
    # The original names no label; each shouted copy answers "Negative." -> "negative.".
    assert results[0].scores == {
        "classification_accuracy_score": 0.0,
        "delta_classification_accuracy_score": 1.0,
    }


# General: "a b c" while the input keeps its spaces, else "a x".
def echo(prompt: str, n: int) -> str:
    return "a b c" if " " in prompt else "a x"


async def test_general_semantic_robustness_deterministic() -> None:
    rows = [
        {"model_input": f"row {i}", "category": "even" if i % 2 == 0 else "odd"} for i in range(7)
    ]
    rows.append({"model_input": "boom now"})
    model = Scripted(echo)
    results, summary, context = await run("general_semantic_robustness", rows, model, NO_SPACES)
    assert (context.deterministic, context.rows_checked) == (True, 5)
    # The check answered the first five prompts twice each, before any row.
    assert model.calls[:10] == [p for i in range(5) for p in [f"row {i}"] * 2]
    for result in results[:7]:
        assert result is not None
        # Each perturbed answer "a x" against "a b c": 2 edits of 3 words, twice: 4 / 6.
        assert result.scores == {"bertscore_dissimilarity": None, "word_error_rate": 4 / 6}
        assert "baseline_model_outputs" not in result.details
    assert results[7] is None
    assert summary["word_error_rate"] == ScoreSummary(
        "word_error_rate", 4 / 6, 7, {"even": 4 / 6, "odd": 4 / 6}
    )
    assert summary["bertscore_dissimilarity"].value is None


async def test_general_semantic_robustness_baseline() -> None:
    # The unperturbed prompt's answers, call by call: two for the check (they differ), then
    # the original output, then num_baseline_samples - 1 = 3 baseline answers.
    answers = ["x", "y", "a b", "a b", "a c", "a b c"]

    def unsteady(prompt: str, n: int) -> str:
        return answers[n] if " " in prompt else "a d"

    results, _, context = await run(
        "general_semantic_robustness", [{"model_input": "p q"}], Scripted(unsteady), NO_SPACES
    )
    assert (context.deterministic, context.rows_checked) == (False, 1)
    [result] = results
    assert result is not None
    # Perturbed: "a d" against "a b", twice: 2 / 4. Baseline over the pairs (prediction,
    # reference) of [a b, a c, a b c, a b] (the original last): 5 edits over 14 words.
    assert result.details["baseline_model_outputs"] == ["a b", "a c", "a b c"]
    assert result.details["word_error_rate_before_baseline"] == 0.5
    assert result.details["word_error_rate_baseline"] == 5 / 14
    assert result.scores["word_error_rate"] == 0.5 - 5 / 14


async def test_general_semantic_robustness_baseline_floors_at_zero() -> None:
    answers = ["x", "y", "a b", "c d e", "f", "g h"]

    def unsteady(prompt: str, n: int) -> str:
        return answers[n] if " " in prompt else "a b"

    config = {**NO_SPACES, "num_baseline_samples": 4}
    results, _, _ = await run(
        "general_semantic_robustness", [{"model_input": "p q"}], Scripted(unsteady), config
    )
    assert results[0] is not None
    assert results[0].details["word_error_rate_before_baseline"] == 0.0
    assert results[0].scores["word_error_rate"] == 0.0


async def test_general_semantic_robustness_empty_original_output() -> None:
    results, _, _ = await run(
        "general_semantic_robustness",
        [{"model_input": "p q"}],
        Scripted(lambda p, n: "" if " " in p else "a"),
        NO_SPACES,
    )
    assert results[0] is not None
    assert results[0].scores["word_error_rate"] is None


async def test_perturbations_are_seeded_per_row() -> None:
    text = "A quick brown fox jumps over the lazy dog"
    rows = [{"model_input": text}, {"model_input": text}]
    results, _, _ = await run("general_semantic_robustness", rows, Scripted(echo))
    expected = perturb(ButterFinger(0.1, 5), text, seed=5)
    for result in results:
        assert result is not None
        assert result.details["perturbed_model_inputs"] == expected


async def test_prompt_stereotyping() -> None:
    rows: list[dict[str, Any]] = [
        {"sent_more_input": "m1", "sent_less_input": "l1", "category": "age"},
        {"sent_more_input": "m2", "sent_less_input": "l2", "category": "age"},
        {"sent_more_input": "m3", "sent_less_input": "l3", "category": "race"},
        # Given log-probabilities: no model call.
        {
            "sent_more_input": "m4",
            "sent_less_input": "l4",
            "sent_more_log_prob": -1.0,
            "sent_less_log_prob": -1.0,
            "category": "race",
        },
    ]
    log_probs = {"Say: m1": -2.0, "Say: l1": -3.5, "Say: m2": -4.0, "Say: l2": -1.0}
    log_probs |= {"Say: m3": -0.5, "Say: l3": -2.5}
    model = Scripted(never, log_probs)
    results, summary, _ = await run("prompt_stereotyping", rows, model, None, "Say: $model_input")
    assert [r.scores if r else None for r in results] == [
        {"prompt_stereotyping": 1.0, "log_probability_difference": 1.5},
        {"prompt_stereotyping": 0.0, "log_probability_difference": -3.0},
        {"prompt_stereotyping": 1.0, "log_probability_difference": 2.0},
        {"prompt_stereotyping": 0.0, "log_probability_difference": 0.0},
    ]
    assert results[0] is not None
    assert results[0].details == {
        "sent_more_prompt": "Say: m1",
        "sent_less_prompt": "Say: l1",
        "sent_more_log_prob": -2.0,
        "sent_less_log_prob": -3.5,
    }
    assert list(summary) == ["prompt_stereotyping"]
    assert summary["prompt_stereotyping"] == ScoreSummary(
        "prompt_stereotyping", 0.5, 4, {"age": 0.5, "race": 0.5}
    )


async def test_prompt_stereotyping_without_log_probabilities() -> None:
    algorithm: Algorithm = ALGORITHMS["prompt_stereotyping"]
    row = {"sent_more_input": "m", "sent_less_input": "l"}
    with pytest.raises(FailedPrecondition, match="no log-probabilities"):
        await algorithm.evaluate_row(
            row, 0, PromptStereotypingConfig(), Scripted(never), "$model_input", None
        )


TARGET = "the cat sat on the mat"


async def test_summarization_accuracy_on_dataset_outputs() -> None:
    rows = [
        {
            "model_input": "long text",
            "target_output": TARGET,
            "model_output": "the cat sat on a mat",
        },
        {"model_input": "boom", "target_output": TARGET},
    ]
    results, summary, _ = await run("summarization_accuracy", rows, Scripted(never))
    scored, failed = results
    assert failed is None
    assert scored is not None
    # rouge2: 3 of the 5 bigrams on each side are shared.
    assert scored.scores["rouge"] == pytest.approx(0.6)
    assert scored.scores["meteor"] == meteor(TARGET, "the cat sat on a mat")
    assert scored.scores["bertscore"] is None
    assert "prompt" not in scored.details
    assert summary["rouge"].count == 1
    assert summary["bertscore"].value is None


async def test_summarization_accuracy_asks_the_model() -> None:
    rows = [{"model_input": "long text", "target_output": TARGET}]
    model = Scripted(lambda p, n: TARGET)
    results, _, _ = await run(
        "summarization_accuracy", rows, model, {"rouge_type": "rougeL"}, "Sum: $model_input"
    )
    assert model.calls == ["Sum: long text"]
    assert results[0] is not None
    assert results[0].scores["rouge"] == 1.0
    assert results[0].details == {"prompt": "Sum: long text", "model_output": TARGET}


async def test_summarization_accuracy_semantic_robustness() -> None:
    def summary(prompt: str, n: int) -> str:
        return TARGET if " " in prompt else "the cat sat on a mat"

    rows = [{"model_input": "some text", "target_output": TARGET, "model_output": "ignored"}]
    results, _, _ = await run(
        "summarization_accuracy_semantic_robustness", rows, Scripted(summary), NO_SPACES
    )
    [result] = results
    assert result is not None
    # The dataset's output is not used: FMEval always asks the model for the original output.
    assert result.details["model_output"] == TARGET
    perturbed_meteor = meteor(TARGET, "the cat sat on a mat")
    assert result.scores == {
        "meteor": meteor(TARGET, TARGET),
        "rouge": 1.0,
        "bertscore": None,
        "delta_meteor": abs(meteor(TARGET, TARGET) - perturbed_meteor),
        "delta_rouge": pytest.approx(0.4),
        "delta_bertscore": None,
    }
