"""evald-client installs and works on its own: its wheel (and evald-proto's) in a fresh virtualenv
with only their declared dependencies from the package index, then a call to a real server.

Slow (wheels are built and a virtualenv is filled from the index): listed in tests/conftest.py.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import ServerThread, serving

ROOT = Path(__file__).resolve().parents[2]
LEFTOVERS = shutil.ignore_patterns("build", "*.egg-info", "__pycache__")

CALL = """
import sys
from evald_client import EvaluationClient
with EvaluationClient(sys.argv[1]) as client:
    print(client.exact_match(["Paris", "paris"], ["Paris", "Paris"]))
"""


@pytest.fixture(scope="module")
def venv_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The python of a virtualenv holding evald-client's and evald-proto's wheels and nothing
    of the server's."""
    root = tmp_path_factory.mktemp("client-package")
    # No PYTHONPATH: with a checkout on it, pip would see the client as installed already.
    env = clean_environment()
    wheels = root / "wheels"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]
    # Built from copies: setuptools leaves build/ and *.egg-info/ beside the sources it builds.
    sources = [root / "protos", root / "client"]
    for source in sources:
        shutil.copytree(ROOT / source.name, source, ignore=LEFTOVERS)
    build = [*pip, "wheel", "--no-deps", "--wheel-dir", str(wheels)]
    subprocess.run([*build, *map(str, sources)], check=True, env=env)
    venv = root / "venv"
    # Without pip of its own: this interpreter's pip installs into it (`pip --python`), faster.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, env=env)
    python = venv / "bin" / "python"
    subprocess.run(
        [*pip, "--python", str(python), "install", *wheels.glob("*.whl")], check=True, env=env
    )
    return python


@pytest.fixture(scope="module")
def running() -> Iterator[ServerThread]:
    with serving() as server:
        yield server


def clean_environment() -> dict[str, str]:
    """This process's environment without PYTHONPATH and kin."""
    return {key: value for key, value in os.environ.items() if not key.startswith("PYTHON")}


def run(python: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run the venv's python isolated (-I): nothing of this checkout leaks in."""
    return subprocess.run(
        [str(python), "-I", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=clean_environment(),
    )


def test_the_client_and_its_declared_dependencies_import(venv_python: Path) -> None:
    result = run(venv_python, "-c", "import grpc, google.rpc.status_pb2, evald_client")
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("module", ["evald", "sacrebleu", "aiohttp", "nltk", "openai"])
def test_the_server_and_its_libraries_are_not_installed(venv_python: Path, module: str) -> None:
    result = run(venv_python, "-c", f"import {module}")
    assert result.returncode == 1
    assert "ModuleNotFoundError" in result.stderr


def test_the_installed_client_calls_a_server(venv_python: Path, running: ServerThread) -> None:
    result = run(venv_python, "-c", CALL, running.address)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[1.0, 0.0]"


def test_the_client_comes_from_the_venv(venv_python: Path) -> None:
    result = run(venv_python, "-c", "import evald_client; print(evald_client.__file__)")
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()).is_relative_to(venv_python.parents[1])
