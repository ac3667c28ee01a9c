"""``evald evaluate --server`` and ``evald jobs`` against secured servers (API keys, TLS, mTLS):
they connect with the right flags, and say in one line why not with the wrong ones."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from evald.cli import main
from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as m

from tests.support import ServerThread, serving, stub
from tests.tls import self_signed

KEY = "evald-test-CLI-key-4f1c2a"
WRONG = "evald-test-CLI-WRONG-key-77d0e3"
LOCATION = "projects/p/locations/l"  # the README's examples, not the default location


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The server's certificate, a client certificate (its own CA) and a stranger's."""
    found: dict[str, Path] = {}
    for who, name in (("server", "localhost"), ("client", "evald-client"), ("other", "other")):
        found[f"{who}_cert"], found[f"{who}_key"] = self_signed(tmp_path_factory.mktemp(who), name)
    return found


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("connect")
    (root / "keys.toml").write_text(f'[[keys]]\nname = "cli"\nkey = "{KEY}"\n', encoding="utf-8")
    rows = [{"response": "a", "reference": "a"}, {"response": "b", "reference": "c"}]
    (root / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


@pytest.fixture(scope="module")
def secured(data: Path, pki: dict[str, Path]) -> Iterator[ServerThread]:
    """API keys and TLS, with the HTTP gateway (HTTPS) on its own port."""
    with serving(
        auth_keys_file=data / "keys.toml",
        tls_cert=pki["server_cert"],
        tls_key=pki["server_key"],
        http_port=0,
        data_dir=data / "secured",
        dataset_root=data,
        output_root=data / "out",
    ) as running:
        yield running


@pytest.fixture(scope="module")
def mtls(data: Path, pki: dict[str, Path]) -> Iterator[ServerThread]:
    """API keys and TLS with client certificates."""
    with serving(
        auth_keys_file=data / "keys.toml",
        tls_cert=pki["server_cert"],
        tls_key=pki["server_key"],
        tls_client_ca=pki["client_cert"],
        data_dir=data / "mtls",
    ) as running:
        yield running


@pytest.fixture(scope="module")
def plain(data: Path) -> Iterator[ServerThread]:
    """No TLS, no keys, with the HTTP gateway on its own port."""
    with serving(http_port=0, data_dir=data / "plain") as running:
        yield running


def http_address(server: ServerThread) -> str:
    assert server.running is not None
    assert server.running.http is not None
    return f"127.0.0.1:{server.running.http.port}"


def closed_port() -> str:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{s.getsockname()[1]}"


def tls(pki: dict[str, Path], ca: str = "server", client: str | None = None) -> list[str]:
    flags = ["--tls-ca", str(pki[f"{ca}_cert"])]
    if client is not None:
        flags += ["--tls-client-cert", str(pki[f"{client}_cert"])]
        flags += ["--tls-client-key", str(pki[f"{client}_key"])]
    return flags


def run(command: str, address: str, flags: list[str], data: Path, tmp_path: Path) -> int:
    if command == "jobs":
        return main(["jobs", "list", "--server", address, *flags])
    return main(
        [
            "evaluate", "--quiet", "--metric", "exact_match",
            "--data", str(data / "rows.jsonl"), "--output", str(tmp_path / "out"),
            "--server", address, *flags,
        ]
    )  # fmt: skip


COMMANDS = ["jobs", "evaluate"]


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("server_name", ["secured", "mtls"])
def test_connects_with_key_and_tls(
    request: pytest.FixtureRequest,
    pki: dict[str, Path],
    data: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    command: str,
    server_name: str,
) -> None:
    server: ServerThread = request.getfixturevalue(server_name)
    monkeypatch.setenv("CLI_TEST_KEY", KEY)
    flags = ["--api-key-env", "CLI_TEST_KEY", *tls(pki, client="client")]
    assert run(command, server.address, flags, data, tmp_path) == 0, capsys.readouterr().err
    if command == "evaluate":
        scores = [
            json.loads(line)["results"][0]["score"]
            for line in (tmp_path / "out/results.jsonl").read_text().splitlines()
        ]
        assert scores == [1.0, 0.0]
    assert KEY not in capsys.readouterr().err


FAILURES = [
    # (case, server fixture or None for a closed port, flags, EVALD_API_KEY, expected text)
    ("refused", None, [], None, "connection refused"),
    ("plaintext to TLS", "secured", [], KEY, "it probably speaks TLS (give --tls-ca"),
    ("unknown CA", "secured", ["ca:other"], KEY, "certificate is not trusted by --tls-ca"),
    ("TLS to plaintext", "plain", ["ca:server"], None, "does not speak TLS"),
    ("missing key", "secured", ["ca:server"], None, "requires an API key: set EVALD_API_KEY"),
    ("wrong key", "secured", ["ca:server"], WRONG, "refused the API key from $EVALD_API_KEY"),
    ("HTTP port", "plain:http", [], None, "answers HTTP/1.x, not gRPC"),
    ("HTTPS port", "secured:http", ["ca:server"], KEY, "speaks TLS but not gRPC"),
    ("no client cert", "mtls", ["ca:server"], KEY, "requires a client certificate"),
    ("stranger cert", "mtls", ["ca:server", "client:other"], KEY, "does not accept the one"),
]


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(
    ("server_name", "flags", "key", "expected"),
    [case[1:] for case in FAILURES],
    ids=[case[0] for case in FAILURES],
)
def test_each_failure_is_one_line_and_exit_1(
    request: pytest.FixtureRequest,
    pki: dict[str, Path],
    data: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    command: str,
    server_name: str | None,
    flags: list[str],
    key: str | None,
    expected: str,
) -> None:
    if server_name is None:
        address = closed_port()
    else:
        server: ServerThread = request.getfixturevalue(server_name.split(":")[0])
        address = http_address(server) if server_name.endswith(":http") else server.address
    if key is None:
        monkeypatch.delenv("EVALD_API_KEY", raising=False)
    else:
        monkeypatch.setenv("EVALD_API_KEY", key)
    args: list[str] = []
    for flag in flags:
        kind, _, who = flag.partition(":")
        args += ["--tls-ca", str(pki[f"{who}_cert"])] if kind == "ca" else []
        if kind == "client":
            args += ["--tls-client-cert", str(pki[f"{who}_cert"])]
            args += ["--tls-client-key", str(pki[f"{who}_key"])]
    assert run(command, address, args, data, tmp_path) == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert address in err
    assert expected in err
    assert KEY not in err
    assert WRONG not in err


def test_a_real_process_writes_one_line(secured: ServerThread, pki: dict[str, Path]) -> None:
    """gRPC core's own log line of a failed handshake stays out of the CLI's stderr."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EVALD_", "GRPC_"))}
    done = subprocess.run(
        [sys.executable, "-m", "evald.cli", "jobs", "list", "--server", secured.address,
         "--tls-ca", str(pki["other_cert"])],
        capture_output=True, text=True, timeout=60, check=False, env=env,
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"evald jobs list: cannot reach the server at {secured.address}: TLS handshake failed: "
        "the server's certificate is not trusted by --tls-ca (self signed certificate)"
    ]


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (["--api-key-env", "CLI_TEST_UNSET"], "--api-key-env CLI_TEST_UNSET: that variable"),
        (["--tls-client-cert", "c.pem"], "--tls-client-cert and --tls-client-key go together"),
        (["--tls-ca", "/nonexistent/ca.pem"], "--tls-ca /nonexistent/ca.pem: No such file"),
    ],
)
def test_bad_connection_flags_are_usage_errors(
    capsys: pytest.CaptureFixture[str], flags: list[str], expected: str
) -> None:
    assert main(["jobs", "list", "--server", "127.0.0.1:1", *flags]) == 2
    assert expected in capsys.readouterr().err


def test_jobs_by_id_wherever_they_are(
    secured: ServerThread,
    pki: dict[str, Path],
    data: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A job of another location than the default: ``list`` shows it, ``get``/``cancel``
    find it by its ID alone; ``--location`` narrows."""
    credentials = grpc.ssl_channel_credentials(pki["server_cert"].read_bytes())
    with grpc.secure_channel(secured.address, credentials) as channel:
        request = m.EvaluateDatasetRequest(location=LOCATION)
        request.dataset.gcs_source.uris.append("rows.jsonl")
        request.metrics.add(exact_match_spec={})
        name = stub(channel).EvaluateDataset(request, metadata=(("x-goog-api-key", KEY),)).name
    assert name.startswith(LOCATION + "/operations/")
    job_id = name.rsplit("/", 1)[1]
    monkeypatch.setenv("EVALD_API_KEY", KEY)
    addr = ["--server", secured.address, *tls(pki)]
    assert main(["jobs", "get", job_id, *addr, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["name"] == name
    assert main(["jobs", "list", *addr]) == 0
    assert name in capsys.readouterr().out
    assert main(["jobs", "list", "--location", "projects/p/locations/other", *addr]) == 0
    assert name not in capsys.readouterr().out
    assert main(["jobs", "list", "--location", LOCATION, *addr]) == 0
    assert name in capsys.readouterr().out
    assert main(["jobs", "cancel", job_id, *addr]) == 0
    assert job_id in capsys.readouterr().err
    assert main(["jobs", "get", job_id, "--location", "projects/p/locations/other", *addr]) == 1
    assert "NOT_FOUND" in capsys.readouterr().err
    assert main(["jobs", "get", "12345", *addr]) == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert "NOT_FOUND" in err
