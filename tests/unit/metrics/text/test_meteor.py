"""METEOR as FMEval computes it, against scores of unmodified NLTK with its standard data.

The cases file says how its scores were made; evald reads WordNet from Debian's wordnet-base
files instead, whose synonyms equal those of NLTK's ``wordnet`` corpus.
"""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from evald import offload
from evald.errors import EvalError, FailedPrecondition
from evald.metrics.text import meteor as meteor_module
from evald.metrics.text.meteor import LEXNAMES, meteor, word_tokenize

from tests.unit.metrics.named.helpers import score

CASES_FILE = Path(__file__).parents[1] / "named" / "fmeval_meteor_cases.json"


def _cases() -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = json.loads(CASES_FILE.read_text(encoding="utf-8"))["cases"]
    return cases


def test_equals_nltk_on_every_case() -> None:
    cases = _cases()
    assert len(cases) >= 600
    wrong = [
        (c["reference"], c["candidate"], c["meteor"], got)
        for c in cases
        if (got := meteor(c["reference"], c["candidate"])) != c["meteor"]
    ]
    assert wrong == []


def test_cases_cover_synonyms_stems_and_empty_texts() -> None:
    by_pair = {(c["reference"], c["candidate"]): c["meteor"] for c in _cases()}
    assert by_pair[("the quick brown fox", "the fast brown fox")] > 0.99  # synonym
    assert by_pair[("run", "running")] == 0.5  # stem: one match each side
    assert by_pair[("", "")] == 0.0
    assert by_pair[("this is a cat", "non matching hypothesis")] == 0.0


def test_nltk_doctest_value() -> None:
    reference = (
        "It is a guide to action that ensures that the military will forever heed Party commands"
    )
    hypothesis = (
        "It is a guide to action which ensures that the military always obeys the commands of "
        "the party"
    )
    assert round(meteor(reference, hypothesis), 4) == 0.6944


def test_word_tokenize_splits_sentences_then_words() -> None:
    assert word_tokenize("Mr. Smith didn't go. He stayed!") == [
        "Mr.",
        "Smith",
        "did",
        "n't",
        "go",
        ".",
        "He",
        "stayed",
        "!",
    ]
    assert word_tokenize("") == []


def test_lexnames_table() -> None:
    assert len(LEXNAMES) == 45
    assert LEXNAMES[3] == ("noun.Tops", 1)
    assert LEXNAMES[44] == ("adj.ppl", 3)


def test_threads_share_the_reader() -> None:
    cases = _cases()[:200]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda c: meteor(c["reference"], c["candidate"]), cases))
    assert got == [c["meteor"] for c in cases]


def test_missing_wordnet_is_a_failed_precondition(tmp_path: Path) -> None:
    with pytest.raises(FailedPrecondition, match="wordnet-base") as caught:
        meteor("the quick fox", "the fast fox", directory=str(tmp_path))
    assert "data.noun" in str(caught.value)


def test_named_metric(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert score("fmeval/meteor", response="the fast brown fox", reference="the quick brown fox")
    assert score("fmeval/meteor", response="", reference="anything") == 0.0
    # No <OR> split: the whole reference is the target.
    assert score("fmeval/meteor", response="cat", reference="cat<OR>dog") < 1.0
    monkeypatch.setattr(meteor_module, "WORDNET_DIR", str(tmp_path))

    async def in_a_thread(function: Any, *args: Any) -> Any:
        # A scoring process started by an earlier test would not see the patched directory.
        return await asyncio.to_thread(function, *args)

    monkeypatch.setattr(offload, "call", in_a_thread)
    with pytest.raises(EvalError, match="wordnet-base") as caught:
        score("fmeval/meteor", response="a", reference="a")
    assert caught.value.to_status().code == FailedPrecondition.code.value[0]
