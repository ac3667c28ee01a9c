"""METEOR as AWS FMEval's summarization accuracy computes it, offline.

FMEval scores a response against its target with NLTK's ``single_meteor_score`` (default
``preprocess=str.lower``, Porter stemmer, ``alpha=0.9``, ``beta=3.0``, ``gamma=0.5``) on both
texts tokenized by ``nltk.word_tokenize``. :func:`meteor` calls the same NLTK function with the
same defaults; what it changes is only where the data comes from, since NLTK would download it:

- ``nltk.word_tokenize(text)`` is NLTK's ``NLTKWordTokenizer`` applied to each sentence of
  ``nltk.sent_tokenize(text)``; the sentences come from :mod:`evald.metrics.text.sentences`
  (NLTK's punkt splitter with the English model shipped as code), the words from NLTK's own
  tokenizer class, so the tokens are the ones NLTK gives.
- WordNet (synonym matching) is read from WordNet 3.0's database files as Debian's
  ``wordnet-base`` package installs them (``/usr/share/wordnet``), by NLTK's own
  ``WordNetCorpusReader``. Debian's files lack ``lexnames`` (the 45 lexicographer file names,
  a fixed table of WordNet 3.0's ``lexnames(5WN)``), which the reader needs: it is served from
  :data:`LEXNAMES`. Every synset, its lemma names, the lemma index and the exception lists of
  Debian's files equal those of NLTK's ``wordnet`` corpus, which is all METEOR reads (its
  pointers differ in a few places, which METEOR never follows).

The reader is loaded on first use (about a second), once per process, and shared; NLTK's reader
seeks and reads shared file handles, so its lookups are serialized with a lock.
"""

from __future__ import annotations

import io
import os
import threading
import warnings
from functools import cache
from typing import Any

import nltk  # type: ignore[import-untyped]
from nltk.corpus.reader.wordnet import WordNetCorpusReader  # type: ignore[import-untyped]
from nltk.tokenize.destructive import NLTKWordTokenizer  # type: ignore[import-untyped]
from nltk.translate.meteor_score import single_meteor_score  # type: ignore[import-untyped]

from evald.errors import FailedPrecondition
from evald.metrics.text.sentences import split_sentences

WORDNET_DIR = "/usr/share/wordnet"
"""Where Debian's ``wordnet-base`` package installs WordNet 3.0's database files."""

INSTALL_HINT = (
    "install Debian's wordnet-base package (apt-get install --no-install-recommends wordnet-base)"
)

DATABASE_FILES = tuple(
    f"{kind}.{pos}" for kind in ("data", "index") for pos in ("noun", "verb", "adj", "adv")
) + tuple(f"{pos}.exc" for pos in ("noun", "verb", "adj", "adv"))
"""The files NLTK's reader opens to look synonyms up (``lexnames`` is served from code)."""

LEXNAMES = (
    ("adj.all", 3),
    ("adj.pert", 3),
    ("adv.all", 4),
    ("noun.Tops", 1),
    ("noun.act", 1),
    ("noun.animal", 1),
    ("noun.artifact", 1),
    ("noun.attribute", 1),
    ("noun.body", 1),
    ("noun.cognition", 1),
    ("noun.communication", 1),
    ("noun.event", 1),
    ("noun.feeling", 1),
    ("noun.food", 1),
    ("noun.group", 1),
    ("noun.location", 1),
    ("noun.motive", 1),
    ("noun.object", 1),
    ("noun.person", 1),
    ("noun.phenomenon", 1),
    ("noun.plant", 1),
    ("noun.possession", 1),
    ("noun.process", 1),
    ("noun.quantity", 1),
    ("noun.relation", 1),
    ("noun.shape", 1),
    ("noun.state", 1),
    ("noun.substance", 1),
    ("noun.time", 1),
    ("verb.body", 2),
    ("verb.change", 2),
    ("verb.cognition", 2),
    ("verb.communication", 2),
    ("verb.competition", 2),
    ("verb.consumption", 2),
    ("verb.contact", 2),
    ("verb.creation", 2),
    ("verb.emotion", 2),
    ("verb.motion", 2),
    ("verb.perception", 2),
    ("verb.possession", 2),
    ("verb.social", 2),
    ("verb.stative", 2),
    ("verb.weather", 2),
    ("adj.ppl", 3),
)
"""WordNet 3.0's lexicographer files by number (the file ``lexnames``: number, name and
syntactic category 1 noun, 2 verb, 3 adjective, 4 adverb)."""

