"""Reading a dataset: ``gcs_source.uris`` (local paths, ``file://`` URIs, ``gs://`` objects)
in JSONL, JSON-array or CSV form, and turning each row into an ``EvaluationInstance``.

Columns map by name: ``prompt``, ``response`` and ``reference`` become those instance fields,
``baseline_response`` (or ``baseline_model_response``) becomes the ``other_data`` entry
``baseline_model_response`` (where pairwise metrics read the baseline), ``rubric_groups`` (a
JSON object, or its text in a CSV cell: group key to a list of rubrics, as the genai SDK's
``generate_rubrics`` leaves them, or to a ``RubricGroup``) becomes ``rubric_groups``, and every
other column becomes an ``other_data`` entry of the same name. A string is used as text; an
object with ``text`` or ``contents`` as an ``InstanceData``; any other value as its JSON text.
A null value leaves the field unset.

``gs://`` needs google-cloud-storage installed and credentials configured; without them the
request fails with FAILED_PRECONDITION.
"""

from __future__ import annotations

import csv
import importlib
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from google.protobuf import json_format

from evald import api
from evald.errors import FailedPrecondition, InvalidArgument, PermissionDenied

TEXT_COLUMNS = ("prompt", "response", "reference")
BASELINE_COLUMNS = ("baseline_response", "baseline_model_response")
BASELINE_KEY = "baseline_model_response"
RUBRIC_GROUPS = "rubric_groups"
FORMATS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".csv": "csv"}

Row = dict[str, Any]


OUTSIDE = "server-local files must be under the server's {what} root ({flag})"
"""The one answer for any path outside a root: the same whether it exists or not, and
whatever it is, so the error tells nothing about the server's files."""


def confined(path: Path, root: Path | None, field: str, what: str = "dataset") -> Path:
    """``path`` (relative paths: under ``root``), checked to be inside ``root`` once symlinks
    and ``..`` are resolved; PermissionDenied if not. ``root`` None: any path (the command
    line reading the user's own files)."""
    if root is None:
        return path
    base = root.resolve()
    resolved = (base / path).resolve()  # an absolute path replaces base
    if not resolved.is_relative_to(base):
        flag = "--dataset-root" if what == "dataset" else "--output-root"
        raise PermissionDenied(f"{field}: {OUTSIDE.format(what=what, flag=flag)}")
    return resolved


def local_path(uri: str, field: str) -> Path | None:
    """The local file a URI names; None for ``gs://``; InvalidArgument for other schemes."""
    parsed = urlparse(uri)
    if parsed.scheme == "gs":
        return None
    if parsed.scheme == "file":
        if parsed.netloc not in ("", "localhost"):
            raise InvalidArgument(field, f"file:// URIs must name a local file, got {uri!r}")
        return Path(unquote(parsed.path))
    if parsed.scheme and len(parsed.scheme) > 1:  # "C:" is a drive, not a scheme
        raise InvalidArgument(
            field, f"unsupported URI scheme {parsed.scheme!r}; use a path, file:// or gs://"
        )
    return Path(uri)


def storage_client() -> Any:
    """A google-cloud-storage client, or FailedPrecondition saying what is missing."""
    try:  # optional dependency, looked up through sys.modules each time
        storage: Any = importlib.import_module("google.cloud.storage")
    except ImportError:
        raise FailedPrecondition(
            "gs:// URIs need google-cloud-storage: pip install google-cloud-storage, "
            "or give a local path or file:// URI"
        ) from None
    try:
        return storage.Client()
    except Exception as exc:  # google.auth raises several kinds when nothing is configured
        raise FailedPrecondition(
            f"gs:// URIs need Google Cloud credentials, and none are usable here ({exc}); "
            "configure Application Default Credentials or use a local path or file:// URI"
        ) from None


def check_uris(uris: Sequence[str], root: Path | None, field: str) -> None:
    """Each of ``uris`` (request field ``field``) under ``root`` and existing; raises
    EvalError."""
    for i, uri in enumerate(uris):
        where = f"{field}[{i}]"
        path = local_path(uri, where)
        if path is None:
            storage_client()
        elif not confined(path, root, where).is_file():
            raise InvalidArgument(where, f"no such file: {uri}")


def check_source(dataset: Any, root: Path | None) -> list[str]:
    """The input URIs of an ``EvaluationDataset``, checked to be under ``root`` (see
    :func:`confined`) and to exist; raises EvalError."""
    which = dataset.WhichOneof("source")
    if which is None:
        raise InvalidArgument("dataset.gcs_source", "a dataset with gcs_source.uris is required")
    if which != "gcs_source":
        raise FailedPrecondition(
            f"dataset.{which} is not supported by evald; use gcs_source.uris (local paths, "
            "file:// or gs://)"
        )
    uris = list(dataset.gcs_source.uris)
    if not uris:
        raise InvalidArgument("dataset.gcs_source.uris", "name at least one file")
    check_uris(uris, root, "dataset.gcs_source.uris")
    return uris


