"""Reading NeMo datasets (``files_url``): local paths and file:// URLs under the dataset root,
``hf://datasets/...`` from a local directory or from a Hub-compatible data store (the fake in
tests/fakes/hf_hub.py, mounted under /v1/hf as NeMo Data Store is), every format, limits, and
the errors a caller sees."""

from __future__ import annotations

import json
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from evald.errors import (
    EvalError,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
    Unavailable,
)
from evald.nemo import datasets
from evald.nemo.datasets import DatasetAccess, check_url, read_rows

from tests.fakes.hf_hub import FakeHub, json_lines, running

FIELD = "config.tasks.qa.dataset.files_url"
TOKEN = "hf_secret_token_0123456789"
ROWS = [{"question": "2+2?", "answer": "4"}, {"question": "3+3?", "answer": "6"}]


def read(url: str, access: DatasetAccess, **kwargs: Any) -> list[dict[str, Any]]:
    return read_rows(url, access, field=FIELD, **kwargs)


def fails(
    kind: type[EvalError], url: str, access: DatasetAccess, *fragments: str, **kwargs: Any
) -> EvalError:
    """read_rows(url) raises ``kind``, its message prefixed by the field and holding every
    fragment; returns the error."""
    with pytest.raises(kind) as caught:
        read(url, access, **kwargs)
    error = caught.value
    assert error.message.startswith(f"{FIELD}: "), error.message
    for fragment in fragments:
        assert fragment in error.message, (fragment, error.message)
    return error


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "datasets").mkdir()
    return tmp_path / "datasets"


@pytest.fixture
def local(root: Path) -> DatasetAccess:
    return DatasetAccess(dataset_root=root)


# Local files ----------------------------------------------------------------------------------

FORMATS = [
    ("qa.jsonl", json_lines(ROWS), ROWS),
    ("qa.ndjson", json_lines(ROWS), ROWS),
    ("qa.json", json.dumps(ROWS, indent=2).encode(), ROWS),
    ("lines.json", json_lines(ROWS), ROWS),  # JSON Lines in a .json file: NeMo's datasets do it
    ("bom.json", b"\xef\xbb\xbf\n" + json_lines(ROWS) + b"\n\n", ROWS),
    ("qa.csv", b"question,answer\n2+2?,4\n3+3?,6\n", ROWS),
    ("quoted.csv", b'q,a\n"1,2","line\nbreak"\n', [{"q": "1,2", "a": "line\nbreak"}]),
    ("short.csv", b"q,a\n1\n", [{"q": "1", "a": None}]),
    ("nested.jsonl", b'{"a": {"b": [1, null]}}\n', [{"a": {"b": [1, None]}}]),
    ("qa.data", json_lines(ROWS), ROWS),  # named explicitly, no known suffix: content decides
    ("array.data", json.dumps(ROWS).encode(), ROWS),
    ("empty.jsonl", b"", []),
    ("empty.json", b"  \n", []),
    ("empty.csv", b"question,answer\n", []),
]


@pytest.mark.parametrize(("name", "content", "rows"), FORMATS, ids=[f[0] for f in FORMATS])
def test_each_format(
    local: DatasetAccess, root: Path, name: str, content: bytes, rows: Any
) -> None:
    (root / name).write_bytes(content)
    assert read(name, local) == rows
    check_url(name, local, field=FIELD)


@pytest.mark.parametrize(
    "form",
    ["relative", "absolute", "file://", "file://localhost", "no root"],
)
def test_path_forms(tmp_path: Path, root: Path, form: str) -> None:
    (root / "sub").mkdir()
    file = root / "sub" / "qa.jsonl"
    file.write_bytes(json_lines(ROWS))
    url = {
        "relative": "sub/qa.jsonl",
        "absolute": str(file),
        "file://": file.as_uri(),
        "file://localhost": "file://localhost" + str(file),
        "no root": str(file),
    }[form]
    access = DatasetAccess() if form == "no root" else DatasetAccess(dataset_root=root)
    assert read(url, access) == ROWS
    check_url(url, access, field=FIELD)


