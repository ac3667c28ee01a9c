"""The ``evald`` command: ``serve``, ``gateway``, ``evaluate``, ``metrics``, ``jobs`` and
``models``; ``evald --version`` prints the installed version.

The flags of ``serve`` (and the ones ``gateway`` shares) are generated from
:class:`evald.config.Settings`: each setting's help text and default are written once, where the
setting is declared.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from evald.cli import connection, evaluate, import_run, jobs, metrics, models
from evald.cli.version import evald_version
from evald.config import Settings

SERVE_HELP = (
    "Run the evald gRPC server. Every flag also reads EVALD_<FLAG> (e.g. EVALD_PORT); flags win "
    "over the environment, which wins over the --config file."
)
GATEWAY_SETTINGS = ("tls_cert", "tls_key", "max_message_bytes", "grace_seconds", "log_level")
"""The settings ``evald gateway`` takes besides the HTTP ones."""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``evald`` and its subcommands."""
    parser = argparse.ArgumentParser(prog="evald", description="LLM evaluation server")
    parser.add_argument("--version", action="version", version=f"evald {evald_version()}")
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="run the gRPC server", description=SERVE_HELP)
    add_setting_flags(serve, (f.name for f in dataclasses.fields(Settings)))

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
    gateway.add_argument(
        "--native-upstream",
        metavar="URL",
        help="the server's HTTP gateway (http://HOST:PORT): the JSON-only APIs (NeMo "
        "Evaluator's, the web UI's runs) are forwarded there",
    )
    http = [f.name for f in dataclasses.fields(Settings) if f.metadata.get("group") == "http"]
    add_setting_flags(gateway, (*GATEWAY_SETTINGS, *http))

    evaluate.add_arguments(
        commands.add_parser(
            "evaluate",
            help="score a dataset file and write a summary and an HTML report",
            description="Score every row of a dataset with the given metrics, in this process "
            "or through a server (evald metrics list shows every metric). In this process, "
            "judge metrics use the judge config a server reads: --judge-config "
            "(EVALD_JUDGE_CONFIG), else EVALD_JUDGE_BACKEND, EVALD_JUDGE_MODEL, "
            "EVALD_JUDGE_API_KEY... (docs/judges.md). " + evaluate.EXIT_CODES_HELP,
        )
    )
    metrics.add_arguments(
        commands.add_parser(
            "metrics",
            help="list every metric evald evaluate --metric reaches",
            description="The metrics of the catalog, by the names --metric takes. Exit codes: "
            "0 done, 2 bad usage.",
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
    import_run.add_arguments(
        commands.add_parser(
            "import",
            help="add an evald evaluate --output directory to the web UI's runs",
            description="Import results.jsonl and aggregation.json of an evald evaluate "
            "output directory as a run, through a server (--url) or into a data directory "
            "(--data-dir). Exit codes: 0 done, 1 the server refused or is unreachable, "
            "2 bad usage.",
        )
    )
    models.add_arguments(
        commands.add_parser(
            "models",
            help="list the models of model-backed metrics and whether they are present",
            description="The models directory and each model-backed metric's default model. "
            "Exit codes: 0 done, 2 bad usage.",
        )
    )
    return parser


def add_setting_flags(command: argparse.ArgumentParser, names: Iterable[str]) -> None:
    """One flag per named setting. An unset flag parses as None, so it never overrides the
    environment or the config file (``Settings.load`` skips None)."""
    fields = {f.name: f for f in dataclasses.fields(Settings)}
    for name in names:
        field = fields[name]
        flag = field.metadata.get("flag")
        if flag is None:
            continue  # set only in the config file (the [judges] table)
        kind = str(field.type)
        help_text = field.metadata["help"] + _default_text(field.default)
        options: dict[str, Any] = {"dest": name, "default": None, "help": help_text}
        if kind.startswith("bool") and flag:  # a switch of its own name, e.g. --enable-custom-code
            options["action"] = "store_true"
        elif kind.startswith("bool"):
            options["action"] = argparse.BooleanOptionalAction
        elif kind.startswith(("int", "float", "Path")):
            options["type"] = {"int": int, "float": float, "Path": Path}[kind.split(" ")[0]]
        elif kind.startswith("tuple"):  # repeatable; unset stays None
            options["action"] = "append"
        command.add_argument(flag or "--" + name.replace("_", "-"), **options)


def _default_text(default: Any) -> str:
    """`` (default X)`` for help texts; sizes in MiB or KiB; nothing for None."""
    if default is None:
        return ""
    if isinstance(default, bool):
        return f" (default {'on' if default else 'off'})"
    if isinstance(default, int) and default >= 1024 and default % 1024 == 0:
        mib, kib = divmod(default, 1024 * 1024)
        return f" (default {mib} MiB)" if not kib else f" (default {default // 1024} KiB)"
    return f" (default {default})"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``evald`` console script."""
    args = build_parser().parse_args(argv)
    if getattr(args, "server", None) and hasattr(args, "api_key_env"):
        # evaluate --server, jobs: a bad connection flag is bad usage, found before any work
        try:
            connection.options(args)
        except ValueError as exc:
            print(f"evald {args.command}: {exc}", file=sys.stderr)
            return 2
    if args.command == "serve":
        return _serve(args)
    if args.command == "gateway":
        return _gateway(args)
    if args.command == "models":
        return models.run(args)
    if args.command == "metrics":
        return metrics.run(args)
    if args.command == "import":
        return import_run.run(args)
    return int((evaluate if args.command == "evaluate" else jobs).run(args))


def _serve(args: argparse.Namespace) -> int:
    from evald.startup import check_server

    overrides = {k: v for k, v in vars(args).items() if k != "command"}
    try:
        settings = Settings.load(overrides)
        # Before anything starts (or, with --workers, forks) and before the metrics load: a bad
        # setting is one line and exit 2, at once.
        check_server(settings)
    except ValueError as exc:
        print(f"evald serve: {exc}", file=sys.stderr)
        return 2

    from evald.metrics.catalog import Catalog  # the metrics: not for `evald jobs`
    from evald.server import main as serve_main  # grpc: not for `evald jobs`
    from evald.workers import supervise

    try:
        if settings.metric_modules:  # a bad module is reported before anything starts
            Catalog.discover(settings.metric_module_names())
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


def _gateway(args: argparse.Namespace) -> int:
    from evald.gateway import main as gateway_main  # aiohttp: only for the gateway
    from evald.startup import check_gateway

    skip = ("command", "grpc_target", "grpc_root_certs", "native_upstream")
    overrides = {k: v for k, v in vars(args).items() if k not in skip}
    try:
        settings = Settings.load(overrides)
        if settings.http_port is None:
            raise ValueError("--http-port (or EVALD_HTTP_PORT) is required")
        check_gateway(settings, args.grpc_root_certs)
        if args.native_upstream and not args.native_upstream.startswith(("http://", "https://")):
            raise ValueError(f"--native-upstream {args.native_upstream}: give http://HOST:PORT")
    except ValueError as exc:
        print(f"evald gateway: {exc}", file=sys.stderr)
        return 2
    try:
        gateway_main(settings, args.grpc_target, args.grpc_root_certs, args.native_upstream)
    except OSError as exc:
        print(f"evald gateway: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