def read_rows(
    uris: Sequence[str], root: Path | None, name: str = "dataset.gcs_source.uris"
) -> list[Row]:
    """Every row of every file (local ones under ``root``: see :func:`confined`), in order;
    raises InvalidArgument naming the bad file/row (the URIs are request field ``name``)."""
    rows: list[Row] = []
    for i, uri in enumerate(uris):
        field = f"{name}[{i}]"
        path = local_path(uri, field)
        name = uri if path is None else str(path)
        if path is None:
            text = _download(uri, field)
        else:
            path = confined(path, root, field)
            try:
                text = path.read_text(encoding="utf-8-sig")
            except (OSError, UnicodeDecodeError) as exc:
                raise InvalidArgument(field, f"cannot read {uri}: {exc}") from None
        rows.extend(parse(text, name, field))
    return rows


def _download(uri: str, field: str) -> str:
    client = storage_client()
    parsed = urlparse(uri)
    try:
        blob = client.bucket(parsed.netloc).blob(parsed.path.lstrip("/"))
        return str(blob.download_as_text(encoding="utf-8"))
    except Exception as exc:
        raise InvalidArgument(field, f"cannot read {uri}: {exc}") from None


def parse(text: str, name: str, field: str = "dataset") -> list[Row]:
    """Rows of one file; the format comes from the extension, else from the first character."""
    kind = FORMATS.get(Path(urlparse(name).path).suffix.lower())
    stripped = text.lstrip()
    if kind is None or kind == "json":
        kind = "json" if stripped.startswith("[") else "jsonl" if stripped.startswith("{") else kind
    if kind == "csv":
        return [dict(row) for row in csv.DictReader(io.StringIO(text))]
    if kind == "json":
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise InvalidArgument(field, f"{name} is not valid JSON: {exc}") from None
        if not isinstance(data, list):
            raise InvalidArgument(field, f"{name}: a JSON dataset must be an array of objects")
        for n, item in enumerate(data):
            if not isinstance(item, dict):
                raise InvalidArgument(field, f"{name}: item {n} is not a JSON object")
        return data
    if kind == "jsonl":
        rows = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except ValueError as exc:
                raise InvalidArgument(field, f"{name} line {number} is not JSON: {exc}") from None
            if not isinstance(item, dict):
                raise InvalidArgument(field, f"{name} line {number} is not a JSON object")
            rows.append(item)
        return rows
    raise InvalidArgument(field, f"{name}: unknown format; use .jsonl, .json (an array) or .csv")


def instance_of(row: Row, path: str = "instance") -> Any:
    """The ``EvaluationInstance`` of one row; InvalidArgument names ``path.<column>``."""
    instance = api.messages.EvaluationInstance()
    for column, value in row.items():
        if value is None:
            continue
        if column in TEXT_COLUMNS:
            _fill(getattr(instance, column), value, f"{path}.{column}")
        elif column == RUBRIC_GROUPS:
            _rubric_groups(instance.rubric_groups, value, f"{path}.{RUBRIC_GROUPS}")
        else:
            key = BASELINE_KEY if column in BASELINE_COLUMNS else str(column)
            _fill(instance.other_data.map_instance[key], value, f"{path}.other_data.{key}")
    return instance


def _rubric_groups(groups: Any, value: Any, path: str) -> None:
    if isinstance(value, str):  # a CSV cell
        try:
            value = json.loads(value)
        except ValueError as exc:
            raise InvalidArgument(path, f"not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise InvalidArgument(path, "must be an object: group key to a list of rubrics")
    for key, group in value.items():
        body = {"rubrics": group} if isinstance(group, list) else group
        if not isinstance(body, dict) or not all(
            isinstance(r, dict) for r in body.get("rubrics", [])
        ):
            raise InvalidArgument(f"{path}[{key!r}]", "must be a list of rubric objects")
        try:
            json_format.ParseDict(body, groups[str(key)], ignore_unknown_fields=True)
        except (json_format.ParseError, AttributeError, TypeError) as exc:
            raise InvalidArgument(f"{path}[{key!r}]", f"not a list of rubrics: {exc}") from None


def _fill(data: Any, value: Any, path: str) -> None:
    if isinstance(value, str):
        data.text = value
    elif isinstance(value, dict) and ("text" in value or "contents" in value):
        try:
            json_format.ParseDict(value, data)
        except json_format.ParseError as exc:
            raise InvalidArgument(path, f"not an InstanceData: {exc}") from None
    else:
        data.text = json.dumps(value, ensure_ascii=False)
