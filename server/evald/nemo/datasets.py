"""Reading a NeMo Evaluator dataset, named by its ``files_url``, into a list of row objects.

``files_url`` is one of:

- ``hf://datasets/<namespace>/<name>/<path>``: one file of a dataset repo on a Hugging Face
  Hub-compatible data store (NeMo Data Store), or every data file under ``<path>`` when it is a
  folder; ``hf://datasets/<namespace>/<name>``: every data file of the repo. This is the only
  form NeMo Evaluator documents (``hf://datasets/<namespace>/<name>[/<file>]``); a URL without
  the ``datasets/`` segment, or naming a model or Space repo, is refused.
- a server-local path or ``file://`` URL, under the server's dataset root: a file, or a
  directory whose data files are all read.

The repo is looked up first in ``DatasetAccess.hf_datasets_dir`` (``<dir>/<namespace>/<name>``)
and, when it is not there, downloaded from the data store (a job's own ``hf_endpoint``, else the
server's) with ``huggingface_hub``. The Hub at huggingface.co is never used unless named.

Data files are ``.json`` (an array of objects, or JSON Lines: the content decides, as NeMo
datasets often hold JSON Lines in a ``.json`` file), ``.jsonl``/``.ndjson``, ``.csv`` (every
value a string) and ``.parquet`` (needs pyarrow). Reading a folder or repo takes every data file
below it, sorted by path, and skips the rest (``README.md``, ``.gitattributes``, hidden files).
"""

from __future__ import annotations

import codecs
import csv
import importlib
import json
import logging
import os
import re
from collections.abc import Callable, Generator, Iterable
from contextlib import closing, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

from evald.errors import (
    EvalError,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
    Unavailable,
)
from evald.jobs.sources import confined, local_path

log = logging.getLogger(__name__)

Row = dict[str, Any]
Rows = Generator[Row]

MAX_DATASET_BYTES = 1 << 30
"""The most bytes of data files one dataset may hold: rows are held in memory."""
MAX_ROWS = 10_000_000
"""The most rows one dataset may hold."""
MAX_FILES = 10_000
"""The most data files one folder or repo may hold."""

DATA_SUFFIXES = (".json", ".jsonl", ".ndjson", ".csv", ".parquet")
_SUFFIX_LIST = ", ".join(DATA_SUFFIXES)
HUB_FORM = "hf://datasets/<namespace>/<name>[/<path>]"
_PART = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,95}")  # a Hub namespace or repo name
_COMMIT = re.compile(r"[0-9a-f]{40}")
_MAIN = "main"

NO_SOURCE = (
    "hf:// datasets need a data store: start evald with --hf-endpoint URL (EVALD_HF_ENDPOINT; "
    "NeMo Data Store: http://<host>:3000/v1/hf) and, if the store needs one, a token "
    "in EVALD_HF_TOKEN, or with --hf-datasets-dir DIR (EVALD_HF_DATASETS_DIR) holding "
    "<namespace>/<name>/<files>; a job may also name its dataset's own hf_endpoint"
)
HUB_OUTSIDE = "hf:// files must be inside the server's --hf-datasets-dir"


@dataclass(frozen=True)
class DatasetAccess:
    """Where datasets may be read from: the server's settings, or the command line's."""

    dataset_root: Path | None = None
    """Server-local files must be under it (None: any path, the command line's case)."""
    hf_endpoint: str | None = None
    """An HF-compatible data store (e.g. NeMo Data Store's ``http://datastore:3000/v1/hf``);
    a job's own ``hf_endpoint`` overrides it."""
    hf_token: str | None = field(default=None, repr=False)
    """Sent to ``hf_endpoint`` only; never logged or put in an error."""
    hf_datasets_dir: Path | None = None
    """A local directory laid out as ``<namespace>/<name>/<files>``, looked in first."""
    cache_dir: Path | None = None
    """Where ``huggingface_hub`` keeps downloads (None: its own default cache)."""
    timeout_seconds: float = 30.0
    """How long one request to the data store may wait for an answer."""