def test_a_directory_reads_its_data_files_sorted_by_path(local: DatasetAccess, root: Path) -> None:
    folder = root / "set"
    (folder / "sub").mkdir(parents=True)
    (folder / ".git").mkdir()
    (folder / "b.jsonl").write_bytes(json_lines([{"n": 2}]))
    (folder / "a.json").write_text(json.dumps([{"n": 1}]))
    (folder / "sub" / "c.csv").write_text("n\n3\n")
    (folder / "README.md").write_text("# not data\n")
    (folder / ".hidden.jsonl").write_bytes(json_lines([{"n": "hidden"}]))
    (folder / ".git" / "x.jsonl").write_bytes(json_lines([{"n": "git"}]))
    assert read("set", local) == [{"n": 1}, {"n": 2}, {"n": "3"}]
    assert read("set/", local) == [{"n": 1}, {"n": 2}, {"n": "3"}]
    assert read((root / "set").as_uri(), local, limit=2) == [{"n": 1}, {"n": 2}]


def test_a_directory_without_data_files_is_refused(local: DatasetAccess, root: Path) -> None:
    (root / "docs").mkdir()
    (root / "docs" / "README.md").write_text("hi")
    fails(InvalidArgument, "docs", local, "docs holds no data files")


@pytest.mark.parametrize(
    ("limit", "expected"),
    [(None, 5), (1, 1), (2, 2), (3, 3), (5, 5), (100, 5)],
)
def test_limit_keeps_the_first_rows(
    local: DatasetAccess, root: Path, limit: int | None, expected: int
) -> None:
    (root / "set").mkdir()
    (root / "set" / "1.jsonl").write_bytes(json_lines([{"n": n} for n in range(3)]))
    (root / "set" / "2.jsonl").write_bytes(json_lines([{"n": n} for n in range(3, 5)]))
    assert read("set", local, limit=limit) == [{"n": n} for n in range(expected)]


def test_a_limit_met_early_reads_no_further(local: DatasetAccess, root: Path) -> None:
    (root / "set").mkdir()
    (root / "set" / "1.jsonl").write_bytes(json_lines(ROWS) + b"not json\n")
    (root / "set" / "2.jsonl").write_bytes(b"not json either\n")
    assert read("set", local, limit=2) == ROWS
    fails(InvalidArgument, "set", local, "set/1.jsonl line 3 is not JSON", limit=3)


@pytest.mark.parametrize("limit", [0, -1])
def test_a_limit_below_one_is_refused(local: DatasetAccess, root: Path, limit: int) -> None:
    (root / "qa.jsonl").write_bytes(json_lines(ROWS))
    with pytest.raises(InvalidArgument) as caught:
        read("qa.jsonl", local, limit=limit)
    assert caught.value.violations[0].field == "config.tasks.qa.dataset.limit"


BAD = [
    ("a.jsonl", b'{"a": 1}\n{"a": \n', "a.jsonl line 2 is not JSON"),
    ("a.jsonl", b'{"a": 1}\n\n[1, 2]\n', "a.jsonl line 3 is not a JSON object"),
    ("a.ndjson", b'"text"\n', "a.ndjson line 1 is not a JSON object"),
    ("a.json", b'[{"a": 1}, 2]', "a.json: item 1 is not a JSON object"),
    ("a.json", b'[{"a": 1},', "a.json is not valid JSON"),
    ("a.json", b'{\n  "data": [{"a": 1}]\n}\n', "a.json holds one JSON object"),
    ("a.json", b'{"a": 1}\n{"a": 2}\n[]\n', "a.json line 3 is not a JSON object"),
    ("a.csv", b"q,a\n1,2\n1,2,3\n", "a.csv line 3 has more cells than the header"),
    ("a.jsonl", b'{"a": "\xff"}\n', "a.jsonl line 1 is not UTF-8 text"),
    ("a.csv", b"q\n\xff\n", "a.csv line 2 is not UTF-8 text"),
    ("a.json", b"[\xff]", "a.json is not UTF-8 text"),
    ("a.txt", b"just some text\n", "a.txt: unknown format"),
]


