"""``evald import DIR``: an ``evald evaluate`` output through a server, or into a data dir."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from evald.cli import main

from tests.e2e.test_cli_evaluate import evaluate
from tests.http_support import http_serving, http_url, request

KEY = "evald-import-test-key-77d1"


@pytest.fixture(scope="module")
def output(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("evaluated")
    assert evaluate(root, "--quiet") == 0
    return root / "out"


def test_through_a_server(
    output: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    keys = tmp_path / "keys.toml"
    keys.write_text(f'[[keys]]\nname = "cli"\nkey = "{KEY}"\n')
    with http_serving(auth_keys_file=keys, data_dir=tmp_path / "data") as running:
        url = http_url(running)
        monkeypatch.delenv("EVALD_API_KEY", raising=False)
        assert main(["import", str(output), "--url", url]) == 1  # no key
        assert "answered 401" in capsys.readouterr().err
        monkeypatch.setenv("EVALD_API_KEY", KEY)
        assert main(["import", str(output), "--url", url, "--name", "nightly", "--json"]) == 0
        made = json.loads(capsys.readouterr().out)
        assert made["url"] == f"{url}/ui/runs/{made['id']}"
        status, run, _ = request(
            url, "GET", f"/v1/evald/runs/{made['id']}", None, {"x-goog-api-key": KEY}
        )
        assert status == 200
        assert run["run"]["name"] == "nightly"
        assert [m["metric"] for m in run["summary"]] == ["bleu", "rouge:rougeLsum", "exact_match"]
        assert run["summary"][2]["errors"] == 1  # the row without a reference
        exact = json.loads((output / "aggregation.json").read_text())["metrics"][2]
        assert run["summary"][2]["mean"] == pytest.approx(exact["mean"])
        assert run["summary"][2]["ci95"] == pytest.approx(exact["ci95"])


def test_into_a_data_dir(output: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    assert main(["import", str(output), "--data-dir", str(data)]) == 0
    assert "imported 4 rows as 'out'" in capsys.readouterr().out
    with http_serving(data_dir=data) as running:
        status, listed, _ = request(http_url(running), "GET", "/v1/evald/runs")
    assert status == 200
    assert [r["name"] for r in listed["runs"]] == ["out"]


def test_bad_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", str(tmp_path), "--data-dir", str(tmp_path / "d")]) == 2
    assert "holds no results.jsonl" in capsys.readouterr().err
    (tmp_path / "results.jsonl").write_text("{oops\n")
    assert main(["import", str(tmp_path), "--data-dir", str(tmp_path / "d")]) == 2
    assert "line 1" in capsys.readouterr().err
