"""``google.api.http`` path templates: parse once, match URL paths, bind variables.

Grammar (from ``google/api/http.proto``)::

    Template = "/" Segments [ Verb ] ;
    Segments = Segment { "/" Segment } ;
    Segment  = "*" | "**" | LITERAL | Variable ;
    Variable = "{" FieldPath [ "=" Segments ] "}" ;
    Verb     = ":" LITERAL ;

``{name}`` is short for ``{name=*}``; ``**`` may only be the last segment. Two URL spellings
the official SDKs send are accepted besides the canonical one: a slash before the verb
(``/v1beta1/projects/p/locations/l/:evaluateInstances`` and ``/v1beta1/:evaluateInstances``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from urllib.parse import unquote


class Kind(Enum):
    """What one template segment matches."""

    LITERAL = "literal"
    STAR = "*"
    DOUBLE_STAR = "**"


@dataclass(frozen=True)
class Segment:
    """One ``/``-separated piece of a template."""

    kind: Kind
    literal: str = ""


@dataclass(frozen=True)
class Variable:
    """A ``{field.path=...}`` binding covering ``segments[start:end]`` of the template."""

    field_path: str
    start: int
    end: int


@dataclass(frozen=True)
class PathTemplate:
    """A parsed template; :meth:`match` returns the variable bindings of a URL path."""

    source: str
    segments: tuple[Segment, ...]
    variables: tuple[Variable, ...]
    verb: str | None

    @classmethod
    def parse(cls, template: str) -> PathTemplate:
        """Parse ``template``; raises ValueError naming the problem."""
        if not template.startswith("/"):
            raise ValueError(f"path template must start with '/': {template!r}")
        body, verb = _split_verb(template)
        segments: list[Segment] = []
        variables: list[Variable] = []
        for piece in _split_top_level(body[1:], template):
            if piece.startswith("{"):
                if not piece.endswith("}"):
                    raise ValueError(f"unclosed variable in {template!r}")
                name, _, pattern = piece[1:-1].partition("=")
                if not name or not all(part.isidentifier() for part in name.split(".")):
                    raise ValueError(f"bad variable name {name!r} in {template!r}")
                if any(v.field_path == name for v in variables):
                    raise ValueError(f"variable {name!r} bound twice in {template!r}")
                inner = [_segment(p, template) for p in (pattern or "*").split("/")]
                variables.append(Variable(name, len(segments), len(segments) + len(inner)))
                segments.extend(inner)
            else:
                segments.append(_segment(piece, template))
        for i, segment in enumerate(segments):
            if segment.kind is Kind.DOUBLE_STAR and i != len(segments) - 1:
                raise ValueError(f"'**' must be the last segment in {template!r}")
        return cls(template, tuple(segments), tuple(variables), verb)

    def match(self, path: str) -> dict[str, str] | None:
        """Bindings (field path → decoded value) if the raw URL ``path`` matches, else None."""
        if self.verb is not None:
            for suffix in (":" + self.verb, "/:" + self.verb):
                # Canonical spelling first; the SDKs' slash-before-colon spelling second.
                if path.endswith(suffix):
                    found = self._match_segments(path[: -len(suffix)])
                    if found is not None:
                        return found
            return None
        return self._match_segments(path)

    def _match_segments(self, path: str) -> dict[str, str] | None:
        if not path.startswith("/"):
            return None
        raw = path[1:].split("/") if path != "/" else []
        template = self.segments
        open_ended = bool(template) and template[-1].kind is Kind.DOUBLE_STAR
        fixed = len(template) - 1 if open_ended else len(template)
        if len(raw) < fixed or (not open_ended and len(raw) != fixed):
            return None
        for segment, value in zip(template[:fixed], raw, strict=False):
            if segment.kind is Kind.LITERAL:
                if unquote(value) != segment.literal:
                    return None
            elif not value:  # '*' and variables match one non-empty segment
                return None
        bindings: dict[str, str] = {}
        for variable in self.variables:
            end = len(raw) if variable.end == len(template) and open_ended else variable.end
            parts = raw[variable.start : end]
            if len(parts) == 1 and template[variable.start].kind is not Kind.DOUBLE_STAR:
                bindings[variable.field_path] = unquote(parts[0])
            else:
                # Multi-segment values keep an encoded '/' encoded (http.proto's rule).
                bindings[variable.field_path] = "/".join(_unquote_keep_slash(p) for p in parts)
        return bindings


def _split_verb(template: str) -> tuple[str, str | None]:
    depth = 0
    colon = -1
    for i, char in enumerate(template):
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == ":" and depth == 0:
            colon = i
    if colon == -1:
        return template, None
    verb = template[colon + 1 :]
    if not verb or "/" in verb or "{" in verb:
        raise ValueError(f"bad verb in {template!r}")
    return template[:colon], verb


def _split_top_level(body: str, template: str) -> list[str]:
    pieces: list[str] = []
    depth = 0
    current: list[str] = []
    for char in body:
        if char == "{":
            depth += 1
            if depth > 1:
                raise ValueError(f"nested variables in {template!r}")
        elif char == "}":
            depth -= 1
            if depth < 0:
                raise ValueError(f"unbalanced '}}' in {template!r}")
        if char == "/" and depth == 0:
            pieces.append("".join(current))
            current = []
        else:
            current.append(char)
    if depth != 0:
        raise ValueError(f"unclosed variable in {template!r}")
    pieces.append("".join(current))
    return pieces


def _segment(piece: str, template: str) -> Segment:
    if piece == "*":
        return Segment(Kind.STAR)
    if piece == "**":
        return Segment(Kind.DOUBLE_STAR)
    if not piece or any(c in piece for c in "{}*="):
        raise ValueError(f"bad segment {piece!r} in {template!r}")
    return Segment(Kind.LITERAL, piece)


def _unquote_keep_slash(value: str) -> str:
    return unquote(value.replace("%2F", "%252F").replace("%2f", "%252f"))
