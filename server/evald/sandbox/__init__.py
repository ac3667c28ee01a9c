"""Isolated execution of user-supplied Python (custom-code metrics and result parsers).

Off unless the server runs with ``--enable-custom-code``. See :mod:`evald.sandbox.runner` for
what the isolation rests on.
"""

from evald.errors import ResourceExhausted
from evald.sandbox.limits import Limits
from evald.sandbox.runner import DISABLED, Result, Sandbox

__all__ = ["DISABLED", "Limits", "ResourceExhausted", "Result", "Sandbox"]
