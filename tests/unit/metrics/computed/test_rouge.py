"""rouge: hand-worked ROUGE F-measures, options, errors, and identity with rouge-score."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import nltk  # type: ignore[import-untyped]
import pytest
from evald.api import messages as m
from evald.errors import InvalidArgument
from evald.metrics.catalog import builtin
from evald.metrics.computed.rouge import DEFAULT_ROUGE_TYPE, ROUGE_TYPES
from evald.metrics.text.sentences import split_sentences
from rouge_score import rouge_scorer

from tests.support import CALL

ROUGE_METRIC = builtin().inputs["rouge_input"]

GOLDEN = Path(__file__).resolve().parents[3] / "golden" / "rouge"

CAT = ("the cat sat on the mat", "the cat is on the mat")  # (prediction, reference)

# (rouge_type, prediction, reference, spec options, expected F-measure), worked by hand: ROUGE-N
# F = 2PR/(P+R) over clipped n-gram counts, ROUGE-L over the longest common subsequence, on
# lower-cased [a-z0-9]+ tokens (everything else separates tokens).
HAND: list[Any] = [
    pytest.param("rouge1", "a b c", "a b c", {}, 1.0, id="identical"),
    pytest.param("rouge1", "a b c", "d e f", {}, 0.0, id="disjoint"),
    # overlap the x2, cat, on, mat = 5 of 6 on each side
    pytest.param("rouge1", *CAT, {}, 5 / 6, id="rouge1"),
    # bigrams: the cat, on the, the mat shared, 3 of 5 on each side
    pytest.param("rouge2", *CAT, {}, 3 / 5, id="rouge2"),
    # LCS "the cat on the mat" = 5 of 6
    pytest.param("rougeL", *CAT, {}, 5 / 6, id="rougeL"),
    # trigrams: "a b c" shared, 1 of 2 on each side
    pytest.param("rouge3", "a b c d", "a b c e", {}, 1 / 2, id="rouge3"),
    # reversed order: every unigram, no bigram, LCS of 1 in 5
    pytest.param("rouge1", "e d c b a", "a b c d e", {}, 1.0, id="reversed-rouge1"),
    pytest.param("rouge2", "e d c b a", "a b c d e", {}, 0.0, id="reversed-rouge2"),
    pytest.param("rougeL", "e d c b a", "a b c d e", {}, 1 / 5, id="reversed-rougeL"),
    # recall 1 (3 of 3), precision 3/6 -> F = 2/3
    pytest.param("rouge1", "a b c x y z", "a b c", {}, 2 / 3, id="precision-only"),
    pytest.param("rouge9", "a b c", "a b c", {}, 0.0, id="too-short-for-9-grams"),
    # lower-cased, punctuation dropped
    pytest.param("rouge1", "Hello, World!", "hello world", {}, 1.0, id="case-punctuation"),
    pytest.param("rouge1", "日本語", "日本語", {}, 0.0, id="no-ascii-tokens"),
    pytest.param("rouge1", "", "", {}, 0.0, id="both-empty"),
    pytest.param("rougeLsum", "", "a b", {"split_summaries": True}, 0.0, id="lsum-empty"),
    # Porter stemmer only with use_stemmer: running -> run, dogs -> dog
    pytest.param("rouge1", "running dogs", "run dog", {}, 0.0, id="no-stemmer"),
    pytest.param("rouge1", "running dogs", "run dog", {"use_stemmer": True}, 1.0, id="stemmer"),
    # rougeLsum: union LCS per reference sentence. Unsplit, one sentence each: LCS 3 of 6.
    pytest.param(
        "rougeLsum", "The cat sat. It was red.", "It was red. The cat sat.", {}, 1 / 2, id="lsum"
    ),
    # split into sentences, each reference sentence is matched whole
    pytest.param(
        "rougeLsum",
        "The cat sat. It was red.",
        "It was red. The cat sat.",
        {"split_summaries": True},
        1.0,
        id="lsum-split",
    ),
    # newlines split sentences even without split_summaries
    pytest.param(
        "rougeLsum", "The cat sat\nIt was red", "It was red\nThe cat sat", {}, 1.0, id="lsum-lines"
    ),
    # argument order matters for rougeLsum: the reference's one sentence [a a] has a union LCS
    # of one token with the prediction's sentences [a] and [a] -> P = R = 1/2 (swapped it is 1)
    pytest.param("rougeLsum", "a\na", "a a", {}, 1 / 2, id="lsum-reference-side"),
    # split_summaries is only read by rougeLsum
    pytest.param(
        "rougeL",
        "The cat sat. It was red.",
        "It was red. The cat sat.",
        {"split_summaries": True},
        1 / 2,
        id="rougeL-ignores-split",
    ),
    # "Dr." is a known abbreviation of the English Punkt model, so the reference is 2 sentences:
    # [dr smith left] and [he was late]; prediction [he was late], [dr smith left] -> all matched
    pytest.param(
        "rougeLsum",
        "He was late. Dr. Smith left.",
        "Dr. Smith left. He was late.",
        {"split_summaries": True},
        1.0,
        id="lsum-abbreviation",
    ),
]

# Pairs compared with rouge-score called directly, over every type and option.
REFERENCE = [
    CAT,
    ("The quick brown fox jumps over the lazy dog.", "A quick brown dog jumps over the lazy fox."),
    ("Police killed the gunman. The gunman was armed.", "The gunman was shot dead by police."),
    ("Mr. Smith arrived. He said hello!\nThen he left... Did he?", "Smith said hello and left."),
    ("running runners run quickly", "the runner runs quick"),
    ("naïve café, déjà vu", "naive cafe deja vu"),
    ("?!...", "..."),
    ("", "something"),
    ("1 2 3 4 5 6 7 8 9 10", "1 2 3 4 5 6 7 8 9 10 11"),
]
SPECS = [
    {"use_stemmer": stem, "split_summaries": split}
    for stem in (False, True)
    for split in (False, True)
]

# What nltk.sent_tokenize returns with NLTK's English punkt_tab data (run once where the data
# was installed); split_sentences must return the same without that data.
NLTK_SPLITS = [
    ("Dr. Smith went home. He was tired.", ["Dr. Smith went home.", "He was tired."]),
    (
        "Mr. Smith bought cheapsite.com for 1.5 million dollars, i.e. he paid a lot for it. Did "
        "he mind? Adam Jones Jr. thinks he didn't. In any case, this isn't true... Well, with a "
        "probability of .9 it isn't.",
        [
            "Mr. Smith bought cheapsite.com for 1.5 million dollars, i.e.",
            "he paid a lot for it.",
            "Did he mind?",
            "Adam Jones Jr. thinks he didn't.",
            "In any case, this isn't true... Well, with a probability of .9 it isn't.",
        ],
    ),
    ("one line\nno stop", ["one line\nno stop"]),
    ("Yes! No? Maybe.", ["Yes!", "No?", "Maybe."]),
    ("", []),
]


@contextmanager
def nltk_splits_offline() -> Iterator[None]:
    """Let rouge-score's own ``split_summaries`` code run without NLTK's downloadable data.

    rouge-score calls ``nltk.sent_tokenize``; this gives it the offline splitter the handler
    uses, so the reference side still runs rouge-score's splitting and scoring code.
    """
    with mock.patch.object(rouge_scorer.nltk, "sent_tokenize", split_sentences):
        yield


def reference_f(
    rouge_type: str, prediction: str, reference: str, use_stemmer: bool, split_summaries: bool
) -> float:
    scorer = rouge_scorer.RougeScorer(
        [rouge_type], use_stemmer=use_stemmer, split_summaries=split_summaries
    )
    with nltk_splits_offline():
        scores = scorer.score(target=reference, prediction=prediction)
    return float(scores[rouge_type].fmeasure)


def score(rouge_type: str, prediction: str, reference: str, **spec: bool) -> float:
    """The handler's score as a Python float (no 32-bit rounding)."""
    handler: Any = ROUGE_METRIC  # a ComputedMetric: options() and score()
    options = handler.options(m.RougeSpec(rouge_type=rouge_type, **spec), "rouge_input.metric_spec")
    instance = m.RougeInstance(prediction=prediction, reference=reference)
    return float(handler.score(instance, options, "rouge_input.instances[0]"))