@dataclass(frozen=True)
class _HubRef:
    """A parsed ``hf://datasets/<namespace>/<name>[/<path>]``."""

    namespace: str
    name: str
    path: str  # "" for the whole repo

    @property
    def repo_id(self) -> str:
        return f"{self.namespace}/{self.name}"

    def url(self, path: str | None = None) -> str:
        """The ``hf://`` URL of ``path`` in the repo (default: the path this names)."""
        path = self.path if path is None else path
        return f"hf://datasets/{self.repo_id}" + (f"/{path}" if path else "")


# The two entry points ---------------------------------------------------------------------------


def check_url(
    files_url: str, access: DatasetAccess, *, field: str, hf_endpoint: str | None = None
) -> None:
    """Cheap checks of ``files_url`` when a job is created, with no network call: a known
    scheme, a local file or directory inside the dataset root, a well-formed ``hf://`` URL with
    somewhere to read it from. Raises EvalError, its message prefixed by ``field``."""
    source = _parse(files_url, field)
    if isinstance(source, Path):
        if not confined(source, access.dataset_root, field).exists():
            raise NotFound(f"{field}: no such file or directory: {files_url}")
        return
    repo = _hub_dir(source, access, field)
    if repo is not None:
        if source.path and not _inside_hub_dir(repo / source.path, access, field).exists():
            raise NotFound(f"{field}: no such file or folder: {source.url()}")
        return
    if _endpoint(access, hf_endpoint, field) is None:
        raise _no_source(source, access, field)
    _huggingface_hub(field)


def read_rows(
    files_url: str,
    access: DatasetAccess,
    *,
    field: str,
    limit: int | None = None,
    hf_endpoint: str | None = None,
) -> list[Row]:
    """The rows of the dataset ``files_url`` names, in file order, the first ``limit`` only
    when given. Blocking: file reads and downloads (run it in a thread). Raises EvalError, its
    message prefixed by ``field`` (or, for a bad ``limit``/``hf_endpoint``, by that field)."""
    if limit is not None and limit < 1:
        raise InvalidArgument(_sibling(field, "limit"), f"must be 1 or more, got {limit}")
    source = _parse(files_url, field)
    if isinstance(source, Path):
        return _collect(_local_files(source, files_url, access, field), field, limit)
    if (repo := _hub_dir(source, access, field)) is not None:
        return _collect(_hub_dir_files(source, repo, access, field), field, limit)
    if (endpoint := _endpoint(access, hf_endpoint, field)) is None:
        raise _no_source(source, access, field)
    with closing(_hub_files(source, *endpoint, access, field)) as downloads:
        return _collect(downloads, field, limit)


# Parsing files_url ------------------------------------------------------------------------------


def _parse(files_url: str, field: str) -> Path | _HubRef:
    if not files_url.strip():
        raise InvalidArgument(
            field, f"name the dataset: {HUB_FORM}, a server-local path or a file:// URL"
        )
    if "\x00" in files_url:
        raise InvalidArgument(field, "contains a NUL character")
    scheme = re.match(r"([A-Za-z][A-Za-z0-9+.-]*):", files_url)
    name = scheme[1].lower() if scheme else ""
    if name == "hf":
        return _hub_ref(files_url, field)
    if name not in ("", "file") and len(name) > 1:  # "C:" is a drive, not a scheme
        raise InvalidArgument(
            field,
            f"unsupported URL scheme {name!r}; use {HUB_FORM}, a server-local path or file://",
        )
    path = local_path(files_url, field)
    assert path is not None  # None only for gs://, refused above
    return path


