"""``evald serve`` and ``evald gateway`` refuse a bad setting before anything starts: one line on
stderr naming the setting (flag and variable), exit status 2, no traceback."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from evald.cli import main
from evald.config import Settings
from evald.startup import check_server

from tests.tls import self_signed

SECRET = "sk-test-SECRET-in-a-judge-config"
JUDGE = '[judges.j]\nbackend = "openai"\nmodel = "m"\nbase_url = "http://127.0.0.1:1/v1"\n'
NO_CACHE = "\n[cache]\nenabled = false\n"


@pytest.fixture
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory of good and bad files for the cases."""
    root = tmp_path_factory.mktemp("startup")
    (root / "server").mkdir()
    (root / "other").mkdir()
    self_signed(root / "server")
    self_signed(root / "other", "other")
    (root / "a-file").write_text("x")
    (root / "garbage.toml").write_text("this = [is not toml")
    (root / "judge.toml").write_text(JUDGE + NO_CACHE)
    (root / "judge-key.toml").write_text(JUDGE + f'api_key = "{SECRET}"\n' + NO_CACHE)
    (root / "judge-env.toml").write_text(JUDGE + 'api_key_env = "EVALD_TEST_UNSET"\n' + NO_CACHE)
    (root / "judge-backend.toml").write_text(JUDGE.replace('"openai"', '"nope"') + NO_CACHE)
    cache_under_file = f'\n[cache]\npath = "{root}/a-file/cache.sqlite3"\n'
    (root / "judge-cache.toml").write_text(JUDGE + cache_under_file)
    (root / "config.toml").write_text(
        f'[judges.j]\nbackend = "openai"\nmodel = "m"\nbase_url = "http://x"\n'
        f'api_key = "{SECRET}"\n'
    )
    (root / "keys.toml").write_text('[[keys]]\nname = "k"\n')
    return root


def data(root: Path) -> list[str]:
    return ["--data-dir", str(root / "data")]


def tls(root: Path, cert: str = "server/cert.pem", key: str = "server/key.pem") -> list[str]:
    return ["--tls-cert", str(root / cert), "--tls-key", str(root / key)]


Case = tuple[str, Callable[[Path], list[str]], tuple[str, ...]]
SERVE: list[Case] = [
    ("data dir is a file", lambda r: ["--data-dir", str(r / "a-file")],
     ("--data-dir (EVALD_DATA_DIR)", "not a directory")),
    ("data dir under a file", lambda r: ["--data-dir", str(r / "a-file/data")],
     ("--data-dir (EVALD_DATA_DIR)", "cannot create it (Not a directory)")),
    ("output root is a file", lambda r: [*data(r), "--output-root", str(r / "a-file")],
     ("--output-root (EVALD_OUTPUT_ROOT)", "not a directory")),
    ("dataset root under a file", lambda r: [*data(r), "--dataset-root", str(r / "a-file/d")],
     ("--dataset-root (EVALD_DATASET_ROOT)", "cannot create it")),
    ("judge config missing", lambda r: [*data(r), "--judge-config", str(r / "absent.toml")],
     ("--judge-config (EVALD_JUDGE_CONFIG)", "cannot read", "No such file")),
    ("judge config not TOML", lambda r: [*data(r), "--judge-config", str(r / "garbage.toml")],
     ("--judge-config (EVALD_JUDGE_CONFIG)", "not valid")),
    ("judge with an api_key", lambda r: [*data(r), "--judge-config", str(r / "judge-key.toml")],
     ("--judge-config (EVALD_JUDGE_CONFIG)", "judges.j.api_key", "use api_key_env")),
    ("judge key variable unset",
     lambda r: [*data(r), "--judge-config", str(r / "judge-env.toml")],
     ("--judge-config (EVALD_JUDGE_CONFIG)", "EVALD_TEST_UNSET, which is not set")),
    ("judge backend unknown",
     lambda r: [*data(r), "--judge-config", str(r / "judge-backend.toml")],
     ("--judge-config (EVALD_JUDGE_CONFIG)", "judges.j.backend must be one of")),
    ("judge cache unwritable",
     lambda r: [*data(r), "--judge-config", str(r / "judge-cache.toml")],
     ("the judge cache", "EVALD_JUDGE_CACHE", "not a directory")),
    ("[judges] table with an api_key", lambda r: [*data(r), "--config", str(r / "config.toml")],
     ("[judges] table of --config (EVALD_CONFIG)", "use api_key_env")),
    ("TLS cert missing", lambda r: [*data(r), *tls(r, cert="absent.pem")],
     ("--tls-cert (EVALD_TLS_CERT)", "cannot read it (No such file")),
    ("TLS cert not a certificate", lambda r: [*data(r), *tls(r, cert="server/key.pem")],
     ("--tls-cert (EVALD_TLS_CERT)", "not a PEM certificate")),
    ("TLS key not a key", lambda r: [*data(r), *tls(r, key="server/cert.pem")],
     ("--tls-key (EVALD_TLS_KEY)", "not a PEM private key")),
    ("TLS key of another cert", lambda r: [*data(r), *tls(r, key="other/key.pem")],
     ("--tls-key (EVALD_TLS_KEY)", "is not the key of --tls-cert (EVALD_TLS_CERT)")),
    ("client CA not PEM",
     lambda r: [*data(r), *tls(r), "--tls-client-ca", str(r / "garbage.toml")],
     ("--tls-client-ca (EVALD_TLS_CLIENT_CA)", "not a PEM certificate")),
    ("keys file missing", lambda r: [*data(r), "--auth-keys-file", str(r / "absent.toml")],
     ("--auth-keys-file (EVALD_AUTH_KEYS_FILE)", "cannot read keys file")),
    ("keys file malformed", lambda r: [*data(r), "--auth-keys-file", str(r / "keys.toml")],
     ("--auth-keys-file (EVALD_AUTH_KEYS_FILE)", "give exactly one of 'key' and 'sha256'")),
    ("models dir missing", lambda r: [*data(r), "--models-dir", str(r / "absent")],
     ("--models-dir (EVALD_MODELS_DIR)", "no such directory")),
    ("with workers: checked before forking",
     lambda r: ["--workers", "2", "--data-dir", str(r / "a-file")],
     ("--data-dir (EVALD_DATA_DIR)", "not a directory")),
]  # fmt: skip


