"""The ``evald`` command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any


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
    serve.add_argument(
        "--workers",
        type=int,
        help="server processes sharing the port (SO_REUSEPORT); 0: one per core (default 1)",
    )
    serve.add_argument(
        "--pin-workers",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="pin each of several workers to its own core (default on)",
    )
    serve.add_argument(
        "--scoring-processes",
        type=int,
        help="processes per server process that score large batches; 0: use a thread "
        "(default: one per core; with --workers, per worker)",
    )
    serve.add_argument(
        "--enable-custom-code",
        dest="custom_code",
        action="store_true",
        default=None,
        help="run custom-code metrics and result parsers in the sandbox (off by default)",
    )
    serve.add_argument(
        "--data-dir",
        type=Path,
        help="where registered metrics and dataset jobs are kept (~/.local/share/evald)",
    )
    serve.add_argument(
        "--job-concurrency", type=int, help="rows of one dataset job scored at once (default 16)"
    )
    serve.add_argument(
        "--max-running-jobs", type=int, help="dataset jobs run at once; more wait (default 2)"
    )
    serve.add_argument(
        "--custom-code-cpu-seconds", type=int, help="CPU seconds per custom-code run (default 5)"
    )
    serve.add_argument(
        "--custom-code-wall-seconds", type=float, help="wall seconds per custom-code run (10)"
    )
    serve.add_argument(
        "--custom-code-memory-bytes", type=int, help="address space per custom-code run (512 MiB)"
    )
    _http_flags(serve)
    _ops_flags(serve)

    gateway = commands.add_parser(
        "gateway",
        help="run only the JSON/HTTP gateway, in front of a gRPC server",
        description="Serve the REST API of EvaluationService and forward each call to the "
        "gRPC server at --grpc-target. Flags also read EVALD_<FLAG>.",
    )
    gateway.add_argument("--grpc-target", required=True, help="HOST:PORT of the gRPC server")
    gateway.add_argument(
        "--grpc-root-certs", type=Path, help="PEM roots: reach the gRPC server over TLS"
    )
    gateway.add_argument("--tls-cert", type=Path, help="PEM certificate chain: serve HTTPS")
    gateway.add_argument("--tls-key", type=Path, help="PEM private key for --tls-cert")
    gateway.add_argument(
        "--max-message-bytes", type=int, help="largest gRPC message to the server (default 64 MiB)"
    )
    gateway.add_argument(
        "--grace-seconds", type=float, help="how long in-flight calls may finish on SIGTERM"
    )
    gateway.add_argument("--log-level", help="DEBUG, INFO, WARNING or ERROR (default INFO)")
    _http_flags(gateway)
    _dataset_commands(commands)
    return parser


def _dataset_commands(commands: Any) -> None:
    """``evald evaluate`` and ``evald jobs`` (logic in evald_client.evaluate / .jobs)."""
    from evald_client import evaluate, jobs

    evaluate.add_arguments(
        commands.add_parser(
            "evaluate",
            help="score a dataset file and write a summary and an HTML report",
            description="Score every row of a dataset with the given metrics, in this process "
            "or through a server. Exit codes: 0 done, 1 run failed, 2 bad usage, "
            "3 a --fail-under threshold was not met.",
        )
    )
    jobs.add_arguments(
        commands.add_parser(
            "jobs",
            help="list, show or cancel dataset jobs on a server",
            description="Dataset jobs (EvaluateDataset operations). Exit codes: 0 done, "
            "1 the call failed, 2 bad usage.",
        )
    )


def _http_flags(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--http-port", type=int, help="serve the JSON/HTTP gateway on this port (0 for any)"
    )
    command.add_argument(
        "--http-host", help="address the HTTP gateway listens on (default: --host)"
    )
    command.add_argument(
        "--max-http-body-bytes", type=int, help="largest HTTP request body (default 64 MiB)"
    )


def _ops_flags(command: argparse.ArgumentParser) -> None:
    """Config file, auth, limits, metrics and tracing (evald.ops). API keys are never flags:
    a flag's value shows in ``ps`` and shell history."""
    command.add_argument(
        "--config", type=Path, help="TOML/JSON file of these settings (flags and env win)"
    )
    command.add_argument(
        "--tls-client-ca", type=Path, help="PEM CA: require client certificates it signed (mTLS)"
    )
    command.add_argument(
        "--auth-keys-file",
        type=Path,
        help="TOML/JSON file of API keys; every call then needs one (also EVALD_API_KEYS)",
    )
    for name, what, default in (
        ("health", "the health service and /healthz", "on"),
        ("reflection", "gRPC server reflection", "off"),
    ):
        command.add_argument(
            f"--auth-open-{name}",
            action=argparse.BooleanOptionalAction,
            default=None,
            help=f"serve {what} without a key (default {default})",
        )
    command.add_argument(
        "--max-instances", type=int, help="most instances per request (default 100000)"
    )
    command.add_argument(
        "--max-template-bytes", type=int, help="largest judge prompt template (default 1 MiB)"
    )
    command.add_argument(
        "--max-code-bytes", type=int, help="largest custom-code function (default 256 KiB)"
    )
    command.add_argument(
        "--max-concurrent-per-key",
        type=int,
        help="calls in flight per API key; 0: no limit (default 0)",
    )
    command.add_argument(
        "--metrics-port", type=int, help="serve Prometheus metrics on this port (0 for any)"
    )
    command.add_argument("--metrics-host", help="address of the metrics endpoint (default --host)")
    command.add_argument(
        "--tracing",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="export OpenTelemetry spans (needs opentelemetry-sdk)",
    )
    command.add_argument(
        "--judge-config",
        type=Path,
        help="TOML/JSON judge config file, watched: edits apply to the next judge call",
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``evald`` console script."""
    args = build_parser().parse_args(argv)
    if args.command == "serve":
        from evald.config import Settings
        from evald.server import main as serve_main
        from evald.workers import supervise

        overrides = {k: v for k, v in vars(args).items() if k != "command"}
        try:
            settings = Settings.load(overrides)
        except ValueError as exc:
            print(f"evald serve: {exc}", file=sys.stderr)
            return 2
        try:
            if settings.workers == 1:
                serve_main(settings)
            else:
                return supervise(settings)
        except OSError as exc:
            print(f"evald serve: {exc}", file=sys.stderr)
            return 1
        return 0
    if args.command == "gateway":
        return _gateway(args)
    if args.command in ("evaluate", "jobs"):
        from evald_client import evaluate, jobs

        return int((evaluate if args.command == "evaluate" else jobs).run(args))
    return 2


def _gateway(args: argparse.Namespace) -> int:
    from evald.config import Settings
    from evald.gateway import main as gateway_main

    skip = ("command", "grpc_target", "grpc_root_certs")
    overrides = {k: v for k, v in vars(args).items() if k not in skip}
    try:
        settings = Settings.load(overrides)
        if settings.http_port is None:
            raise ValueError("--http-port (or EVALD_HTTP_PORT) is required")
    except ValueError as exc:
        print(f"evald gateway: {exc}", file=sys.stderr)
        return 2
    try:
        gateway_main(settings, args.grpc_target, args.grpc_root_certs)
    except OSError as exc:
        print(f"evald gateway: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
