"""Property tests: bleu and rouge equal sacrebleu and rouge-score on random text and options."""

from __future__ import annotations

import re
import string
import struct
from typing import Any
from unittest import mock

import pytest
import sacrebleu
from evald.api import messages as m
from evald.metrics.catalog import builtin
from evald.metrics.computed.bleu import Bleu
from evald.metrics.computed.rouge import ROUGE_TYPES
from evald.metrics.text.sentences import split_sentences
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rouge_score import rouge_scorer

WORDS = st.one_of(
    st.sampled_from(
        [
            *("the", "cat", "sat", "on", "a", "mat", "running", "runs", "ran", "dogs", "dog"),
            *("Dr.", "Mr.", "e.g.", "U.S.", "It", "He", "1.5", "2", "10", "don't", "co-op"),
        ]
    ),
    st.sampled_from(["naïve", "café", "Straße", "東京", "日本語。", "мир", "😀", "ǅ", "İ", "ﬁ"]),
    st.sampled_from([".", "!", "?", "...", ",", ";", '"', "'", "(", ")", "-", "&amp;", "&quot;"]),
    st.text(alphabet=string.ascii_letters, min_size=1, max_size=8),
)
SEPARATORS = st.sampled_from([" ", " ", " ", "  ", "\n", "\t", "\n\n", "", "\u00a0", "\r\n"])


@st.composite
def word_text(draw: st.DrawFn, min_words: int = 0, max_words: int = 40) -> str:
    words = draw(st.lists(WORDS, min_size=min_words, max_size=max_words))
    seps = draw(st.lists(SEPARATORS, min_size=len(words), max_size=len(words)))
    return "".join(w + s for w, s in zip(words, seps, strict=True))


TEXT = st.one_of(
    word_text(),
    st.text(max_size=120),  # any Unicode, control characters included
    st.text(alphabet=string.punctuation + " ", max_size=40),  # punctuation only
    st.just(""),
    # long (hundreds of words): a drawn text repeated, far cheaper to generate than 500 draws
    st.builds(lambda text, times: text * times, word_text(5, 30), st.integers(10, 40)),
)


def float32(x: float) -> float:
    """``x`` as the proto ``float`` on the wire carries it."""
    value: float = struct.unpack("f", struct.pack("f", x))[0]
    return value


SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(prediction=TEXT, reference=TEXT, effective_order=st.booleans())
def test_bleu_equals_sacrebleu(prediction: str, reference: str, effective_order: bool) -> None:
    expected = (
        sacrebleu.sentence_bleu(prediction, [reference], use_effective_order=effective_order).score
        / 100
    )
    got = Bleu().score_text(prediction, reference, effective_order)
    assert got == expected
    # sacrebleu's exp(mean log) can land a few ulps above 1 (1.0000000000000004 for identical
    # texts); the 32-bit score on the wire cannot
    assert 0.0 <= float32(got) <= 1.0


@SETTINGS
@given(
    prediction=TEXT,
    reference=TEXT,
    rouge_type=st.sampled_from(ROUGE_TYPES),
    use_stemmer=st.booleans(),
    split_summaries=st.booleans(),
    letter_case=st.sampled_from([str, str.lower, str.upper]),
)
def test_rouge_equals_rouge_score(
    prediction: str,
    reference: str,
    rouge_type: str,
    use_stemmer: bool,
    split_summaries: bool,
    letter_case: object,
) -> None:
    scorer = rouge_scorer.RougeScorer(
        [rouge_type], use_stemmer=use_stemmer, split_summaries=split_summaries
    )
    # rouge-score's own split_summaries path, given the offline splitter instead of NLTK's data
    with mock.patch.object(rouge_scorer.nltk, "sent_tokenize", split_sentences):
        expected = scorer.score(target=reference, prediction=prediction)[rouge_type].fmeasure
    handler: Any = builtin().inputs["rouge_input"]  # a ComputedMetric: options() and score()
    spec = m.RougeSpec(
        rouge_type=letter_case(rouge_type),  # type: ignore[operator]
        use_stemmer=use_stemmer,
        split_summaries=split_summaries,
    )
    options = handler.options(spec, "rouge_input.metric_spec")
    instance = m.RougeInstance(prediction=prediction, reference=reference)
    got = handler.score(instance, options, "rouge_input.instances[0]")
    assert got == expected
    assert 0.0 <= float32(got) <= 1.0


@settings(max_examples=300, deadline=None)
@given(text=TEXT)
def test_splitter_keeps_every_character_in_order(text: str) -> None:
    # Punkt only cuts between sentences and drops the whitespace there.
    sentences = split_sentences(text)
    assert all(sentence and sentence in text for sentence in sentences)
    assert re.sub(r"\s", "", "".join(sentences)) == re.sub(r"\s", "", text)


@pytest.mark.parametrize("rouge_type", ROUGE_TYPES)
def test_identical_texts_score_one(rouge_type: str) -> None:
    text = " ".join(f"w{i}" for i in range(12)) + ". " + " ".join(f"v{i}" for i in range(12))
    handler: Any = builtin().inputs["rouge_input"]  # a ComputedMetric: options() and score()
    options = handler.options(
        m.RougeSpec(rouge_type=rouge_type, split_summaries=True), "rouge_input.metric_spec"
    )
    instance = m.RougeInstance(prediction=text, reference=text)
    assert handler.score(instance, options, "rouge_input.instances[0]") == 1.0
