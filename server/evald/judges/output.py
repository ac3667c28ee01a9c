"""Reading structured verdicts out of free-form judge text, tolerantly."""

from __future__ import annotations

import json
import re
from typing import Any


class OutputError(ValueError):
    """The judge's answer could not be read; the message says why (without the whole answer)."""


_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


def json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in ``text``: the whole text, a fenced block, or an embedded one."""
    candidates = [text.strip(), *(m.group(1).strip() for m in _FENCE.finditer(text))]
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def field_line(text: str, names: tuple[str, ...]) -> str | None:
    """The value of the last ``name: value`` (or ``name = value``) line for any of ``names``.

    Markdown emphasis and heading marks around the name are ignored (``**Score:** 4``).
    """
    pattern = re.compile(
        r"^[\s#>*_-]*(?:" + "|".join(re.escape(n) for n in names) + r")[\s*_]*[:=][\s*_]*(.+?)\s*$",
        re.IGNORECASE | re.MULTILINE,
    )
    found = pattern.findall(text)
    return found[-1].strip().strip("*_`\"'").strip() if found else None


def lookup(obj: dict[str, Any], names: tuple[str, ...]) -> Any:
    """The value of the first of ``names`` present in ``obj`` (case-insensitive keys)."""
    lowered = {str(k).lower(): v for k, v in obj.items()}
    for name in names:
        if name.lower() in lowered:
            return lowered[name.lower()]
    return None