def evaluate(pairs: list[tuple[str, str]], **spec: Any) -> list[float]:
    """Scores from the registered handler, through the result message (32-bit floats)."""
    metric_input = m.RougeInput(
        metric_spec=m.RougeSpec(**spec),
        instances=[m.RougeInstance(prediction=p, reference=r) for p, r in pairs],
    )
    result: Any = asyncio.run(ROUGE_METRIC.evaluate_input(metric_input, "rouge_input", CALL))
    values = result.rouge_metric_values
    assert all(v.HasField("score") for v in values)
    return [v.score for v in values]


@pytest.mark.parametrize(("rouge_type", "prediction", "reference", "spec", "expected"), HAND)
def test_hand_worked(
    rouge_type: str, prediction: str, reference: str, spec: dict[str, bool], expected: float
) -> None:
    assert score(rouge_type, prediction, reference, **spec) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(("rouge_type", "prediction", "reference", "spec", "expected"), HAND)
def test_hand_worked_values_agree_with_rouge_score(
    rouge_type: str, prediction: str, reference: str, spec: dict[str, bool], expected: float
) -> None:
    options = {"use_stemmer": False, "split_summaries": False, **spec}
    assert reference_f(rouge_type, prediction, reference, **options) == pytest.approx(
        expected, rel=1e-12
    )


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: "-".join(k for k, v in s.items() if v))
@pytest.mark.parametrize("rouge_type", ROUGE_TYPES)
@pytest.mark.parametrize(("prediction", "reference"), REFERENCE)
def test_identical_to_rouge_score(
    prediction: str, reference: str, rouge_type: str, spec: dict[str, bool]
) -> None:
    expected = reference_f(rouge_type, prediction, reference, **spec)
    assert score(rouge_type, prediction, reference, **spec) == expected


