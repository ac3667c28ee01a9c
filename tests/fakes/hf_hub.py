"""A local fake Hugging Face Hub data store on 127.0.0.1 (port 0), serving dataset repos from
memory, just enough of the Hub API for ``huggingface_hub`` to list and download their files.

NeMo Data Store speaks this API under a prefix (``http://datastore:3000/v1/hf``); set
:attr:`FakeHub.prefix` to serve under one. Routes (``{repo}`` is ``<namespace>/<name>``):

- ``GET /api/datasets/{repo}`` and ``GET /api/datasets/{repo}/revision/{rev}``: the repo's info
  (``id``, ``sha``, ``siblings``), what ``HfApi.dataset_info``/``repo_info`` and
  ``snapshot_download`` read first.
- ``GET /api/datasets/{repo}/tree/{rev}[/{folder}]``: the file listing ``list_repo_files`` and
  ``list_repo_tree`` read (``?recursive=true`` for every file below).
- ``HEAD``/``GET /datasets/{repo}/resolve/{rev}/{path}``: one file; the HEAD answer carries the
  ``X-Repo-Commit``, ``ETag`` and ``Content-Length`` headers ``hf_hub_download`` needs.

A revision is ``main`` or the repo's commit sha; anything else answers 404 ``RevisionNotFound``.
Errors carry the ``X-Error-Code`` header the Hub sends (``RepoNotFound``, ``EntryNotFound``), so
``huggingface_hub`` raises the same exceptions it would against the real Hub.

With :attr:`FakeHub.token` set every request needs ``Authorization: Bearer <token>`` (401
otherwise); :attr:`FakeHub.fail_status` makes every request answer that status. Every request is
recorded in :attr:`FakeHub.requests`.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

MAIN = "main"


@dataclass(frozen=True)
class HubRequest:
    """One request the fake received."""

    method: str
    path: str  # without the prefix
    query: dict[str, str]
    headers: dict[str, str]  # lower-case names

    @property
    def authorization(self) -> str:
        """The ``Authorization`` header ("" when none was sent)."""
        return self.headers.get("authorization", "")


@dataclass
class FakeHub:
    """The fake data store's state; start it with :func:`running`."""

    repos: dict[str, dict[str, bytes]] = field(default_factory=dict)
    """Dataset repos by ``<namespace>/<name>``: file path in the repo to its content."""
    token: str | None = None
    """The token every request must carry; None: no authentication."""
    prefix: str = ""
    """Where the Hub API is mounted, e.g. ``/v1/hf`` as on NeMo Data Store."""
    siblings: bool = True
    """Whether the repo info lists the files (``siblings``), as the Hub does."""
    fail_status: int | None = None
    """Answer every request with this HTTP status (a data store in trouble)."""
    requests: list[HubRequest] = field(default_factory=list)
    url: str = ""
    """``http://127.0.0.1:<port>`` once running."""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def endpoint(self) -> str:
        """The URL to give ``huggingface_hub`` as its endpoint (with the prefix)."""
        return self.url + self.prefix

    def add(self, repo_id: str, files: dict[str, bytes | str]) -> None:
        """Create (or replace) a dataset repo holding ``files``."""
        self.repos[repo_id] = {
            path: data.encode() if isinstance(data, str) else data for path, data in files.items()
        }

    def commit(self, repo_id: str) -> str:
        """The repo's commit sha: a hash of its content, so it changes when the files do."""
        digest = hashlib.sha1(repo_id.encode())
        for path, data in sorted(self.repos[repo_id].items()):
            digest.update(path.encode() + b"\0" + hashlib.sha1(data).digest())
        return digest.hexdigest()

    def paths(self) -> list[str]:
        """The paths requested so far, in order (without the prefix)."""
        with self._lock:
            return [r.path for r in self.requests]

    def reset(self) -> None:
        """Forget the recorded requests."""
        with self._lock:
            self.requests.clear()

    def _record(self, request: web.Request, path: str) -> None:
        headers = {k.lower(): v for k, v in request.headers.items()}
        with self._lock:
            self.requests.append(HubRequest(request.method, path, dict(request.query), headers))


def _error(status: int, message: str, code: str = "") -> web.Response:
    headers = {"X-Error-Code": code, "X-Error-Message": message} if code else {}
    return web.json_response({"error": message}, status=status, headers=headers)