def _hub_ref(files_url: str, field: str) -> _HubRef:
    rest = files_url[len("hf://") :] if files_url[2:5] == "://" else ""
    if not rest or "?" in rest or "#" in rest:
        raise InvalidArgument(
            field, f"{files_url!r} is not a dataset URL; NeMo datasets are named {HUB_FORM}"
        )
    parts = rest.split("/")
    if len(parts) > 1 and parts[-1] == "":  # a trailing slash: the folder itself
        parts.pop()
    if parts[0] in ("models", "spaces"):
        raise InvalidArgument(
            field, f"{files_url!r} names a {parts[0][:-1]} repo; datasets are {HUB_FORM}"
        )
    if parts[0] != "datasets":
        # NeMo Evaluator documents only the form with "datasets/"; guessing that the first
        # segment is a namespace could read a different repo than the job meant.
        raise InvalidArgument(
            field, f"{files_url!r}: NeMo names a data store dataset {HUB_FORM}, with datasets/"
        )
    if len(parts) < 3:
        raise InvalidArgument(
            field, f"{files_url!r} needs a namespace and a dataset name: {HUB_FORM}"
        )
    namespace, name, *path = parts[1:]
    for part in (namespace, name):
        if not _PART.fullmatch(part) or ".." in part:
            raise InvalidArgument(
                field, f"{files_url!r}: {part!r} is not a valid namespace or dataset name"
            )
    if any(p in ("", ".", "..") or "\\" in p for p in path):
        raise InvalidArgument(
            field, f"{files_url!r}: the path in the repo has an empty, '.' or '..' segment"
        )
    return _HubRef(namespace, name, "/".join(path))


def _sibling(field: str, name: str) -> str:
    """The path of another field of the same object: ``a.dataset.files_url`` → ``a.dataset.x``."""
    return f"{field.rpartition('.')[0]}.{name}" if "." in field else name


# Where the files are ------------------------------------------------------------------------------


def _is_data(name: str) -> bool:
    return name.lower().endswith(DATA_SUFFIXES)


def _local_files(
    path: Path, files_url: str, access: DatasetAccess, field: str
) -> list[tuple[Path, str]]:
    target = confined(path, access.dataset_root, field)
    if target.is_file():
        return [(target, files_url)]
    if not target.is_dir():
        raise NotFound(f"{field}: no such file or directory: {files_url}")

    def inside(file: Path) -> Path:
        return confined(file, access.dataset_root, field)

    found = _walk(target, inside, field)
    if not found:
        raise InvalidArgument(field, f"{files_url} holds no data files ({_SUFFIX_LIST})")
    base = files_url.rstrip("/")
    return [(file, f"{base}/{relative}") for relative, file in found]


def _walk(directory: Path, inside: Callable[[Path], Path], field: str) -> list[tuple[str, Path]]:
    """The data files below ``directory`` as (relative POSIX path, file), sorted by path;
    hidden files and folders (``.git``, ``.cache``) are skipped. ``inside`` checks each file
    (a symlink may lead out of the root) and returns the path to read."""
    found: list[tuple[str, Path]] = []
    # followlinks=False: a symlinked folder could lead anywhere, and is not walked.
    for folder, folders, names in os.walk(directory):
        folders[:] = [f for f in folders if not f.startswith(".")]
        for name in names:
            if name.startswith(".") or not _is_data(name):
                continue
            file = Path(folder, name)
            found.append((file.relative_to(directory).as_posix(), inside(file)))
            if len(found) > MAX_FILES:
                raise ResourceExhausted(
                    f"{field}: more than {MAX_FILES} data files; name one file or a smaller folder"
                )
    return sorted(found)


def _hub_dir(ref: _HubRef, access: DatasetAccess, field: str) -> Path | None:
    """The repo's folder in ``hf_datasets_dir``, or None when it has none there."""
    if access.hf_datasets_dir is None:
        return None
    repo = access.hf_datasets_dir / ref.namespace / ref.name
    return _inside_hub_dir(repo, access, field) if repo.is_dir() else None