@pytest.mark.parametrize(
    ("requested", "canonical"),
    [
        ("rouge1", "rouge1"),
        ("ROUGE2", "rouge2"),
        ("rougel", "rougeL"),
        ("ROUGEL", "rougeL"),
        ("rougelsum", "rougeLsum"),
        ("ROUGELSUM", "rougeLsum"),
        ("RougeLSum", "rougeLsum"),
        ("rouge9", "rouge9"),
        ("", DEFAULT_ROUGE_TYPE),
        ("rouge", DEFAULT_ROUGE_TYPE),  # what the genai SDK sends for a metric named "rouge"
        ("ROUGE", DEFAULT_ROUGE_TYPE),
    ],
)
def test_rouge_type_letter_case_and_default(requested: str, canonical: str) -> None:
    handler: Any = ROUGE_METRIC  # a ComputedMetric: options() and score()
    options = handler.options(m.RougeSpec(rouge_type=requested), "rouge_input.metric_spec")
    assert options.rouge_type == canonical


def test_default_rouge_type_is_rouge_l() -> None:
    # Documented default; on a reordered text rougeL differs from rouge1 and rouge2.
    assert DEFAULT_ROUGE_TYPE == "rougeL"
    assert evaluate([("e d c b a", "a b c d e")]) == pytest.approx([0.2])


@pytest.mark.parametrize(
    "bad", ["rouge0", "rouge10", "rougeN", "rouge_l", "rougeLsum ", " rouge1", "bleu", "rouge-l"]
)
def test_unknown_rouge_type_is_rejected_naming_allowed_values(bad: str) -> None:
    metric_input = m.RougeInput(
        metric_spec=m.RougeSpec(rouge_type=bad),
        instances=[m.RougeInstance(prediction="a", reference="a")],
    )
    with pytest.raises(InvalidArgument) as raised:
        asyncio.run(ROUGE_METRIC.evaluate_input(metric_input, "rouge_input", CALL))
    (violation,) = raised.value.violations
    assert violation.field == "rouge_input.metric_spec.rouge_type"
    assert repr(bad) in violation.description
    assert all(name in violation.description for name in ROUGE_TYPES)


def test_missing_prediction_is_rejected() -> None:
    metric_input = m.RougeInput(instances=[m.RougeInstance(reference="a")])
    with pytest.raises(InvalidArgument) as raised:
        asyncio.run(ROUGE_METRIC.evaluate_input(metric_input, "rouge_input", CALL))
    assert raised.value.violations[0].field == "rouge_input.instances[0].prediction"


def test_scores_in_instance_order_with_zero_set() -> None:
    pairs = [CAT, ("a b c", "d e f"), ("a b c", "a b c")]
    assert evaluate(pairs, rouge_type="rouge2") == pytest.approx([0.6, 0.0, 1.0])


def test_large_batch_scored_off_loop_in_order() -> None:
    pairs = [(" ".join(["w"] * (i % 5)), "w w w") for i in range(60)]
    expected = [reference_f("rouge1", p, r, False, False) for p, r in pairs]
    assert evaluate(pairs, rouge_type="rouge1") == pytest.approx(expected, rel=1e-6, abs=1e-7)


def test_concurrent_threads_agree_with_sequential() -> None:
    jobs = [
        (t, p, r, s)
        for p, r in REFERENCE
        for t in ("rouge2", "rougeL", "rougeLsum")
        for s in (True, False)
    ] * 5
    expected = [reference_f(t, p, r, s, s) for t, p, r, s in jobs]

    def run(job: tuple[str, str, str, bool]) -> float:
        t, p, r, s = job
        return score(t, p, r, use_stemmer=s, split_summaries=s)

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert list(pool.map(run, jobs)) == expected


