"""Who may call the UI's admin APIs (runs browsing, import)."""

from __future__ import annotations

from evald.errors import PermissionDenied

ANNOTATOR = "annotator"


def require_admin(principal: object) -> None:
    """Raise PermissionDenied (HTTP 403) unless ``principal`` may use the admin APIs.

    Every key is an admin unless it says otherwise: a principal whose ``role`` is
    ``"annotator"`` is refused (keys gain roles in :mod:`evald.ops.auth`)."""
    if getattr(principal, "role", None) == ANNOTATOR:
        raise PermissionDenied("this API needs an admin key; the key given is an annotator's")
