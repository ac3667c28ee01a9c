"""Filling ``{name}`` placeholders of a metric prompt template from an instance's variables."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from evald.errors import InvalidArgument
from evald.judging import transcript
from evald.judging.media import MediaSink

PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
"""``{response}`` is a variable; ``{"score": 1}`` (JSON in a template) is not."""


def variables_of(template: str) -> list[str]:
    """The variable names of ``template``, in first-use order."""
    return list(dict.fromkeys(PLACEHOLDER.findall(template)))


def fill(template: str, values: Mapping[str, str], path: str) -> str:
    """``template`` with each ``{name}`` replaced; InvalidArgument at ``path`` if any is missing."""
    missing = [name for name in variables_of(template) if name not in values]
    if missing:
        have = ", ".join(sorted(values)) or "none"
        raise InvalidArgument(
            path,
            f"template variable(s) {', '.join(repr(m) for m in missing)} missing from the "
            f"instance (it has: {have})",
        )
    return PLACEHOLDER.sub(lambda m: values[m.group(1)], template)


def json_variables(text: str, path: str) -> dict[str, str]:
    """The variables of a ``json_instance``: a JSON object; non-string values are re-encoded."""
    try:
        obj = json.loads(text)
        if not isinstance(obj, dict):
            raise InvalidArgument(path, "must be a JSON object of template variables")
        return {str(k): _text(v) for k, v in obj.items()}
    except ValueError as exc:
        raise InvalidArgument(path, f"is not valid JSON: {exc}") from None
    except RecursionError:  # json (and re-encoding a value) recurse once per nesting level
        raise InvalidArgument(path, "JSON nested too deeply") from None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def content_map_variables(content_map: Any, path: str, sink: MediaSink) -> dict[str, str]:
    """The variables of a ``content_map_instance``: each entry's contents as judge-readable
    text, its media labelled in ``sink``."""
    result: dict[str, str] = {}
    for name in sorted(content_map.values):
        contents = content_map.values[name].contents
        where = f"{path}.values[{name!r}].contents"
        result[name] = "\n".join(
            transcript.content_text(content, sink, f"{where}[{c}]")
            for c, content in enumerate(contents)
        )
    return result


def instance_variables(instance: Any, path: str, sink: MediaSink) -> dict[str, str]:
    """The template variables of a Pointwise/PairwiseMetricInstance found at ``path``."""
    which = instance.WhichOneof("instance")
    if which == "json_instance":
        return json_variables(instance.json_instance, f"{path}.json_instance")
    if which == "content_map_instance":
        return content_map_variables(
            instance.content_map_instance, f"{path}.content_map_instance", sink
        )
    raise InvalidArgument(path, "set json_instance (a JSON object of the template variables)")