def _inside_hub_dir(path: Path, access: DatasetAccess, field: str) -> Path:
    assert access.hf_datasets_dir is not None
    base = access.hf_datasets_dir.resolve()
    resolved = path.resolve()
    if not resolved.is_relative_to(base):
        raise PermissionDenied(f"{field}: {HUB_OUTSIDE}")
    return resolved


def _hub_dir_files(
    ref: _HubRef, repo: Path, access: DatasetAccess, field: str
) -> list[tuple[Path, str]]:
    target = _inside_hub_dir(repo / ref.path, access, field) if ref.path else repo
    if target.is_file():
        return [(target, ref.url())]
    if not target.is_dir():
        raise NotFound(f"{field}: no such file or folder: {ref.url()}")

    def inside(file: Path) -> Path:
        return _inside_hub_dir(file, access, field)

    found = _walk(target, inside, field)
    if not found:
        raise InvalidArgument(field, f"{ref.url()} holds no data files ({_SUFFIX_LIST})")
    prefix = f"{ref.path}/" if ref.path else ""
    return [(file, ref.url(prefix + relative)) for relative, file in found]


def _endpoint(
    access: DatasetAccess, hf_endpoint: str | None, field: str
) -> tuple[str, str | None] | None:
    """The data store to download from and the token to send it, or None when none is set."""
    own = _normalized(access.hf_endpoint) if access.hf_endpoint else None
    if own is not None and not _is_http(own):
        raise FailedPrecondition(
            f"{field}: the server's --hf-endpoint must be an http:// or https:// URL"
        )
    if hf_endpoint:
        chosen = _normalized(hf_endpoint)
        if not _is_http(chosen):
            raise InvalidArgument(
                _sibling(field, "hf_endpoint"),
                f"must be an http:// or https:// URL, got {hf_endpoint!r}",
            )
        # The server's token is for the server's data store: a job naming another endpoint must
        # not receive it.
        return chosen, access.hf_token if chosen == own else None
    return (own, access.hf_token) if own is not None else None


def _normalized(endpoint: str) -> str:
    return endpoint.strip().rstrip("/")


def _is_http(endpoint: str) -> bool:
    try:
        parts = urlsplit(endpoint)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def _no_source(ref: _HubRef, access: DatasetAccess, field: str) -> EvalError:
    if access.hf_datasets_dir is not None:
        return NotFound(
            f"{field}: no dataset {ref.repo_id} in the server's --hf-datasets-dir, and no "
            "--hf-endpoint (EVALD_HF_ENDPOINT) to download it from"
        )
    return FailedPrecondition(f"{field}: {NO_SOURCE}")


# The data store ---------------------------------------------------------------------------------


def _huggingface_hub(field: str) -> Any:
    """The huggingface_hub module, or FailedPrecondition naming the extra to install."""
    try:  # optional dependency, looked up through sys.modules each time
        return importlib.import_module("huggingface_hub")
    except ImportError:
        raise FailedPrecondition(
            f"{field}: hf:// datasets on a data store need huggingface_hub on the server: "
            "pip install 'evald[hf]' (or set --hf-datasets-dir to read them from a local "
            "directory)"
        ) from None


