"""evald.kernels.rouge gives the very floats rouge-score's RougeScorer gives (compared with ==).

Reference: ``rouge_score.rouge_scorer.RougeScorer`` called directly. With ``split_summaries``
it calls ``nltk.sent_tokenize``; that is pointed at evald's offline splitter (which
``evald.metrics.text.sentences`` documents as identical to it), and our kernel gets the same
function, so both sides split the same sentences.
"""

from __future__ import annotations

from collections.abc import Iterator

import nltk  # type: ignore[import-untyped]
import pytest
from evald.kernels.rouge import ROUGE_TYPES, Rouge, tokenize
from evald.metrics.text.sentences import split_sentences
from hypothesis import given, settings
from hypothesis import strategies as st
from rouge_score.rouge_scorer import RougeScorer
from rouge_score.tokenizers import DefaultTokenizer

from tests.unit.kernels import texts

CONFIGS = [
    pytest.param(stem, split, id=f"{'stem' if stem else 'nostem'}-{'split' if split else 'lines'}")
    for stem in (False, True)
    for split in (False, True)
]

# (seed, pairs per option set, min tokens, max tokens): 4 option sets x (1000 + 150 + 6) pairs;
# the reference is slow on long texts (quadratic LCS tables in Python), hence fewer of them.
BANDS = [
    pytest.param(1, 1000, 0, 30, id="short"),
    pytest.param(2, 150, 30, 150, id="medium"),
    pytest.param(3, 6, 150, 500, id="long"),
]


@pytest.fixture(scope="module", autouse=True)
def _reference_splits_like_evald() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(nltk, "sent_tokenize", split_sentences)
        yield


def _pair_of_scorers(types: list[str], stem: bool, split: bool) -> tuple[RougeScorer, Rouge]:
    reference = RougeScorer(types, use_stemmer=stem, split_summaries=split)
    ours = Rouge(types, use_stemmer=stem, sentence_splitter=split_sentences if split else None)
    return reference, ours


def _mismatches(
    reference: RougeScorer, ours: Rouge, pairs: list[tuple[str, str]]
) -> list[tuple[str, str, str, object, object]]:
    found: list[tuple[str, str, str, object, object]] = []
    for target, prediction in pairs:
        expected = reference.score(target, prediction)
        got = ours.score(target, prediction)
        assert list(got) == list(expected)
        for rouge_type, score in expected.items():
            # Tuples of floats compare with ==: bit for bit (no NaNs occur).
            if tuple(got[rouge_type]) != tuple(score):
                found.append((rouge_type, target, prediction, score, got[rouge_type]))
    return found


@pytest.mark.parametrize(("stem", "split"), CONFIGS)
@pytest.mark.parametrize(("seed", "count", "lo", "hi"), BANDS)
def test_generated_pairs_all_types(
    stem: bool, split: bool, seed: int, count: int, lo: int, hi: int
) -> None:
    reference, ours = _pair_of_scorers(list(ROUGE_TYPES), stem, split)
    pairs = texts.pairs(seed * 10 + stem * 2 + split, count, lo, hi)
    assert _mismatches(reference, ours, pairs)[:3] == []


@pytest.mark.parametrize(("stem", "split"), CONFIGS)
def test_edge_cases_all_types(stem: bool, split: bool) -> None:
    reference, ours = _pair_of_scorers(list(ROUGE_TYPES), stem, split)
    pairs = [(a, b) for a in texts.EDGE_TEXTS for b in texts.EDGE_TEXTS]
    assert _mismatches(reference, ours, pairs)[:3] == []


@pytest.mark.parametrize("rouge_type", ROUGE_TYPES)
@pytest.mark.parametrize(("stem", "split"), CONFIGS)
def test_one_type_alone(rouge_type: str, stem: bool, split: bool) -> None:
    # rouge-score skips whole-text tokenization when only rougeLsum is asked for.
    reference, ours = _pair_of_scorers([rouge_type], stem, split)
    pairs = texts.pairs(1000 + ROUGE_TYPES.index(rouge_type) * 4 + stem * 2 + split, 40, 0, 60)
    assert _mismatches(reference, ours, pairs)[:3] == []


