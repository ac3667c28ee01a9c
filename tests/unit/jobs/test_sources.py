"""Dataset files to rows and rows to EvaluationInstances."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from evald import api
from evald.errors import FailedPrecondition, InvalidArgument, PermissionDenied
from evald.jobs import outputs, sources

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
    assert sources.read_rows([str(path)], None) == ROWS
    assert sources.read_rows([path.as_uri()], None) == ROWS


def test_several_files_concatenate(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text(FORMATS["rows.jsonl"])
    (tmp_path / "b.csv").write_text(FORMATS["rows.csv"])
    assert sources.read_rows([str(tmp_path / "a.jsonl"), str(tmp_path / "b.csv")], None) == ROWS * 2


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


RUBRIC = {"rubric_id": "1", "content": {"property": {"description": "Is it short?"}}}


@pytest.mark.parametrize(
    "value",
    [
        {"gq": [{**RUBRIC, "importance": "HIGH", "type": "LENGTH"}]},  # as generate_rubrics
        {"gq": {"group_id": "gq", "rubrics": [{**RUBRIC, "importance": "HIGH", "type": "LENGTH"}]}},
        json.dumps({"gq": [{**RUBRIC, "importance": "HIGH", "type": "LENGTH"}]}),  # a CSV cell
    ],
)
def test_rubric_groups_column(value: object) -> None:
    instance = sources.instance_of({"prompt": "p", "rubric_groups": value})
    (rubric,) = instance.rubric_groups["gq"].rubrics
    assert (rubric.content.property.description, rubric.type_) == ("Is it short?", "LENGTH")
    assert rubric.importance == 1  # HIGH
    assert not instance.other_data.map_instance


@pytest.mark.parametrize(
    ("value", "field"),
    [
        ("not json", "rows[3].rubric_groups"),
        (["x"], "rows[3].rubric_groups"),
        ({"gq": ["Is it short?"]}, "rows[3].rubric_groups['gq']"),
        ({"gq": "text"}, "rows[3].rubric_groups['gq']"),
    ],
)
def test_bad_rubric_groups_name_the_field(value: object, field: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        sources.instance_of({"rubric_groups": value}, "rows[3]")
    assert caught.value.violations[0].field == field


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
        sources.read_rows([str(tmp_path / name)], None)
    assert caught.value.violations[0].field == "dataset.gcs_source.uris[0]"


def test_check_source(tmp_path: Path) -> None:
    from evald import api

    dataset = api.messages.EvaluationDataset()
    with pytest.raises(InvalidArgument):
        sources.check_source(dataset, tmp_path)
    dataset.gcs_source.uris.append(str(tmp_path / "missing.jsonl"))
    with pytest.raises(InvalidArgument, match="no such file") as caught:
        sources.check_source(dataset, tmp_path)
    assert caught.value.violations[0].field == "dataset.gcs_source.uris[0]"
    dataset.gcs_source.uris[0] = "http://example.com/x.jsonl"
    with pytest.raises(InvalidArgument, match="scheme"):
        sources.check_source(dataset, tmp_path)
    bigquery = api.messages.EvaluationDataset()
    bigquery.bigquery_source.input_uri = "bq://p.d.t"
    with pytest.raises(FailedPrecondition, match="bigquery_source"):
        sources.check_source(bigquery, tmp_path)


def test_gs_without_storage_library(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "google.cloud.storage", None)
    with pytest.raises(FailedPrecondition, match="google-cloud-storage"):
        sources.read_rows(["gs://bucket/rows.jsonl"], None)


def test_gs_without_credentials(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    pytest.importorskip("google.cloud.storage")
    for name in ("GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_CLOUD_PROJECT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_GCE_CHECK", "True")  # do not probe a metadata server
    monkeypatch.setenv("CLOUDSDK_CONFIG", str(tmp_path))  # no gcloud user credentials
    with pytest.raises(FailedPrecondition, match="credentials"):
        sources.read_rows(["gs://bucket/rows.jsonl"], None)


m = api.messages


@pytest.fixture
def roots(tmp_path: Path) -> tuple[Path, Path]:
    """``root`` (with ``rows.jsonl``, a link to a file outside, a link to a folder outside)
    and ``outside`` (with ``secret.jsonl``)."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "sub").mkdir(parents=True)
    outside.mkdir()
    (root / "rows.jsonl").write_text('{"response": "a", "reference": "a"}\n')
    (outside / "secret.jsonl").write_text('{"response": "s3cr3t"}\n')
    (root / "link.jsonl").symlink_to(outside / "secret.jsonl")
    (root / "out-link").symlink_to(outside)
    return root, outside


INSIDE = ["rows.jsonl", "{root}/rows.jsonl", "file://{root}/rows.jsonl", "sub/../rows.jsonl"]
OUTSIDE = [
    "{outside}/secret.jsonl",
    "{outside}/missing.jsonl",  # the same answer whether it exists or not
    "{outside}",
    "../outside/secret.jsonl",
    "{root}/sub/../../outside/secret.jsonl",
    "link.jsonl",  # a symlink inside pointing outside
    "/etc/passwd",
    "file:///etc/passwd",
    "/nonexistent/dir/file.csv",
]


@pytest.mark.parametrize("uri", INSIDE)
def test_a_dataset_under_the_root_is_read(roots: tuple[Path, Path], uri: str) -> None:
    root, outside = roots
    named = uri.format(root=root, outside=outside)
    dataset = m.EvaluationDataset()
    dataset.gcs_source.uris.append(named)
    assert sources.check_source(dataset, root) == [named]
    assert sources.read_rows([named], root) == [{"response": "a", "reference": "a"}]


@pytest.mark.parametrize("uri", OUTSIDE)
def test_a_dataset_outside_the_root_is_denied_alike(roots: tuple[Path, Path], uri: str) -> None:
    root, outside = roots
    named = uri.format(root=root, outside=outside)
    dataset = m.EvaluationDataset()
    dataset.gcs_source.uris.append(named)
    expected = (
        "dataset.gcs_source.uris[0]: server-local files must be under the server's dataset "
        "root (--dataset-root)"
    )
    with pytest.raises(PermissionDenied) as checked:
        sources.check_source(dataset, root)
    with pytest.raises(PermissionDenied) as read:
        sources.read_rows([named], root)
    assert checked.value.message == read.value.message == expected


@pytest.mark.parametrize(
    ("prefix", "allowed"),
    [
        ("results", True),
        ("{root}/sub/results", True),
        ("{outside}/results", False),
        ("../outside", False),
        ("out-link/results", False),
        ("/tmp", False),
    ],
)
def test_outputs_only_under_the_root(roots: tuple[Path, Path], prefix: str, allowed: bool) -> None:
    root, outside = roots
    field = "output_config.gcs_destination.output_uri_prefix"
    named = prefix.format(root=root, outside=outside)
    if allowed:
        directory = outputs.check_destination(named, field, root)
        assert Path(directory).is_relative_to(root)
        outputs.write(directory, ["{}"], {"rows": 1}, root)
        assert (Path(directory) / outputs.RESULTS_FILE).read_text() == "{}\n"
        return
    with pytest.raises(PermissionDenied, match="output root"):
        outputs.check_destination(named, field, root)
    with pytest.raises(PermissionDenied, match="output root"):
        outputs.write(named, ["{}"], {"rows": 1}, root)
    assert not (outside / "results").exists()
