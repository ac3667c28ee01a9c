"""The prompt perturbations of AWS FMEval's semantic robustness evaluations.

Each perturbation turns one text into ``num_perturbations`` perturbed copies, the same strings,
character for character, that FMEval 1.2.3 produces for the same input, parameters and seed
(``src/fmeval/transforms/semantic_perturbations.py``: ``ButterFinger``, ``RandomUppercase``,
``AddRemoveWhitespace``; the names of ``PERTURBATIONS`` are the ``perturbation_type`` values of
``src/fmeval/constants.py``).

Random numbers, as FMEval draws them:

- numpy's ``Generator`` (``numpy.random.default_rng(seed)``, PCG64), not Python's ``random``.
  FMEval's older ``eval_algorithms/semantic_perturbation_utils.py`` seeded the global ``random``
  and ``numpy.random`` modules instead; the algorithms no longer use it, and neither do we.
- One generator per transform object, seeded once when it is built. The algorithms build it
  without a seed, so the seed is the transform's default, ``DEFAULT_SEED`` (5), for every
  record. The generator is not reseeded per record or per perturbation index: the
  ``num_perturbations`` copies of one text come from one continuous stream, copy 0 first.
- ``perturb(p, text, seed)`` starts a fresh generator, which is what FMEval gives the first
  record a transform object sees (``evaluate_sample`` on a newly built algorithm, or the first
  row of a Ray actor). Across rows FMEval's stream continues in each Ray actor (each actor
  builds its own transform from the class and constructor arguments, seeded alike), so which
  row gets which stretch of the stream depends on Ray's scheduling; ``perturb_with`` takes a
  caller's generator to reproduce any such sharing, e.g. one generator over the rows in order.

The draws, per copy and in text order:

- butter finger: for each character whose lower case is a key of ``KEYBOARD_NEIGHBOURS``
  (a-z and the space), one ``random()``; if it is ``<= perturbation_prob``, one
  ``choice`` among the key's neighbours (the key itself included). Other characters draw
  nothing. Every character is lowered first and, when lowering changed it, the result is upper
  cased again, so the text may change even with probability 0 (``"ẞ"`` becomes ``"SS"``).
- random upper case: one ``choice(len(text), int(len(text) * uppercase_fraction),
  replace=False)``; the characters at those positions are upper cased.
- whitespace add/remove: one ``random()`` per character; a whitespace character (``str.isspace``)
  is dropped when it is ``< remove_prob``, any other character gets a space *after* it when it is
  ``< add_prob``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np

DEFAULT_SEED: Final = 5
"""The seed of FMEval's perturbation transforms; its algorithms never pass another."""

# NL-Augmenter's approximate QWERTY neighbours, as FMEval copies them (typos included: "w"
# appears twice for "a", "g" for "e", and "p" has "[" and "'"). Each entry lists the key itself
# first, so a "typo" can leave the character as it was.
KEYBOARD_NEIGHBOURS: Final[dict[str, str]] = {
    "q": "qwasedzx",
    "w": "wqesadrfcx",
    "e": "ewrsfdqazxcvgt",
    "r": "retdgfwsxcvgt",
    "t": "tryfhgedcvbnju",
    "y": "ytugjhrfvbnji",
    "u": "uyihkjtgbnmlo",
    "i": "iuojlkyhnmlp",
    "o": "oipklujm",
    "p": "plo['ik",
    "a": "aqszwxwdce",
    "s": "swxadrfv",
    "d": "decsfaqgbv",
    "f": "fdgrvwsxyhn",
    "g": "gtbfhedcyjn",
    "h": "hyngjfrvkim",
    "j": "jhknugtblom",
    "k": "kjlinyhn",
    "l": "lokmpujn",
    "z": "zaxsvde",
    "x": "xzcsdbvfrewq",
    "c": "cxvdfzswergb",
    "v": "vcfbgxdertyn",
    "b": "bvnghcftyun",
    "n": "nbmhjvgtuik",
    "m": "mnkjloik",
    " ": " ",
}


def _check_count(num_perturbations: int) -> None:
    if isinstance(num_perturbations, bool) or num_perturbations < 1:
        raise ValueError(f"num_perturbations must be a positive integer, not {num_perturbations!r}")


def _check_probability(name: str, value: float) -> None:
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be between 0 and 1, not {value!r}")