@pytest.mark.parametrize(("name", "content", "message"), BAD, ids=[b[2] for b in BAD])
def test_bad_rows_name_the_file_and_line(
    local: DatasetAccess, root: Path, name: str, content: bytes, message: str
) -> None:
    (root / name).write_bytes(content)
    fails(InvalidArgument, name, local, message)


@pytest.mark.parametrize("exists", [True, False])
@pytest.mark.parametrize("form", ["../x.jsonl", "{tmp}/x.jsonl", "file://{tmp}/x.jsonl"])
def test_outside_the_root_is_denied_alike_whether_it_exists(
    tmp_path: Path, local: DatasetAccess, form: str, exists: bool
) -> None:
    if exists:
        (tmp_path / "x.jsonl").write_bytes(json_lines(ROWS))
    url = form.format(tmp=tmp_path)
    error = fails(PermissionDenied, url, local, "--dataset-root")
    assert str(tmp_path) not in error.message
    with pytest.raises(PermissionDenied) as caught:
        check_url(url, local, field=FIELD)
    assert caught.value.message == error.message


def test_a_symlink_out_of_the_root_is_denied(
    tmp_path: Path, local: DatasetAccess, root: Path
) -> None:
    (tmp_path / "secret.jsonl").write_bytes(json_lines(ROWS))
    (root / "set").mkdir()
    (root / "set" / "a.jsonl").write_bytes(json_lines(ROWS))
    (root / "set" / "b.jsonl").symlink_to(tmp_path / "secret.jsonl")
    (root / "link.jsonl").symlink_to(tmp_path / "secret.jsonl")
    fails(PermissionDenied, "set", local, "--dataset-root")
    fails(PermissionDenied, "link.jsonl", local, "--dataset-root")


def test_a_missing_file_is_not_found(local: DatasetAccess) -> None:
    fails(NotFound, "nope.jsonl", local, "no such file or directory: nope.jsonl")
    with pytest.raises(NotFound, match=f"^{FIELD}: no such file"):
        check_url("nope.jsonl", local, field=FIELD)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("", "name the dataset"),
        ("   ", "name the dataset"),
        ("gs://bucket/qa.jsonl", "unsupported URL scheme 'gs'"),
        ("s3://bucket/qa.jsonl", "unsupported URL scheme 's3'"),
        ("https://example.com/qa.jsonl", "unsupported URL scheme 'https'"),
        ("nds://default/qa", "unsupported URL scheme 'nds'"),
        ("file://otherhost/qa.jsonl", "must name a local file"),
        ("qa\x00.jsonl", "NUL character"),
    ],
)
def test_unsupported_urls_are_invalid(local: DatasetAccess, url: str, message: str) -> None:
    fails(InvalidArgument, url, local, message)
    with pytest.raises(InvalidArgument, match=message):
        check_url(url, local, field=FIELD)


def test_size_and_row_limits(
    local: DatasetAccess, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "set").mkdir()
    for n in range(3):
        (root / "set" / f"{n}.jsonl").write_bytes(json_lines(ROWS))
    size = len(json_lines(ROWS))
    monkeypatch.setattr(datasets, "MAX_DATASET_BYTES", 3 * size - 1)
    fails(ResourceExhausted, "set", local, "larger than")
    assert len(read("set/0.jsonl", local)) == 2
    monkeypatch.setattr(datasets, "MAX_DATASET_BYTES", 3 * size)
    monkeypatch.setattr(datasets, "MAX_ROWS", 5)
    fails(ResourceExhausted, "set", local, "more than 5 rows")
    assert len(read("set", local, limit=5)) == 5
    monkeypatch.setattr(datasets, "MAX_FILES", 2)
    fails(ResourceExhausted, "set", local, "more than 2 data files")


