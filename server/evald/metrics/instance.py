"""The EvaluationInstance as metrics read it: plain texts, other data, rubric groups, JSON.

``prompt``, ``response`` and ``reference`` (and each ``other_data`` value) are an ``InstanceData``:
either ``text`` or ``contents``. From contents, the text parts of one content are concatenated
and contents are joined with a newline; parts that are not text (images, function calls, ...)
and thought parts are skipped, and a note saying so is added to the explanation of a metric
that did not read them (judges are shown media: :mod:`evald.judging.media`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from google.protobuf import json_format

from evald.errors import InvalidArgument

TEXT_FIELDS = ("prompt", "response", "reference")


@dataclass
class InstanceView:
    """Read-only view of one ``EvaluationInstance`` message found at request field ``path``."""

    message: Any
    path: str = "instance"
    notes: list[str] = field(default_factory=list)
    _texts: dict[str, str | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in TEXT_FIELDS:
            self._texts[name] = (
                self._text(getattr(self.message, name), f"{self.path}.{name}")
                if self.message.HasField(name)
                else None
            )

    def text(self, name: str) -> str | None:
        """Text of ``prompt``, ``response`` or ``reference``; None when the field is unset."""
        return self._texts[name]

    def require(self, name: str) -> str:
        """Text of ``name``, or InvalidArgument naming ``instance.<name>`` when it is unset."""
        value = self._texts[name]
        if value is None:
            raise InvalidArgument(
                f"{self.path}.{name}", f"this metric needs instance.{name} (text or contents)"
            )
        return value

    @cached_property
    def other_data(self) -> dict[str, str]:
        """``other_data.map_instance`` with each value as text."""
        values = self.message.other_data.map_instance
        return {
            key: self._text(values[key], f"{self.path}.other_data.map_instance[{key!r}]")
            for key in sorted(values)
        }

    @property
    def rubric_groups(self) -> Any:
        """The ``rubric_groups`` map (group key to RubricGroup message)."""
        return self.message.rubric_groups

    @cached_property
    def as_json(self) -> dict[str, Any]:
        """The instance as JSON with proto field names: ``instance['response']['text']``."""
        value: dict[str, Any] = json_format.MessageToDict(
            self.message, preserving_proto_field_name=True
        )
        return value

    def variables(self) -> dict[str, Any]:
        """Names a template may use: the texts (unset ones as ""), ``other_data`` entries, and
        the NeMo-style aliases ``item`` (all fields) and ``sample.output_text`` (the response)."""
        texts = {name: self._texts[name] or "" for name in TEXT_FIELDS}
        item = {**self.other_data, **texts}
        return {
            **self.other_data,
            **texts,
            "other_data": dict(self.other_data),
            "item": item,
            "sample": {"output_text": texts["response"]},
        }

    def note(self) -> str:
        """The notes about skipped content, as one sentence ('' when there are none)."""
        return " ".join(dict.fromkeys(self.notes))

    def _text(self, data: Any, path: str) -> str:
        which = data.WhichOneof("data")
        if which == "text":
            return str(data.text)
        if which is None:
            return ""
        chunks: list[str] = []
        skipped: dict[str, int] = {}
        for content in data.contents.contents:
            pieces = []
            for part in content.parts:
                kind = part.WhichOneof("data")
                if kind == "text" and not part.thought:
                    pieces.append(part.text)
                else:
                    label = "thought" if part.thought else (kind or "empty")
                    skipped[label] = skipped.get(label, 0) + 1
            chunks.append("".join(pieces))
        if skipped:
            kinds = ", ".join(f"{n} {k}" for k, n in sorted(skipped.items()))
            self.notes.append(f"Note: non-text parts of {path} were ignored ({kinds}).")
        return "\n".join(chunks)


class TemplateRow(InstanceView):
    """A dataset row as NeMo Evaluator's API shows it to templates: ``context`` holds the row's
    columns, ``item`` (the row) and ``sample`` (``output_text``, ``response``). It has no
    instance message: metrics read it through :meth:`variables` only."""

    def __init__(self, context: dict[str, Any], path: str = "row") -> None:
        self.message = None
        self.path = path
        self.notes = []
        self._texts = dict.fromkeys(TEXT_FIELDS)
        self._context = context

    def variables(self) -> dict[str, Any]:
        return self._context
