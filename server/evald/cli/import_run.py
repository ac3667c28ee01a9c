"""``evald import DIR``: add an ``evald evaluate --output DIR`` directory to the runs the web UI
shows.

Two ways:

* ``--url URL``: through a running server's HTTP gateway (``evald serve --http-port``), as the
  UI's upload does: ``POST URL/v1/evald/runs`` with the API key from ``--api-key-env`` (default
  ``EVALD_API_KEY``, as for the other commands) and, for ``https`` with a private CA,
  ``--tls-ca``;
* ``--data-dir DIR``: straight into the server's data directory (``runs.sqlite3``), for a
  server on this machine, running or not.

Exit codes: 0 imported; 1 the server refused or could not be reached; 2 bad usage (no such
directory, malformed files).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import ssl
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from evald.cli.connection import DEFAULT_KEY_ENV, KEY_HEADER
from evald.errors import EvalError

RUNS_PATH = "/v1/evald/runs"
TIMEOUT_SECONDS = 120.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("directory", type=Path, help="the --output directory of evald evaluate")
    parser.add_argument("--name", default="", help="the run's name (default: the directory's)")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument(
        "--url", help="base URL of the server's HTTP gateway, e.g. http://127.0.0.1:8080"
    )
    where.add_argument(
        "--data-dir", type=Path, help="the server's data directory: import without a server"
    )
    parser.add_argument(
        "--api-key-env",
        metavar="NAME",
        help=f"environment variable holding the API key (default {DEFAULT_KEY_ENV}, when set)",
    )
    parser.add_argument(
        "--tls-ca", type=Path, metavar="FILE", help="trust the PEM CA certificates in FILE"
    )
    parser.add_argument("--json", action="store_true", help="print the run as JSON")


def run(args: argparse.Namespace) -> int:
    from evald.runs import imports  # the runs package: only for this command

    name = args.name or args.directory.resolve().name
    try:
        results, aggregation = imports.read_directory(args.directory)
        parsed = imports.parse(name, results, aggregation)
    except (EvalError, OSError, UnicodeDecodeError) as exc:
        print(f"evald import: {_message(exc)}", file=sys.stderr)
        return 2
    if args.data_dir is not None:
        store = imports.ImportStore(args.data_dir / imports.DB_FILE)
        made = asyncio.run(store.add(parsed))
        run_json: dict[str, Any] = {"id": made.id, "name": made.name, "rows": made.rows_total}
    else:
        try:
            key = _key(args)
            found = _post(args.url, key, args.tls_ca, name, results, aggregation)
        except ValueError as exc:
            print(f"evald import: {exc}", file=sys.stderr)
            return 2
        except ConnectionError as exc:
            print(f"evald import: {exc}", file=sys.stderr)
            return 1
        run_json = {"id": found["id"], "name": found["name"], "rows": found["progress"]["total"]}
        run_json["url"] = f"{args.url.rstrip('/')}/ui/runs/{found['id']}"
    if args.json:
        print(json.dumps(run_json))
    else:
        where = run_json.get("url", run_json["id"])
        print(f"imported {run_json['rows']} rows as {run_json['name']!r}: {where}")
    return 0


def _message(exc: BaseException) -> str:
    if isinstance(exc, EvalError):
        status = exc.to_status()
        return str(status.message)
    return str(exc)


def _key(args: argparse.Namespace) -> str | None:
    if args.api_key_env is not None:
        key = os.environ.get(args.api_key_env, "").strip()
        if not key:
            raise ValueError(f"--api-key-env {args.api_key_env}: that variable is not set")
        return key
    return os.environ.get(DEFAULT_KEY_ENV, "").strip() or None


def _post(
    url: str, key: str | None, ca: Path | None, name: str, results: str, aggregation: str | None
) -> dict[str, Any]:
    if not url.startswith(("http://", "https://")):
        raise ValueError(f"--url {url}: give http://HOST:PORT or https://HOST:PORT")
    body = json.dumps({"name": name, "results": results, "aggregation": aggregation}).encode()
    headers = {"Content-Type": "application/json"}
    if key is not None:
        headers[KEY_HEADER] = key
    request = urllib.request.Request(
        url.rstrip("/") + RUNS_PATH, data=body, headers=headers, method="POST"
    )
    context = ssl.create_default_context(cafile=str(ca)) if ca is not None else None
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS, context=context) as answer:
            found: dict[str, Any] = json.loads(answer.read())
            return found
    except urllib.error.HTTPError as exc:
        try:
            message = json.loads(exc.read())["error"]["message"]
        except (ValueError, KeyError, TypeError):
            message = exc.reason
        raise ConnectionError(f"{url} answered {exc.code}: {message}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ConnectionError(f"cannot reach {url}: {reason}") from None