def _hub_files(
    ref: _HubRef, endpoint: str, token: str | None, access: DatasetAccess, field: str
) -> Generator[tuple[Path, str]]:
    """Download the files ``ref`` names, one at a time as they are read (so a ``limit`` met
    early leaves the rest undownloaded)."""
    hub = _huggingface_hub(field)
    errors = importlib.import_module("huggingface_hub.errors")
    # False, not None: huggingface_hub would otherwise send a token found on this machine
    # (HF_TOKEN, ~/.cache/huggingface) to whatever endpoint the job named.
    auth: str | bool = token or False
    timeout = access.timeout_seconds
    quiet = getattr(getattr(hub, "utils", None), "silent_tqdm", None)
    name = ref.path
    try:
        # The first request asks once, with a timeout and no retry (HfApi.dataset_info and
        # get_hf_file_metadata do not retry), so a data store that is down fails at once;
        # hf_hub_download alone would retry a failed HEAD for half a minute.
        listing: list[tuple[str, Any]] = []
        if ref.path:
            with suppress(errors.RemoteEntryNotFoundError):  # not a file: maybe a folder
                listing = [
                    (ref.path, _metadata(hub, ref, ref.path, _MAIN, endpoint, auth, timeout))
                ]
        if not listing:
            listing = [(n, None) for n in _repo_files(hub, ref, endpoint, auth, timeout, field)]
        revision = _MAIN
        for name, metadata in listing:
            if metadata is None:
                metadata = _metadata(hub, ref, name, revision, endpoint, auth, timeout)
            if metadata.size is not None and metadata.size > MAX_DATASET_BYTES:
                raise _too_large(field)
            # Every file from the commit the first one came from, even if the repo changes.
            if revision == _MAIN and _COMMIT.fullmatch(metadata.commit_hash or ""):
                revision = metadata.commit_hash
            log.info("downloading %s from the data store at %s", ref.url(name), endpoint)
            local = hub.hf_hub_download(
                ref.repo_id,
                name,
                repo_type="dataset",
                revision=revision,
                endpoint=endpoint,
                token=auth,
                cache_dir=access.cache_dir,
                etag_timeout=timeout,
                library_name="evald",
                **({"tqdm_class": quiet} if quiet is not None else {}),
            )
            yield Path(local), ref.url(name)
    except EvalError:
        raise
    except Exception as exc:
        raise _hub_error(exc, errors, ref, name, endpoint, token, field) from None


def _metadata(
    hub: Any,
    ref: _HubRef,
    name: str,
    revision: str,
    endpoint: str,
    auth: str | bool,
    timeout: float,
) -> Any:
    url = hub.hf_hub_url(
        ref.repo_id, name, repo_type="dataset", revision=revision, endpoint=endpoint
    )
    return hub.get_hf_file_metadata(url, token=auth, timeout=timeout, endpoint=endpoint)


def _repo_files(
    hub: Any, ref: _HubRef, endpoint: str, auth: str | bool, timeout: float, field: str
) -> list[str]:
    """The data files of the repo under ``ref.path``, sorted; NotFound or InvalidArgument when
    there are none."""
    api = hub.HfApi(endpoint=endpoint, library_name="evald")
    info = api.dataset_info(ref.repo_id, timeout=timeout, token=auth)
    names = (
        [s.rfilename for s in info.siblings]
        if info.siblings is not None  # the Hub lists them; a store that does not is asked
        else api.list_repo_files(ref.repo_id, repo_type="dataset", token=auth)
    )
    under = f"{ref.path}/" if ref.path else ""
    found = sorted(
        n
        for n in names
        if n.startswith(under) and _is_data(n) and not any(p.startswith(".") for p in n.split("/"))
    )
    if not found and ref.path:
        raise NotFound(f"{field}: no such file or folder: {ref.url()} (data store at {endpoint})")
    if not found:
        raise InvalidArgument(field, f"{ref.url()} holds no data files ({_SUFFIX_LIST})")
    if len(found) > MAX_FILES:
        raise ResourceExhausted(
            f"{field}: more than {MAX_FILES} data files; name one file or a smaller folder"
        )
    return found