@dataclass(frozen=True)
class ButterFinger:
    """Keyboard typos: a letter becomes one of its QWERTY neighbours.

    ``perturbation_prob`` is the chance that a letter (or space) is retyped; FMEval's default.
    """

    perturbation_prob: float = 0.1
    num_perturbations: int = 5

    def __post_init__(self) -> None:
        _check_probability("perturbation_prob", self.perturbation_prob)
        _check_count(self.num_perturbations)


@dataclass(frozen=True)
class RandomUpperCase:
    """Upper cases ``int(len(text) * uppercase_fraction)`` characters at random positions."""

    uppercase_fraction: float = 0.1
    num_perturbations: int = 5

    def __post_init__(self) -> None:
        # Above 1 FMEval asks numpy for more distinct positions than the text has and fails.
        _check_probability("uppercase_fraction", self.uppercase_fraction)
        _check_count(self.num_perturbations)


@dataclass(frozen=True)
class WhitespaceAddRemove:
    """Drops whitespace characters and inserts spaces after the others, at random."""

    add_prob: float = 0.05
    remove_prob: float = 0.1
    num_perturbations: int = 5

    def __post_init__(self) -> None:
        _check_probability("add_prob", self.add_prob)
        _check_probability("remove_prob", self.remove_prob)
        _check_count(self.num_perturbations)


Perturbation = ButterFinger | RandomUpperCase | WhitespaceAddRemove

PERTURBATIONS: Final[dict[str, type[Perturbation]]] = {
    "butter_finger": ButterFinger,
    "random_upper_case": RandomUpperCase,
    "whitespace_add_remove": WhitespaceAddRemove,
}
"""FMEval's ``perturbation_type`` names and the perturbation each selects."""


def perturb(perturbation: Perturbation, text: str, seed: int = DEFAULT_SEED) -> list[str]:
    """The ``num_perturbations`` perturbed copies of ``text``, from a generator seeded afresh."""
    return perturb_with(perturbation, text, np.random.default_rng(seed))


def perturb_with(perturbation: Perturbation, text: str, rng: np.random.Generator) -> list[str]:
    """Like ``perturb``, drawing from ``rng`` and leaving it advanced past the draws."""
    match perturbation:
        case ButterFinger():
            return [
                _butter_finger(text, perturbation.perturbation_prob, rng)
                for _ in range(perturbation.num_perturbations)
            ]
        case RandomUpperCase():
            return [
                _random_upper_case(text, perturbation.uppercase_fraction, rng)
                for _ in range(perturbation.num_perturbations)
            ]
        case WhitespaceAddRemove():
            return [
                _whitespace_add_remove(text, perturbation.add_prob, perturbation.remove_prob, rng)
                for _ in range(perturbation.num_perturbations)
            ]


def _butter_finger(text: str, prob: float, rng: np.random.Generator) -> str:
    out = []
    for char in text:
        lower = char.lower()
        typed = lower
        neighbours = KEYBOARD_NEIGHBOURS.get(lower)
        # The second draw happens only on a hit, so the draws cannot be made up front.
        if neighbours is not None and rng.random() <= prob:
            # Generator.choice over a sequence of n draws exactly integers(0, n): same stream.
            typed = neighbours[int(rng.integers(len(neighbours)))]
        # FMEval restores case by comparing the lowered character with the original, which also
        # upper cases a typo of an upper case letter and reshapes letters whose cases do not
        # round-trip ("ẞ" -> "ß" -> "SS").
        out.append(typed.upper() if lower != char else typed)
    return "".join(out)


def _random_upper_case(text: str, fraction: float, rng: np.random.Generator) -> str:
    count = int(len(text) * fraction)
    # The same call FMEval makes (it passes range(len(text)), which numpy samples alike): numpy's
    # own algorithm for distinct positions, including its final shuffle, decides the draws.
    positions = set(rng.choice(len(text), size=count, replace=False).tolist())
    return "".join(char.upper() if i in positions else char for i, char in enumerate(text))


def _whitespace_add_remove(
    text: str, add_prob: float, remove_prob: float, rng: np.random.Generator
) -> str:
    # One uniform per character in order; a vector of them is the same stream as one call each.
    draws = rng.random(len(text)).tolist()
    out = []
    for char, draw in zip(text, draws, strict=True):
        if char.isspace():
            if draw >= remove_prob:
                out.append(char)
        elif draw < add_prob:
            out.append(char + " ")
        else:
            out.append(char)
    return "".join(out)