def test_parquet_without_pyarrow_is_a_failed_precondition(
    local: DatasetAccess, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "qa.parquet").write_bytes(b"PAR1")
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)  # import fails
    fails(FailedPrecondition, "qa.parquet", local, "qa.parquet is Parquet", "pip install pyarrow")


def test_parquet(local: DatasetAccess, root: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    pq.write_table(pa.Table.from_pylist(ROWS * 1500), root / "qa.parquet")
    assert read("qa.parquet", local) == ROWS * 1500
    assert read("qa.parquet", local, limit=3) == (ROWS * 2)[:3]
    (root / "bad.parquet").write_bytes(b"not parquet at all")
    fails(InvalidArgument, "bad.parquet", local, "bad.parquet cannot be read as Parquet")


# hf:// from a local directory ------------------------------------------------------------------


@pytest.fixture
def hf_dir(tmp_path: Path) -> Path:
    repo = tmp_path / "hf" / "default" / "qa"
    (repo / "data").mkdir(parents=True)
    (repo / "input.json").write_bytes(json_lines(ROWS))
    (repo / "data" / "extra.jsonl").write_bytes(json_lines([{"question": "x", "answer": "y"}]))
    (repo / "README.md").write_text("# QA\n")
    (repo / ".gitattributes").write_text("*.json filter=lfs\n")
    (repo / "bad.jsonl").write_bytes(b'{"a": 1}\nnope\n')
    return tmp_path / "hf"


def test_hf_urls_read_from_the_datasets_dir(hf_dir: Path) -> None:
    access = DatasetAccess(hf_datasets_dir=hf_dir)
    extra = [{"question": "x", "answer": "y"}]
    assert read("hf://datasets/default/qa/input.json", access) == ROWS
    assert read("hf://datasets/default/qa/data", access) == extra
    assert read("hf://datasets/default/qa/data/", access) == extra
    (hf_dir / "default" / "qa" / "bad.jsonl").unlink()
    # The whole repo: data files sorted by path (bad… < data/… < input…), README skipped.
    assert read("hf://datasets/default/qa", access) == [*extra, *ROWS]
    assert read("hf://datasets/default/qa/", access, limit=2) == [*extra, ROWS[0]]
    check_url("hf://datasets/default/qa/input.json", access, field=FIELD)
    check_url("hf://datasets/default/qa", access, field=FIELD)


def test_hf_dir_errors_name_the_hf_url_never_the_server_path(hf_dir: Path) -> None:
    access = DatasetAccess(hf_datasets_dir=hf_dir)
    error = fails(
        InvalidArgument,
        "hf://datasets/default/qa/bad.jsonl",
        access,
        "hf://datasets/default/qa/bad.jsonl line 2 is not JSON",
    )
    assert str(hf_dir) not in error.message
    error = fails(
        NotFound, "hf://datasets/default/qa/nope.json", access, "hf://datasets/default/qa/nope.json"
    )
    assert str(hf_dir) not in error.message
    with pytest.raises(NotFound):
        check_url("hf://datasets/default/qa/nope.json", access, field=FIELD)
    # A repo the directory lacks, with no endpoint to fall back on.
    fails(NotFound, "hf://datasets/default/other/a.json", access, "no dataset default/other")
    with pytest.raises(NotFound):
        check_url("hf://datasets/default/other", access, field=FIELD)


def test_a_symlink_out_of_the_hf_dir_is_denied(tmp_path: Path, hf_dir: Path) -> None:
    (tmp_path / "secret.jsonl").write_bytes(json_lines(ROWS))
    (hf_dir / "default" / "qa" / "leak.jsonl").symlink_to(tmp_path / "secret.jsonl")
    (hf_dir / "default" / "elsewhere").symlink_to(tmp_path)
    access = DatasetAccess(hf_datasets_dir=hf_dir)
    fails(PermissionDenied, "hf://datasets/default/qa/leak.jsonl", access, "--hf-datasets-dir")
    fails(PermissionDenied, "hf://datasets/default/qa", access, "--hf-datasets-dir")
    fails(PermissionDenied, "hf://datasets/default/elsewhere/secret.jsonl", access)


MALFORMED = [
    ("hf://default/qa/input.json", "hf://datasets/<namespace>/<name>"),  # no datasets/
    ("hf://models/meta/llama", "names a model repo"),
    ("hf://spaces/a/b", "names a space repo"),
    ("hf://datasets", "needs a namespace and a dataset name"),
    ("hf://datasets/default", "needs a namespace and a dataset name"),
    ("hf://datasets/default/", "needs a namespace and a dataset name"),
    ("hf://datasets//qa/input.json", "'' is not a valid namespace"),
    ("hf://datasets/../qa", "'..' is not a valid namespace"),
    ("hf://datasets/default/q$a", "'q$a' is not a valid namespace or dataset name"),
    ("hf://datasets/default/qa/../other/x.json", "'..' segment"),
    ("hf://datasets/default/qa/./x.json", "'..' segment"),
    ("hf://datasets/default/qa/a//b.json", "empty"),
    ("hf://datasets/default/qa/input.json?split=test", "not a dataset URL"),
    ("hf://datasets/default/qa#input.json", "not a dataset URL"),
    ("hf:datasets/default/qa", "not a dataset URL"),
    ("hf://", "not a dataset URL"),
]


@pytest.mark.parametrize(("url", "message"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_hf_urls_are_invalid(hf_dir: Path, url: str, message: str) -> None:
    for access in (DatasetAccess(), DatasetAccess(hf_datasets_dir=hf_dir)):
        fails(InvalidArgument, url, access, message)
        with pytest.raises(InvalidArgument, match=f"^{FIELD}: "):
            check_url(url, access, field=FIELD)


# hf:// from a data store ------------------------------------------------------------------------


@pytest.fixture
def hub() -> Iterator[FakeHub]:
    state = FakeHub(prefix="/v1/hf")
    state.add(
        "default/qa",
        {
            "input.json": json_lines(ROWS),
            "data/b.jsonl": json_lines([{"n": 2}]),
            "data/a.csv": "n\n1\n",
            "README.md": "# QA\n",
            ".gitattributes": "*.json filter=lfs\n",
        },
    )
    with running(state) as served:
        yield served


def store(hub: FakeHub, tmp_path: Path, **kwargs: Any) -> DatasetAccess:
    return DatasetAccess(hf_endpoint=hub.endpoint, cache_dir=tmp_path / "cache", **kwargs)


def gets(hub: FakeHub) -> list[str]:
    return [r.path for r in hub.requests if r.method == "GET"]


def test_a_file_is_downloaded_from_the_store(hub: FakeHub, tmp_path: Path) -> None:
    access = store(hub, tmp_path)
    assert read("hf://datasets/default/qa/input.json", access) == ROWS
    assert "/datasets/default/qa/resolve/main/input.json" in hub.paths()
    assert any(p.endswith("/input.json") and "resolve" in p for p in gets(hub))
    assert all(not r.authorization for r in hub.requests)
    assert list((tmp_path / "cache").rglob("input.json"))  # kept in the configured cache
    check_url("hf://datasets/default/qa/input.json", access, field=FIELD)


def test_a_cached_file_is_not_downloaded_again(hub: FakeHub, tmp_path: Path) -> None:
    access = store(hub, tmp_path)
    read("hf://datasets/default/qa/input.json", access)
    hub.reset()
    assert read("hf://datasets/default/qa/input.json", access) == ROWS
    assert gets(hub) == []


@pytest.mark.parametrize("siblings", [True, False], ids=["repo info", "tree listing"])
def test_a_whole_repo_reads_its_data_files_sorted(
    hub: FakeHub, tmp_path: Path, siblings: bool
) -> None:
    hub.siblings = siblings
    access = store(hub, tmp_path)
    # data/a.csv, data/b.jsonl, input.json; README.md and .gitattributes skipped.
    expected = [{"n": "1"}, {"n": 2}, *ROWS]
    assert read("hf://datasets/default/qa", access) == expected
    assert not any("README" in p or ".gitattributes" in p for p in hub.paths())
    assert read("hf://datasets/default/qa/data", access) == expected[:2]


def test_a_limit_met_early_downloads_no_further(hub: FakeHub, tmp_path: Path) -> None:
    assert read("hf://datasets/default/qa", store(hub, tmp_path), limit=1) == [{"n": "1"}]
    assert not any("b.jsonl" in p or "input.json" in p for p in gets(hub))


def test_the_token_reaches_the_store_and_no_error(hub: FakeHub, tmp_path: Path) -> None:
    hub.token = TOKEN
    url = "hf://datasets/default/qa/input.json"
    assert read(url, store(hub, tmp_path, hf_token=TOKEN)) == ROWS
    assert hub.requests
    assert all(r.authorization == f"Bearer {TOKEN}" for r in hub.requests)
    assert TOKEN not in repr(store(hub, tmp_path, hf_token=TOKEN))

    error = fails(FailedPrecondition, url, store(hub, tmp_path), "HTTP 401", "EVALD_HF_TOKEN")
    assert hub.endpoint in error.message
    wrong = "hf_wrong_token_9876543210"
    error = fails(FailedPrecondition, url, store(hub, tmp_path, hf_token=wrong), "HTTP 401")
    assert wrong not in error.message
    error = fails(FailedPrecondition, "hf://datasets/default/qa", store(hub, tmp_path), "401")


def test_the_token_goes_to_the_servers_own_store_only(
    hub: FakeHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_TOKEN", "hf_machine_token")  # never sent: only the configured one
    url = "hf://datasets/default/qa/input.json"
    other = DatasetAccess(
        hf_endpoint="http://127.0.0.1:9/v1/hf", hf_token=TOKEN, cache_dir=tmp_path / "cache"
    )
    assert read(url, other, hf_endpoint=hub.endpoint) == ROWS  # a job's own endpoint
    assert read(url, store(hub, tmp_path)) == ROWS  # no token configured
    assert all(not r.authorization for r in hub.requests)
    hub.reset()
    assert read(url, store(hub, tmp_path, hf_token=TOKEN), hf_endpoint=hub.endpoint + "/") == ROWS
    assert all(r.authorization == f"Bearer {TOKEN}" for r in hub.requests)


def test_missing_repo_and_file_are_not_found(hub: FakeHub, tmp_path: Path) -> None:
    access = store(hub, tmp_path)
    fails(NotFound, "hf://datasets/default/nope", access, "has no dataset default/nope")
    fails(NotFound, "hf://datasets/default/nope/a.json", access, "has no dataset default/nope")
    fails(NotFound, "hf://datasets/default/qa/nope.json", access, "hf://datasets/default/qa/nope")
    fails(NotFound, "hf://datasets/default/qa/data/x", access, "no such file or folder")


def test_a_store_in_trouble_is_unavailable_at_once(hub: FakeHub, tmp_path: Path) -> None:
    hub.fail_status = 503
    for url in ("hf://datasets/default/qa/input.json", "hf://datasets/default/qa"):
        started = time.monotonic()
        fails(Unavailable, url, store(hub, tmp_path), "HTTP 503", hub.endpoint)
        assert time.monotonic() - started < 3
    assert len(hub.requests) == 2  # asked once each, no retries


def test_a_repo_without_data_files_is_refused(hub: FakeHub, tmp_path: Path) -> None:
    hub.add("default/docs", {"README.md": "# nothing\n"})
    fails(InvalidArgument, "hf://datasets/default/docs", store(hub, tmp_path), "no data files")


def test_a_large_file_is_refused_before_download(
    hub: FakeHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(datasets, "MAX_DATASET_BYTES", 10)
    fails(ResourceExhausted, "hf://datasets/default/qa/input.json", store(hub, tmp_path))
    assert gets(hub) == []


def test_the_datasets_dir_comes_before_the_store(
    hub: FakeHub, tmp_path: Path, hf_dir: Path
) -> None:
    access = store(hub, tmp_path, hf_datasets_dir=hf_dir)
    (hf_dir / "default" / "qa" / "input.json").write_bytes(json_lines([{"from": "dir"}]))
    assert read("hf://datasets/default/qa/input.json", access) == [{"from": "dir"}]
    assert hub.requests == []
    hub.add("default/other", {"x.jsonl": json_lines([{"from": "store"}])})
    assert read("hf://datasets/default/other/x.jsonl", access) == [{"from": "store"}]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize("url", ["hf://datasets/default/qa/input.json", "hf://datasets/default/qa"])
def test_a_closed_port_fails_fast_naming_the_endpoint(tmp_path: Path, url: str) -> None:
    endpoint = f"http://127.0.0.1:{free_port()}/v1/hf"
    access = DatasetAccess(hf_endpoint=endpoint, hf_token=TOKEN, cache_dir=tmp_path / "cache")
    started = time.monotonic()
    error = fails(Unavailable, url, access, endpoint)
    assert time.monotonic() - started < 3
    assert TOKEN not in error.message


@pytest.mark.parametrize("url", ["hf://datasets/default/qa/input.json", "hf://datasets/default/qa"])
def test_a_store_that_never_answers_times_out(tmp_path: Path, url: str) -> None:
    with socket.socket() as silent:  # accepts connections (backlog) but never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        endpoint = f"http://127.0.0.1:{silent.getsockname()[1]}"
        access = DatasetAccess(
            hf_endpoint=endpoint, cache_dir=tmp_path / "cache", timeout_seconds=0.5
        )
        started = time.monotonic()
        fails(Unavailable, url, access, endpoint)
        assert time.monotonic() - started < 3


# Nowhere to read hf:// from ---------------------------------------------------------------------


def test_no_source_configured_fails_at_once_saying_how_to_configure_one() -> None:
    for check in (read_rows, check_url):
        started = time.monotonic()
        with pytest.raises(FailedPrecondition) as caught:
            check("hf://datasets/default/qa/input.json", DatasetAccess(), field=FIELD)
        assert time.monotonic() - started < 0.5
        message = caught.value.message
        assert message.startswith(f"{FIELD}: ")
        for setting in (
            "--hf-endpoint",
            "EVALD_HF_ENDPOINT",
            "EVALD_HF_TOKEN",
            "--hf-datasets-dir",
            "EVALD_HF_DATASETS_DIR",
        ):
            assert setting in message


def test_without_huggingface_hub_the_extra_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)  # import fails
    access = DatasetAccess(hf_endpoint="http://127.0.0.1:9", cache_dir=tmp_path)
    for check in (read_rows, check_url):
        with pytest.raises(FailedPrecondition, match=rf"^{FIELD}: .*evald\[hf\]"):
            check("hf://datasets/default/qa", access, field=FIELD)


@pytest.mark.parametrize("endpoint", ["ftp://store/v1/hf", "store:3000", "http://"])
def test_a_jobs_bad_endpoint_is_invalid(endpoint: str) -> None:
    for check in (read_rows, check_url):
        with pytest.raises(InvalidArgument) as caught:
            check("hf://datasets/a/b", DatasetAccess(), field=FIELD, hf_endpoint=endpoint)
        assert caught.value.violations[0].field == "config.tasks.qa.dataset.hf_endpoint"
    with pytest.raises(FailedPrecondition, match="--hf-endpoint must be an http"):
        check_url("hf://datasets/a/b", DatasetAccess(hf_endpoint=endpoint), field=FIELD)