def _hub_error(
    exc: Exception,
    errors: Any,
    ref: _HubRef,
    name: str,
    endpoint: str,
    token: str | None,
    field: str,
) -> EvalError:
    """The EvalError for a failure of huggingface_hub; never holds the token."""
    # hf_hub_download wraps the HTTP error of its HEAD request; the status is in the cause.
    cause: BaseException | None = exc
    while isinstance(cause, errors.LocalEntryNotFoundError) and cause.__cause__ is not None:
        cause = cause.__cause__
    status = None
    if isinstance(cause, errors.HfHubHTTPError) and cause.response is not None:
        status = cause.response.status_code
    where = f"the data store at {endpoint}"
    if status in (401, 403) or isinstance(cause, errors.GatedRepoError):
        hint = (
            "check the server's token (EVALD_HF_TOKEN)"
            if token
            else "it may need a token: the server sends its token (EVALD_HF_TOKEN) to its "
            "own --hf-endpoint only"
        )
        return FailedPrecondition(
            f"{field}: {where} refused access to dataset {ref.repo_id} (HTTP {status}); {hint}"
        )
    if isinstance(cause, errors.RepositoryNotFoundError):
        return NotFound(f"{field}: {where} has no dataset {ref.repo_id}")
    if isinstance(cause, errors.RevisionNotFoundError):
        return NotFound(f"{field}: {where} has no main revision of dataset {ref.repo_id}")
    if isinstance(cause, errors.RemoteEntryNotFoundError):
        return NotFound(f"{field}: {where} has no file {ref.url(name)}")
    if isinstance(cause, errors.OfflineModeIsEnabled):
        return FailedPrecondition(
            f"{field}: HF_HUB_OFFLINE is set in evald's environment, so {where} is not asked"
        )
    if status is not None:
        return Unavailable(f"{field}: {where} answered HTTP {status} for {ref.url(name)}")
    if isinstance(cause, OSError) and cause.errno is not None:  # a local file: the cache
        return FailedPrecondition(
            f"{field}: cannot store {ref.url(name)} in evald's download cache: {cause.strerror}"
        )
    detail = f"{type(cause).__name__}: {cause}".splitlines()[0]
    if token:
        detail = detail.replace(token, "***")
    return Unavailable(f"{field}: cannot read {ref.url(name)} from {where}: {detail}")


# Reading the files ------------------------------------------------------------------------------


def _too_large(field: str) -> ResourceExhausted:
    return ResourceExhausted(
        f"{field}: the dataset is larger than {MAX_DATASET_BYTES} bytes, evald's limit; "
        "name a smaller file or use limit"
    )


def _collect(files: Iterable[tuple[Path, str]], field: str, limit: int | None) -> list[Row]:
    """The rows of ``files`` in order, up to ``limit``, within the size and row limits."""
    rows: list[Row] = []
    total = 0
    for path, name in files:
        try:
            total += path.stat().st_size
        except OSError as exc:
            raise InvalidArgument(field, f"cannot read {name}: {exc.strerror}") from None
        if total > MAX_DATASET_BYTES:
            raise _too_large(field)
        with closing(_file_rows(path, name, field)) as file_rows:
            for row in file_rows:
                if len(rows) >= MAX_ROWS:
                    raise ResourceExhausted(
                        f"{field}: the dataset has more than {MAX_ROWS} rows, evald's limit; "
                        "use limit"
                    )
                rows.append(row)
                if limit is not None and len(rows) >= limit:
                    return rows
    return rows


def _file_rows(path: Path, name: str, field: str) -> Rows:
    """The rows of one file; ``name`` (what the caller named, never a server path it did not
    give) is used in errors. The suffix decides the format; for ``.json`` and unknown suffixes,
    the first character does (``[``: an array, else JSON Lines)."""
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        return _parquet_rows(path, name, field)
    if suffix == ".csv":
        return _csv_rows(path, name, field)
    if suffix in (".jsonl", ".ndjson"):
        return _json_lines(path, name, field, single_object_hint=False)
    first = _first_character(path, name, field)
    if first == "[":
        return _json_array(path, name, field)
    if first in ("{", "") or suffix == ".json":
        return _json_lines(path, name, field, single_object_hint=suffix == ".json")
    raise InvalidArgument(
        field, f"{name}: unknown format; use {_SUFFIX_LIST} (a .json file: an array or JSON Lines)"
    )


def _open_text(path: Path, name: str, field: str) -> IO[str]:
    try:
        return path.open(encoding="utf-8-sig", newline="")
    except OSError as exc:
        raise InvalidArgument(field, f"cannot read {name}: {exc.strerror}") from None


