"""Media parts of an instance on their way to a judge: each gets a label the prompt text
carries where the part was, and travels beside the prompt as an image, audio, video or file.

Rendering code that meets an ``inline_data`` or ``file_data`` part asks a :class:`MediaSink`
for the part's label. The judge request then carries every media whose label its prompt holds
(:func:`evald.judging.engine.shown`), and the judge backend sends each after its label; a
backend or model that cannot read one fails the metric with INVALID_ARGUMENT naming the part.
"""

from __future__ import annotations

import mimetypes
from typing import Any

from evald.judges import Media

UNTYPED = "application/octet-stream"


class MediaSink:
    """The media of one instance, in the order they were rendered."""

    def __init__(self) -> None:
        self.items: list[Media] = []

    def add(self, part: Any, path: str) -> str:
        """The label of media ``part`` (an ``inline_data`` or ``file_data`` Part at ``path``)."""
        if part.WhichOneof("data") == "inline_data":
            blob = part.inline_data
            mime = blob.mime_type.strip().lower() or UNTYPED
            media = Media(mime, data=bytes(blob.data), path=f"{path}.inline_data")
        else:
            ref = part.file_data
            guessed = mimetypes.guess_type(ref.file_uri)[0]
            mime = (ref.mime_type.strip() or guessed or UNTYPED).lower()
            media = Media(mime, uri=ref.file_uri.strip(), path=f"{path}.file_data")
        for known in self.items:  # the same bytes twice are shown once
            if (known.mime_type, known.digest()) == (media.mime_type, media.digest()):
                return known.label
        label = f"[media {len(self.items) + 1}: {mime}]"
        self.items.append(Media(media.mime_type, media.data, media.uri, media.path, label))
        return label

    @property
    def media(self) -> tuple[Media, ...]:
        """Every media added so far."""
        return tuple(self.items)
