"""The ``evald`` command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``evald`` and its subcommands."""
    parser = argparse.ArgumentParser(prog="evald", description="LLM evaluation server")
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser(
        "serve",
        help="run the gRPC server",
        description="Run the evald gRPC server. Every flag also reads EVALD_<FLAG> "
        "(e.g. EVALD_PORT); flags win over the environment.",
    )
    serve.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port to listen on, 0 for any (default 50051)")
    serve.add_argument(
        "--max-message-bytes", type=int, help="largest request/response (default 64 MiB)"
    )
    serve.add_argument("--tls-cert", type=Path, help="PEM certificate chain: serve TLS")
    serve.add_argument("--tls-key", type=Path, help="PEM private key for --tls-cert")
    serve.add_argument(
        "--grace-seconds", type=float, help="how long in-flight calls may finish on SIGTERM"
    )
    serve.add_argument(
        "--reuse-port",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="share the port with other processes (SO_REUSEPORT)",
    )
    serve.add_argument("--log-level", help="DEBUG, INFO, WARNING or ERROR (default INFO)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``evald`` console script."""
    args = build_parser().parse_args(argv)
    if args.command == "serve":
        from evald.config import Settings
        from evald.server import main as serve_main

        overrides = {k: v for k, v in vars(args).items() if k != "command"}
        try:
            settings = Settings.load(overrides)
        except ValueError as exc:
            print(f"evald serve: {exc}", file=sys.stderr)
            return 2
        try:
            serve_main(settings)
        except OSError as exc:
            print(f"evald serve: {exc}", file=sys.stderr)
            return 1
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