def test_type_order_and_repeats_follow_the_request() -> None:
    types = ["rougeLsum", "rouge2", "rougeL", "rouge1"]
    reference, ours = _pair_of_scorers(types, True, False)
    pairs = texts.pairs(8, 50, 0, 80)
    assert _mismatches(reference, ours, pairs)[:3] == []


@pytest.mark.parametrize("text", texts.EDGE_TEXTS[:19])
@pytest.mark.parametrize("stem", [False, True])
def test_tokenize_matches_rouge_score(text: str, stem: bool) -> None:
    assert tokenize(text, stem) == DefaultTokenizer(use_stemmer=stem).tokenize(text)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=80))
def test_ascii_runs_are_the_alphanumeric_runs_of_the_lower_cased_text(text: str) -> None:
    from evald.kernels import rouge

    runs = rouge._runs(text)
    assert [run.decode() if isinstance(run, bytes) else run for run in runs] == (
        rouge._ALPHANUM_RUN.findall(text.lower())
    )


def test_stem_cache_is_bounded_and_stems_stay_right(monkeypatch: pytest.MonkeyPatch) -> None:
    from evald.kernels import rouge

    monkeypatch.setattr(rouge, "STEM_CACHE_SIZE", 4)
    rouge.clear_stem_cache()
    reference = DefaultTokenizer(use_stemmer=True)
    text = "Runners running happily; cats jumped over 12 walking, stemming generously ran"
    for _ in range(3):  # the cache fills, starts over, fills again: the same tokens each time
        assert tokenize(text, True) == reference.tokenize(text)
        assert 0 < len(rouge._STEMS) <= 4
    rouge.clear_stem_cache()


@pytest.mark.parametrize("stem", [False, True])
def test_scores_stay_identical_while_tiny_caches_start_over(
    monkeypatch: pytest.MonkeyPatch, stem: bool
) -> None:
    from evald.kernels import rouge

    monkeypatch.setattr(rouge, "STEM_CACHE_SIZE", 8)  # token ids: a new cache every few pairs
    rouge.clear_stem_cache()
    reference, ours = _pair_of_scorers(["rouge1", "rouge2", "rougeL", "rougeLsum"], stem, False)
    long_token = "x" * (rouge.STEM_CACHE_MAX_CHARS + 1)  # such pairs take the uncached path
    pairs = [*texts.pairs(60, 30, 1, 40), (f"a {long_token} b runs", f"b runs {long_token}")]
    assert _mismatches(reference, ours, pairs) == []
    assert len(rouge._TOKEN_IDS[stem]) <= 8 + 2 * 40  # replaced between pairs, never within
    rouge.clear_stem_cache()


@pytest.mark.parametrize("bad", ["rouge0", "rouge10", "rougel", "ROUGEL", "bleu", ""])
def test_unknown_type_is_rejected(bad: str) -> None:
    with pytest.raises(ValueError, match="unknown ROUGE types"):
        Rouge(["rouge1", bad])


_TOKENS = st.sampled_from(
    ["the", "cat", "cats", "running", "run", "a", "Über", "ΣΟΦΙΑ", "42", "3.14", "e.g.", "Mr."]
)
_SEPARATORS = st.sampled_from([" ", "  ", "\n", ". ", "! ", ", ", ".\n", "-"])
_TEXTS = st.lists(st.tuples(_TOKENS, _SEPARATORS), max_size=40).map(
    lambda parts: "".join(token + separator for token, separator in parts)
)


@settings(max_examples=200, deadline=None)
@given(target=_TEXTS, prediction=_TEXTS, stem=st.booleans(), split=st.booleans())
def test_hypothesis_all_types(target: str, prediction: str, stem: bool, split: bool) -> None:
    reference, ours = _pair_of_scorers(list(ROUGE_TYPES), stem, split)
    assert _mismatches(reference, ours, [(target, prediction)]) == []


@settings(max_examples=200, deadline=None)
@given(target=st.text(max_size=60), prediction=st.text(max_size=60), stem=st.booleans())
def test_hypothesis_any_unicode(target: str, prediction: str, stem: bool) -> None:
    reference, ours = _pair_of_scorers(list(ROUGE_TYPES), stem, False)
    assert _mismatches(reference, ours, [(target, prediction)]) == []
