"""The runs routes' own checks: admin keys only, methods, unknown paths."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import make_mocked_request
from evald.jobs.store import JobStore
from evald.ops.auth import Unauthenticated
from evald.runs.imports import ImportStore
from evald.runs.routes import RunsRoutes
from evald.runs.service import RunsService


class Principal:
    def __init__(self, role: str | None) -> None:
        if role is not None:
            self.role = role


async def no_body(request: web.BaseRequest) -> bytes:
    return b""


def routes(tmp_path: Path) -> RunsRoutes:
    service = RunsService(JobStore(tmp_path / "jobs.sqlite3", "me"), ImportStore(tmp_path / "r"))
    return RunsRoutes(service)


CASES = [
    # (method, path, role, status)
    ("GET", "/v1/evald/runs", None, 200),
    ("GET", "/v1/evald/runs", "admin", 200),
    ("GET", "/v1/evald/runs/", None, 200),
    ("HEAD", "/v1/evald/runs", None, 200),
    ("GET", "/v1/evald/runs", "annotator", 403),
    ("GET", "/v1/evald/runs/imp-1/rows", "annotator", 403),
    ("GET", "/v1/evald/runs/imp-1", None, 404),
    ("PATCH", "/v1/evald/runs", None, 405),
    ("GET", "/v1/evald/runs/a/b/c/d", None, 404),
    ("GET", "/v1/evald/runsx", None, 404),
]


@pytest.mark.parametrize(("method", "path", "role", "status"), CASES)
async def test_answers(
    tmp_path: Path, method: str, path: str, role: str | None, status: int
) -> None:
    def authenticate(name: str, metadata: list[tuple[str, str]]) -> object:
        assert name.startswith("/evald.runs/")
        return Principal(role)

    request = make_mocked_request(method, path)
    answer = await routes(tmp_path).answer(request, authenticate, [], no_body, 1000)
    assert isinstance(answer, web.Response)
    assert answer.status == status
    if status >= 400:
        assert json.loads(answer.body)["error"]["code"] == status  # type: ignore[arg-type]


async def test_a_refused_key_is_401(tmp_path: Path) -> None:
    def authenticate(name: str, metadata: list[tuple[str, str]]) -> object:
        raise Unauthenticated("this server requires an API key", "missing")

    request = make_mocked_request("GET", "/v1/evald/runs")
    answer = await routes(tmp_path).answer(request, authenticate, [], no_body, 1000)
    assert isinstance(answer, web.Response)
    assert answer.status == 401