def _not_text(name: str, field: str) -> InvalidArgument:
    return InvalidArgument(field, f"{name} is not UTF-8 text")


def _first_character(path: Path, name: str, field: str) -> str:
    """The first character that is not white space ("" for an empty file)."""
    try:
        with _open_text(path, name, field) as text:
            while chunk := text.read(65536):
                if stripped := chunk.lstrip():
                    return stripped[0]
    except UnicodeDecodeError:
        raise _not_text(name, field) from None
    return ""


def _json_array(path: Path, name: str, field: str) -> Rows:
    try:
        with _open_text(path, name, field) as text:
            data = json.load(text)
    except UnicodeDecodeError:
        raise _not_text(name, field) from None
    except ValueError as exc:
        raise InvalidArgument(field, f"{name} is not valid JSON: {exc}") from None
    for index, item in enumerate(data):
        if not isinstance(item, dict):
            raise InvalidArgument(field, f"{name}: item {index} is not a JSON object")
        yield item


def _lines(path: Path, name: str, field: str) -> Generator[str]:
    """The file's lines, each decoded on its own so that bad UTF-8 is reported at its line."""
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise InvalidArgument(field, f"cannot read {name}: {exc.strerror}") from None
    with handle:
        for number, raw in enumerate(handle, start=1):
            try:
                yield (raw.removeprefix(codecs.BOM_UTF8) if number == 1 else raw).decode()
            except UnicodeDecodeError:
                raise InvalidArgument(field, f"{name} line {number} is not UTF-8 text") from None


def _json_lines(path: Path, name: str, field: str, *, single_object_hint: bool) -> Rows:
    with closing(_lines(path, name, field)) as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except ValueError as exc:
                if number == 1 and single_object_hint and _is_one_object(path):
                    raise InvalidArgument(
                        field,
                        f"{name} holds one JSON object; a dataset is an array of objects or "
                        "JSON Lines (one object per line)",
                    ) from None
                raise InvalidArgument(field, f"{name} line {number} is not JSON: {exc}") from None
            if not isinstance(item, dict):
                raise InvalidArgument(field, f"{name} line {number} is not a JSON object")
            yield item


def _is_one_object(path: Path) -> bool:
    """Whether the whole file is one JSON object (a common mistake, worth its own message)."""
    try:
        return isinstance(json.loads(path.read_text(encoding="utf-8-sig")), dict)
    except (OSError, ValueError):
        return False


def _csv_rows(path: Path, name: str, field: str) -> Rows:
    with closing(_lines(path, name, field)) as lines:
        reader = csv.DictReader(lines)
        try:
            for row in reader:
                if None in row:  # DictReader files the extra cells under the key None
                    raise InvalidArgument(
                        field, f"{name} line {reader.line_num} has more cells than the header"
                    )
                yield dict(row)
        except csv.Error as exc:
            raise InvalidArgument(
                field, f"{name} line {reader.line_num} is not valid CSV: {exc}"
            ) from None


def _parquet_rows(path: Path, name: str, field: str) -> Rows:
    try:  # optional dependency, looked up through sys.modules each time
        parquet: Any = importlib.import_module("pyarrow.parquet")
    except ImportError:
        raise FailedPrecondition(
            f"{field}: {name} is Parquet, which needs pyarrow on the server: pip install pyarrow "
            "(or give the dataset as JSON Lines, JSON or CSV)"
        ) from None
    try:
        with path.open("rb") as data:
            # Batch by batch, so a limit met early reads no more of the file.
            for batch in parquet.ParquetFile(data).iter_batches(batch_size=1024):
                yield from batch.to_pylist()
    except OSError as exc:
        raise InvalidArgument(field, f"cannot read {name}: {exc.strerror or exc}") from None
    except Exception as exc:  # pyarrow's ArrowInvalid and kin
        raise InvalidArgument(field, f"{name} cannot be read as Parquet: {exc}") from None
