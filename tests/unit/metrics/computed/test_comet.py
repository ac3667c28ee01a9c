"""comet_input: identity with the reference package (unbabel-comet) on tiny checkpoints, and the
metric's answers: batching, versions, missing models, through a server."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import grpc
import pytest
from evald.api import messages as m
from evald.errors import FailedPrecondition, InvalidArgument
from evald.metrics.catalog import builtin
from evald.metrics.computed.comet import Comet, CometKind, encoder_name
from evald.models.inline import InlineModels

from tests.optional import needs
from tests.support import CALL, serving, stub
from tests.unit.metrics.computed import tiny_comet

pytestmark = needs("torch", "transformers", "tokenizers")

CASES = json.loads((Path(__file__).with_name("comet_cases.json")).read_text(encoding="utf-8"))
"""Scores of the reference package on the tiny checkpoints (``make_comet_cases.py``)."""
TOLERANCE = 1e-5
ROOT = Path(__file__).resolve().parents[4]
"""The repository root."""
ROWS = CASES["variants"]["comet22"]


def triple(row: dict[str, Any]) -> tuple[str, str, str]:
    return row["source"], row["prediction"], row["reference"]


@pytest.fixture(scope="module")
def models_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A models directory with every tiny COMET variant and their encoder."""
    root = tmp_path_factory.mktemp("models")
    for variant in tiny_comet.VARIANTS:
        tiny_comet.build(root, variant)
    return root


def call_with(models_dir: Path) -> Any:
    return dataclasses.replace(
        CALL, services=dataclasses.replace(CALL.services, models=InlineModels(models_dir))
    )


def request(row: dict[str, Any], **spec: Any) -> Any:
    fields = {k: v for k, v in row.items() if k != "score"}
    return m.CometInput(metric_spec=m.CometSpec(**spec), instance=m.CometInstance(**fields))


def reference_python() -> Path | None:
    """The Python of an environment holding unbabel-comet (``make bench`` and ``make check``
    build ``.venv-bench-comet``; ``EVALD_COMET_PYTHON`` names another)."""
    named = os.environ.get("EVALD_COMET_PYTHON")
    python = Path(named) if named else ROOT / ".venv-bench-comet" / "bin" / "python"
    return python if python.exists() else None


@pytest.mark.slow
def test_recorded_cases_are_the_reference_package_s_live(tmp_path: Path) -> None:
    # The package cannot be imported beside evald: run it in its own environment, on the same
    # tiny checkpoints, and check the recorded scores the identity test uses.
    python = reference_python()
    if python is None:
        pytest.skip("no unbabel-comet environment (make check or make bench builds one)")
    out = tmp_path / "cases.json"
    script = Path(__file__).with_name("make_comet_cases.py")
    done = subprocess.run(
        [str(python), str(script), str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONWARNINGS": "ignore"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    live = json.loads(out.read_text(encoding="utf-8"))
    assert live["reference"] == CASES["reference"]
    for variant, rows in CASES["variants"].items():
        got = live["variants"][variant]
        assert [triple(row) for row in got] == [triple(row) for row in rows]
        assert [row["score"] for row in got] == pytest.approx(
            [row["score"] for row in rows], abs=TOLERANCE
        )


def test_served_by_the_catalog() -> None:
    metric = builtin().inputs["comet_input"]
    assert isinstance(metric, Comet)
    assert metric.default_model == "Unbabel/wmt22-comet-da"


@pytest.mark.parametrize("variant", sorted(CASES["variants"]))
def test_identity_with_the_reference_package(models_dir: Path, variant: str) -> None:
    """All triples in one batch (padded to the longest), then each alone: the package's
    scores either way."""
    assert CASES["reference"] == "unbabel-comet 2.2.7"
    rows = CASES["variants"][variant]
    folder = models_dir / (tiny_comet.CHECKPOINT if variant == "comet22" else f"tiny/{variant}")
    kind = CometKind()
    state = kind.load(folder, "cpu", {"encoder": str(models_dir / encoder_name(folder))})
    batched = kind.forward(state, [triple(row) for row in rows], {})
    alone = [kind.forward(state, [triple(row)], {})[0] for row in rows]
    expected = [row["score"] for row in rows]
    assert batched == pytest.approx(expected, abs=TOLERANCE)
    assert alone == pytest.approx(expected, abs=TOLERANCE)


def test_metric_scores_concurrent_requests(models_dir: Path) -> None:
    call = call_with(models_dir)

    async def scores() -> list[float]:
        metric = Comet()
        results = await asyncio.gather(
            *(metric.evaluate_input(request(row), "comet_input", call) for row in ROWS)
        )
        return [result.score for result in results]  # type: ignore[attr-defined]

    got = asyncio.run(scores())
    assert got == pytest.approx([row["score"] for row in ROWS], abs=TOLERANCE)


def test_languages_change_nothing(models_dir: Path) -> None:
    spec = {"version": m.CometSpec.COMET_22_SRC_REF, "source_language": "en"}
    spec["target_language"] = "fr"
    result: Any = asyncio.run(
        Comet().evaluate_input(request(ROWS[0], **spec), "comet_input", call_with(models_dir))
    )
    assert result.score == pytest.approx(ROWS[0]["score"], abs=TOLERANCE)


@pytest.mark.parametrize("version", [1, 7])
def test_unserved_version_is_invalid(models_dir: Path, version: int) -> None:
    with pytest.raises(InvalidArgument) as raised:
        asyncio.run(
            Comet().evaluate_input(
                request(ROWS[0], version=version), "comet_input", call_with(models_dir)
            )
        )
    assert raised.value.violations[0].field == "comet_input.metric_spec.version"
    assert "COMET_22_SRC_REF" in raised.value.message


def test_missing_fields_are_named(models_dir: Path) -> None:
    with pytest.raises(InvalidArgument) as raised:
        asyncio.run(
            Comet().evaluate_input(
                request({"prediction": "x"}), "comet_input", call_with(models_dir)
            )
        )
    fields = [v.field for v in raised.value.violations]
    assert fields == ["comet_input.instance.reference", "comet_input.instance.source"]


def test_missing_model_names_it_and_where(tmp_path: Path) -> None:
    with pytest.raises(FailedPrecondition) as raised:
        asyncio.run(Comet().evaluate_input(request(ROWS[0]), "comet_input", call_with(tmp_path)))
    assert "Unbabel/wmt22-comet-da" in raised.value.message
    assert str(tmp_path) in raised.value.message


def test_missing_encoder_names_it(models_dir: Path, tmp_path: Path) -> None:
    tiny_comet.build(tmp_path)
    for file in (tmp_path / tiny_comet.ENCODER).iterdir():
        file.unlink()
    (tmp_path / tiny_comet.ENCODER).rmdir()
    with pytest.raises(FailedPrecondition) as raised:
        asyncio.run(Comet().evaluate_input(request(ROWS[0]), "comet_input", call_with(tmp_path)))
    assert tiny_comet.ENCODER in raised.value.message


def test_no_model_runtime() -> None:
    with pytest.raises(FailedPrecondition, match="model runtime"):
        asyncio.run(Comet().evaluate_input(request(ROWS[0]), "comet_input", CALL))


def test_through_a_server(models_dir: Path) -> None:
    with serving(models_dir=models_dir) as server, grpc.insecure_channel(server.address) as ch:
        reply = stub(ch).EvaluateInstances(
            m.EvaluateInstancesRequest(
                location="projects/p/locations/us-central1", comet_input=request(ROWS[1])
            ),
            timeout=60,
        )
    assert reply.comet_result.score == pytest.approx(ROWS[1]["score"], abs=TOLERANCE)
