"""Dataset files to rows and rows to EvaluationInstances."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from evald.errors import FailedPrecondition, InvalidArgument
from evald.jobs import sources

ROWS = [
    {"prompt": "p1", "response": "r1", "reference": "g1", "topic": "a"},
    {"prompt": "p2", "response": "r2", "reference": "g2", "topic": "b"},
]
FORMATS = {
    "rows.jsonl": "".join(json.dumps(r) + "\n" for r in ROWS),
    "rows.json": json.dumps(ROWS),
    "rows.csv": "prompt,response,reference,topic\np1,r1,g1,a\np2,r2,g2,b\n",
    "rows.txt": "\n" + json.dumps(ROWS[0]) + "\n\n" + json.dumps(ROWS[1]) + "\n",  # sniffed
}


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_formats(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text(FORMATS[name])
    assert sources.read_rows([str(path)]) == ROWS
    assert sources.read_rows([path.as_uri()]) == ROWS


def test_several_files_concatenate(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text(FORMATS["rows.jsonl"])
    (tmp_path / "b.csv").write_text(FORMATS["rows.csv"])
    assert sources.read_rows([str(tmp_path / "a.jsonl"), str(tmp_path / "b.csv")]) == ROWS * 2


def test_columns_map_by_name() -> None:
    row = {
        "prompt": "p",
        "response": {"text": "r"},
        "reference": "g",
        "baseline_response": "b",
        "score": 3,
        "tags": ["x"],
        "empty": None,
    }
    instance = sources.instance_of(row)
    assert (instance.prompt.text, instance.response.text, instance.reference.text) == (
        "p",
        "r",
        "g",
    )
    other = instance.other_data.map_instance
    assert sorted(other) == ["baseline_model_response", "score", "tags"]
    assert other["baseline_model_response"].text == "b"
    assert other["score"].text == "3"
    assert other["tags"].text == '["x"]'


BAD = [
    ("bad.jsonl", '{"a": 1}\nnot json\n', "line 2"),
    ("bad.json", '"text"', "array"),
    ("bad2.json", "[1, 2]", "item 0"),
    ("bad.txt", "hello", "unknown format"),
]


@pytest.mark.parametrize(("name", "text", "message"), BAD)
def test_bad_files_name_the_problem(tmp_path: Path, name: str, text: str, message: str) -> None:
    (tmp_path / name).write_text(text)
    with pytest.raises(InvalidArgument, match=message) as caught:
        sources.read_rows([str(tmp_path / name)])
    assert caught.value.violations[0].field == "dataset.gcs_source.uris[0]"


def test_check_source(tmp_path: Path) -> None:
    from evald import api

    dataset = api.messages.EvaluationDataset()
    with pytest.raises(InvalidArgument):
        sources.check_source(dataset)
    dataset.gcs_source.uris.append(str(tmp_path / "missing.jsonl"))
    with pytest.raises(InvalidArgument, match="no such file") as caught:
        sources.check_source(dataset)
    assert caught.value.violations[0].field == "dataset.gcs_source.uris[0]"
    dataset.gcs_source.uris[0] = "http://example.com/x.jsonl"
    with pytest.raises(InvalidArgument, match="scheme"):
        sources.check_source(dataset)
    bigquery = api.messages.EvaluationDataset()
    bigquery.bigquery_source.input_uri = "bq://p.d.t"
    with pytest.raises(FailedPrecondition, match="bigquery_source"):
        sources.check_source(bigquery)


def test_gs_without_storage_library(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "google.cloud.storage", None)
    with pytest.raises(FailedPrecondition, match="google-cloud-storage"):
        sources.read_rows(["gs://bucket/rows.jsonl"])


def test_gs_without_credentials(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    pytest.importorskip("google.cloud.storage")
    for name in ("GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_CLOUD_PROJECT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_GCE_CHECK", "True")  # do not probe a metadata server
    monkeypatch.setenv("CLOUDSDK_CONFIG", str(tmp_path))  # no gcloud user credentials
    with pytest.raises(FailedPrecondition, match="credentials"):
        sources.read_rows(["gs://bucket/rows.jsonl"])