def one_line(err: str) -> str:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.parametrize(("build", "expected"), [c[1:] for c in SERVE], ids=[c[0] for c in SERVE])
def test_serve_refuses_a_bad_setting(
    files: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    build: Callable[[Path], list[str]],
    expected: tuple[str, ...],
) -> None:
    for name in list(os.environ):
        if name.startswith("EVALD_"):  # the cases set what they test
            monkeypatch.delenv(name)
    monkeypatch.setenv("XDG_CACHE_HOME", str(files / "cache"))
    assert main(["serve", "--port", "0", *build(files)]) == 2
    line = one_line(capsys.readouterr().err)
    assert line.startswith("evald serve: ")
    for text in expected:
        assert text in line
    assert SECRET not in line


def test_a_judge_from_the_environment_is_checked(
    files: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("EVALD_JUDGE_BACKEND", "openai")
    monkeypatch.delenv("EVALD_JUDGE_CONFIG", raising=False)
    assert main(["serve", "--port", "0", *data(files)]) == 2
    line = one_line(capsys.readouterr().err)
    assert "EVALD_JUDGE_BACKEND" in line
    assert "model is required" in line


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_an_unwritable_data_dir(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    locked = files / "locked"
    locked.mkdir(mode=0o555)
    assert main(["serve", "--port", "0", "--data-dir", str(locked)]) == 2
    line = one_line(capsys.readouterr().err)
    assert "--data-dir (EVALD_DATA_DIR)" in line
    assert "not writable" in line


def test_good_settings_pass(files: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EVALD_JUDGE_BACKEND", raising=False)
    settings = Settings(
        data_dir=files / "data",
        tls_cert=files / "server/cert.pem",
        tls_key=files / "server/key.pem",
        tls_client_ca=files / "other/cert.pem",
        judge_config=files / "judge.toml",
        models_dir=files,
    )
    check_server(settings, {})
    assert (files / "data").is_dir()


GATEWAY: list[Case] = [
    ("root certs not PEM", lambda r: ["--grpc-root-certs", str(r / "garbage.toml")],
     ("--grpc-root-certs", "not a PEM certificate")),
    ("root certs missing", lambda r: ["--grpc-root-certs", str(r / "absent.pem")],
     ("--grpc-root-certs", "cannot read it")),
    ("TLS key of another cert", lambda r: tls(r, key="other/key.pem"),
     ("--tls-key (EVALD_TLS_KEY)", "is not the key of")),
]  # fmt: skip


@pytest.mark.parametrize(
    ("build", "expected"), [c[1:] for c in GATEWAY], ids=[c[0] for c in GATEWAY]
)
def test_gateway_refuses_a_bad_setting(
    files: Path,
    capsys: pytest.CaptureFixture[str],
    build: Callable[[Path], list[str]],
    expected: tuple[str, ...],
) -> None:
    args = ["gateway", "--grpc-target", "127.0.0.1:1", "--http-port", "0", *build(files)]
    assert main(args) == 2
    line = one_line(capsys.readouterr().err)
    assert line.startswith("evald gateway: ")
    for text in expected:
        assert text in line
