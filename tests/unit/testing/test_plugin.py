"""The pytest plugin (``evald.testing.plugin``): the example tests pass through it, failures
read well, ``--evald-server`` / ``EVALD_SERVER`` pick a server, and loading it is cheap."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from tests.support import ServerThread

pytest_plugins = ["pytester"]

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "pytest"
# Installed, the plugin loads through its entry point; from a source tree, it is named.
INSTALLED = any(ep.name == "evald" for ep in entry_points(group="pytest11"))
PLUGIN = [] if INSTALLED else ["-p", "evald.testing.plugin"]
ARGS = [*PLUGIN, "-p", "no:cacheprovider", "-q"]


@pytest.fixture(autouse=True)
def _no_server_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EVALD_SERVER", raising=False)


@pytest.fixture(autouse=True)
def _settings(pytester: pytest.Pytester) -> None:
    """What the project's own settings are to its tests (pytest-asyncio warns without them)."""
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")


def test_the_example_passes(pytester: pytest.Pytester) -> None:
    for path in EXAMPLES.iterdir():
        if path.is_file():
            (pytester.path / path.name).write_bytes(path.read_bytes())
    result = pytester.runpytest_inprocess(*ARGS)
    result.assert_outcomes(passed=3)


FAILING = """
def test_metric(evald):
    evald.assert_metric("bleu", response="a dog ran", reference="the cat sat", at_least=0.5)

def test_checks(evald):
    evald.check({"response": "Rome", "city": "Paris"},
                [{"icontains": "{{city}}"}, {"not-contains": "Paris"}])

def test_dataset(evald):
    rows = [{"response": "a", "reference": "a"}, {"response": "b", "reference": "c"}]
    evald.assert_dataset(rows, metric="exact_match", mean_at_least=0.9)

def test_bad_metric(evald):
    evald.score("blue", response="a", reference="a")
"""


def test_failures_read_well(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_failing=FAILING)
    result = pytester.runpytest_inprocess(*ARGS)
    result.assert_outcomes(failed=4)
    result.stdout.fnmatch_lines(
        [
            "E*AssertionError: evald: bleu = 0.0000 < 0.5",
            "E*response: a dog ran",
            "E*AssertionError: evald: 1 of 2 assertion(s) failed",
            # (fnmatch reads [0] as a character class: ? matches the brackets)
            'E*assert?0? icontains "{{city}}": "Paris" not found in the response (any case)',
            "E*AssertionError: evald: exact_match mean 0.5000 < 0.9 over 2 rows (lowest: row 1: "
            "0.0000, row 0: 1.0000)",
            "E*ValueError: evald: unknown metric 'blue'*",
        ],
        consecutive=False,
    )
    assert "server/evald/testing" not in result.stdout.str()  # the plugin's frames are hidden


SERVED = """
def test_served(evald):
    assert evald.server == "{address}"
    assert evald.score("exact_match", response="a", reference="a") == 1.0
"""


def test_a_server_by_option_or_environment(
    server: ServerThread, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_served=SERVED.format(address=server.address))
    pytester.runpytest_inprocess(*ARGS, "--evald-server", server.address).assert_outcomes(passed=1)
    monkeypatch.setenv("EVALD_SERVER", server.address)
    pytester.runpytest_inprocess(*ARGS).assert_outcomes(passed=1)


def test_loading_the_plugin_loads_nothing_heavy() -> None:
    code = (
        "import sys, evald.testing.plugin; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('grpc', 'evald_proto', "
        "'numpy') or m.startswith(('google.protobuf', 'evald.metrics', 'evald.cli'))))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert loaded.strip() == "[]"
