"""The ``evald`` command (:func:`main`); ``python -m evald.cli`` runs it too."""

from evald.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
