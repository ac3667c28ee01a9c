"""Who may call the UI's admin APIs (runs browsing, import, human-evaluation task admin)."""

from __future__ import annotations

from evald.errors import PermissionDenied
from evald.ops.auth import ADMIN, ANNOTATOR

__all__ = ["ANNOTATOR", "require_admin"]


def require_admin(principal: object) -> None:
    """Raise PermissionDenied (HTTP 403, naming the key's role) unless ``principal`` is an
    admin: a :class:`evald.ops.auth.Principal` whose ``role`` is ``admin`` (every key unless
    its keys-file entry says otherwise; everyone when authentication is off)."""
    role = getattr(principal, "role", ADMIN)
    if role != ADMIN:
        name = getattr(principal, "name", "?")
        raise PermissionDenied(
            f"this API needs an admin key; the key '{name}' has the role '{role}'"
        )
