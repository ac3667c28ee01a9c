"""The ``evald`` command (:func:`main`); ``python -m evald.cli`` runs it too."""

import os

# gRPC core writes some failures itself, as raw lines on stderr (a failed TLS handshake, at INFO):
# beside the client commands' one-line messages and the server's JSON logs they are noise. Read
# once, when grpc loads (below); GRPC_VERBOSITY=INFO brings them back.
os.environ.setdefault("GRPC_VERBOSITY", "ERROR")

from evald.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