@pytest.mark.parametrize(("text", "sentences"), NLTK_SPLITS)
def test_splitter_matches_recorded_nltk_output(text: str, sentences: list[str]) -> None:
    assert split_sentences(text) == sentences


def test_split_summaries_needs_no_nltk_data(monkeypatch: pytest.MonkeyPatch) -> None:
    # With no NLTK data anywhere (nor a way to download it), split_summaries still scores.
    monkeypatch.setattr(nltk.data, "path", [])
    monkeypatch.setattr(nltk, "download", None)
    value = evaluate(
        [("He was late. Dr. Smith left.", "Dr. Smith left. He was late.")],
        rouge_type="rougeLsum",
        split_summaries=True,
    )
    assert value == [1.0]


def test_splitter_does_not_grow_with_vocabulary() -> None:
    from evald.metrics.text import sentences

    before = len(sentences._tokenizer()._params.ortho_context)
    split_sentences("Zyxwvut qwertyuiop. Asdfghjkl zxcvbnm. Plokijuh.")
    assert len(sentences._tokenizer()._params.ortho_context) == before


def _nltk_punkt_installed() -> bool:
    try:
        nltk.data.find("tokenizers/punkt_tab/english/")
    except LookupError:
        return False
    return True


@pytest.mark.skipif(not _nltk_punkt_installed(), reason="NLTK punkt_tab data not installed")
def test_splitter_identical_to_nltk_with_its_data() -> None:
    # Runs where NLTK's data is installed (e.g. NLTK_DATA=...); CI has none, hence the records.
    texts = [t for t, _ in NLTK_SPLITS] + [p for pair in REFERENCE for p in pair]
    assert [split_sentences(t) for t in texts] == [nltk.sent_tokenize(t) for t in texts]


def with_response(folder: Path) -> list[Path]:
    return [p for p in sorted(folder.glob("*.json")) if "response" in json.loads(p.read_text())]


def pick(mapping: dict[str, Any], camel: str, snake: str, default: Any) -> Any:
    """A proto3 JSON field under either of its accepted names."""
    return mapping.get(camel, mapping.get(snake, default))


@pytest.mark.parametrize("path", with_response(GOLDEN), ids=lambda p: p.name)
def test_golden_expectations_match_rouge_score(path: Path) -> None:
    # The golden files' expected scores must come from the reference library, not from us.
    case = json.loads(path.read_text(encoding="utf-8"))
    rouge_input = pick(case["request"], "rougeInput", "rouge_input", {})
    spec = pick(rouge_input, "metricSpec", "metric_spec", {})
    rouge_type = pick(spec, "rougeType", "rouge_type", "") or DEFAULT_ROUGE_TYPE
    rouge_type = {t.lower(): t for t in ROUGE_TYPES}[rouge_type.lower()]
    options = {
        "use_stemmer": bool(pick(spec, "useStemmer", "use_stemmer", False)),
        "split_summaries": bool(pick(spec, "splitSummaries", "split_summaries", False)),
    }
    instances = rouge_input["instances"]
    values = case["response"]["rougeResults"]["rougeMetricValues"]
    assert len(values) == len(instances)
    for instance, value in zip(instances, values, strict=True):
        expected = reference_f(rouge_type, instance["prediction"], instance["reference"], **options)
        assert value["score"] == pytest.approx(expected, rel=1e-6, abs=1e-7)


def test_splitter_time_limit_is_an_invalid_argument_naming_the_field() -> None:
    # NLTK bounds its regular expressions' run time with TimeoutError; that must not be INTERNAL.
    def slow(text: str) -> list[str]:
        if "slow" in text:
            raise TimeoutError("regular-expression match exceeded its time limit")
        return split_sentences(text)

    metric_input = m.RougeInput(
        metric_spec=m.RougeSpec(rouge_type="rougeLsum", split_summaries=True),
        instances=[
            m.RougeInstance(prediction="fine.", reference="fine."),
            m.RougeInstance(prediction="fine.", reference="slow."),
        ],
    )
    with (
        mock.patch("evald.metrics.computed.rouge.split_sentences", slow),
        pytest.raises(InvalidArgument) as raised,
    ):
        asyncio.run(ROUGE_METRIC.evaluate_input(metric_input, "rouge_input", CALL))
    assert raised.value.violations[0].field == "rouge_input.instances[1].reference"