def _etag(data: bytes) -> str:
    # The Hub's ETag of a regular (non-LFS) file is its git blob id.
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _tree(files: dict[str, bytes], folder: str, recursive: bool) -> list[dict[str, Any]]:
    under = f"{folder}/" if folder else ""
    entries: dict[str, dict[str, Any]] = {}
    for path, data in sorted(files.items()):
        if not path.startswith(under):
            continue
        rest = path[len(under) :]
        if recursive or "/" not in rest:
            entries[path] = {"type": "file", "oid": _etag(data), "size": len(data), "path": path}
        else:
            child = under + rest.split("/", 1)[0]
            entries.setdefault(child, {"type": "directory", "oid": "0" * 40, "path": child})
        if recursive:  # the Hub lists the folders too
            parts = rest.split("/")[:-1]
            for i in range(1, len(parts) + 1):
                child = under + "/".join(parts[:i])
                entries.setdefault(child, {"type": "directory", "oid": "0" * 40, "path": child})
    return list(entries.values())


def _app(state: FakeHub) -> web.Application:
    async def handle(request: web.Request) -> web.StreamResponse:
        path = request.path
        if not path.startswith(state.prefix + "/"):
            return _error(404, f"no route {path}")
        path = path[len(state.prefix) :]
        state._record(request, path)
        if state.fail_status is not None:
            return _error(state.fail_status, "scripted failure")
        if state.token is not None and request.headers.get("Authorization") != (
            f"Bearer {state.token}"
        ):
            return _error(401, "Invalid username or password.")
        parts = path.strip("/").split("/")
        if parts[:2] == ["api", "datasets"] and len(parts) >= 4:
            return _api(state, request, parts[2:])
        if parts[0] == "datasets" and len(parts) >= 6 and parts[3] == "resolve":
            return _resolve(state, request, f"{parts[1]}/{parts[2]}", parts[4], parts[5:])
        return _error(404, f"no route {path}")

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handle)
    return app


def _repo(state: FakeHub, repo_id: str, revision: str) -> dict[str, bytes] | web.Response:
    files = state.repos.get(repo_id)
    if files is None:
        return _error(404, f"Repository {repo_id} not found", "RepoNotFound")
    if revision not in (MAIN, state.commit(repo_id)):
        return _error(404, f"Revision {revision} not found", "RevisionNotFound")
    return files


def _api(state: FakeHub, request: web.Request, parts: list[str]) -> web.Response:
    repo_id = f"{parts[0]}/{parts[1]}"
    rest = parts[2:]
    if request.method != "GET":
        return _error(405, "method not allowed")
    if not rest or (rest[0] == "revision" and len(rest) == 2):
        files = _repo(state, repo_id, rest[1] if rest else MAIN)
        if isinstance(files, web.Response):
            return files
        info: dict[str, Any] = {"id": repo_id, "sha": state.commit(repo_id), "private": True}
        if state.siblings:
            info["siblings"] = [{"rfilename": p} for p in sorted(files)]
        return web.json_response(info)
    if rest[0] == "tree" and len(rest) >= 2:
        files = _repo(state, repo_id, rest[1])
        if isinstance(files, web.Response):
            return files
        recursive = request.query.get("recursive", "").lower() == "true"
        return web.json_response(_tree(files, "/".join(rest[2:]), recursive))
    return _error(404, f"no route {request.path}")


def _resolve(
    state: FakeHub, request: web.Request, repo_id: str, revision: str, path: list[str]
) -> web.Response:
    files = _repo(state, repo_id, revision)
    if isinstance(files, web.Response):
        return files
    name = "/".join(path)
    data = files.get(name)
    headers = {"X-Repo-Commit": state.commit(repo_id)}
    if data is None:
        return web.json_response(
            {"error": f"Entry {name} not found"},
            status=404,
            headers={**headers, "X-Error-Code": "EntryNotFound"},
        )
    headers["ETag"] = f'"{_etag(data)}"'
    headers["Content-Type"] = "application/octet-stream"
    if request.method == "HEAD":
        # aiohttp leaves a HEAD answer's Content-Length as set: the size of the file not sent.
        headers["Content-Length"] = str(len(data))
        return web.Response(status=200, headers=headers)
    if request.method != "GET":
        return _error(405, "method not allowed")
    return web.Response(body=data, headers=headers)


@contextmanager
def running(state: FakeHub | None = None) -> Iterator[FakeHub]:
    """Serve ``state`` (a new :class:`FakeHub` by default) on 127.0.0.1, port 0, from a thread
    of its own (the code under test blocks)."""
    state = state or FakeHub()
    loop = asyncio.new_event_loop()
    runner = web.AppRunner(_app(state), access_log=None)
    loop.run_until_complete(runner.setup())
    site = web.TCPSite(runner, "127.0.0.1", 0)
    loop.run_until_complete(site.start())
    port = runner.addresses[0][1]
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{port}"
    try:
        yield state
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


def json_lines(rows: list[dict[str, Any]]) -> bytes:
    """``rows`` as JSON Lines bytes, the usual content of a dataset file."""
    return "".join(json.dumps(row) + "\n" for row in rows).encode()
