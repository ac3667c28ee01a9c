"""Asserting evald metrics in a project's own tests: the ``evald`` fixture of evald's pytest
plugin. Run with ``pytest examples/pytest`` (scores in the test process) or
``pytest examples/pytest --evald-server HOST:PORT`` (scores through a server)."""

from __future__ import annotations

from pathlib import Path

from evald.testing import Evald

HERE = Path(__file__).parent


def answer(question: str) -> str:
    """Stands in for the application under test."""
    return {"capital of France?": "The capital of France is Paris."}.get(question, "")


def test_one_row(evald: Evald) -> None:
    response = answer("capital of France?")
    score = evald.score("bleu", response=response, reference="The capital of France is Paris.")
    assert score == 1.0
    evald.assert_metric(
        "rouge:rougeL", response=response, reference="Paris is the capital of France.", at_least=0.5
    )


def test_assertions(evald: Evald) -> None:
    row = {"response": answer("capital of France?"), "city": "Paris"}
    evald.check(row, {"icontains": "{{city}}"})
    evald.check(row, [{"not-contains": "London"}, {"regex": r"\bParis\b"}])


def test_dataset(evald: Evald) -> None:
    evald.assert_dataset(HERE / "answers.jsonl", metric="exact_match", mean_at_least=0.5)