_LEXNAMES_TEXT = "".join(f"{i:02d}\t{name}\t{cat}\n" for i, (name, cat) in enumerate(LEXNAMES))


class _Reader(WordNetCorpusReader):  # type: ignore[misc]
    """NLTK's WordNet reader over Debian's files, with ``lexnames`` served from code."""

    def open(self, file: str) -> Any:
        if file == "lexnames":
            return io.StringIO(_LEXNAMES_TEXT)
        return super().open(file)

    def map_wn(self, version: str = "wordnet") -> None:
        # NLTK maps sense keys of the ``wordnet`` corpus onto the loaded database for its
        # multilingual (OMW) lookups, reading ``index.sense`` twice at load. METEOR looks up
        # English only, so there is nothing to map.
        return None


class SynonymSource:
    """The part of NLTK's WordNet reader that METEOR uses (``synsets``), safe from several
    threads at once."""

    def __init__(self, reader: Any) -> None:
        self._reader = reader
        self._lock = threading.Lock()

    def synsets(self, lemma: str) -> list[Any]:
        with self._lock:
            found: list[Any] = self._reader.synsets(lemma)
            return found


_loading = threading.Lock()
_loaded: dict[str, SynonymSource] = {}


def wordnet(directory: str | None = None) -> SynonymSource:
    """WordNet 3.0 from ``directory`` (default :data:`WORDNET_DIR`), loaded once per process;
    FailedPrecondition saying what to install when its files are missing or unreadable (not
    remembered: installing the data is enough, without a restart)."""
    directory = WORDNET_DIR if directory is None else directory
    with _loading:
        source = _loaded.get(directory)
        if source is None:
            source = SynonymSource(_load(directory))
            _loaded[directory] = source
        return source


def _load(directory: str) -> Any:
    missing = [f for f in DATABASE_FILES if not os.path.isfile(os.path.join(directory, f))]
    if missing:
        raise FailedPrecondition(
            f"METEOR needs WordNet 3.0's database files, and {directory} lacks "
            f"{', '.join(missing)}: {INSTALL_HINT}"
        )
    root = os.path.realpath(directory)
    # NLTK opens corpus files only under a directory of its data path.
    if root not in nltk.data.path:
        nltk.data.path.append(root)
    try:
        with warnings.catch_warnings():
            # "The multilingual functions are not available": METEOR uses English only.
            warnings.filterwarnings("ignore", "The multilingual functions", UserWarning)
            return _Reader(root, None)
    except (OSError, ValueError, AssertionError, LookupError) as exc:
        raise FailedPrecondition(
            f"METEOR cannot read WordNet 3.0 from {directory} ({exc}): {INSTALL_HINT}"
        ) from None


@cache
def _word_tokenizer() -> Any:
    return NLTKWordTokenizer()


def word_tokenize(text: str) -> list[str]:
    """The tokens of ``text`` exactly as ``nltk.word_tokenize(text)`` (English) gives them,
    without NLTK's punkt data download."""
    tokenizer = _word_tokenizer()
    return [token for sentence in split_sentences(text) for token in tokenizer.tokenize(sentence)]


def meteor(reference: str, candidate: str, directory: str | None = None) -> float:
    """METEOR of ``candidate`` against ``reference`` in 0..1, as FMEval computes it:
    ``single_meteor_score(word_tokenize(reference), word_tokenize(candidate))`` with NLTK's
    defaults. 0 when either side has no tokens or no token matches. FailedPrecondition when
    WordNet is not installed in ``directory`` (see :func:`wordnet`)."""
    score: float = single_meteor_score(
        word_tokenize(reference), word_tokenize(candidate), wordnet=wordnet(directory)
    )
    return score
