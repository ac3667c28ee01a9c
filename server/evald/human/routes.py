"""The human-evaluation JSON API on the HTTP gateway, under ``/v1/evald/human/``.

Who calls decides what they see. With authentication on, the caller is their API key: an
``admin`` key may do everything, an ``annotator`` key only the rating calls (method names under
:data:`evald.ops.auth.ANNOTATOR_PREFIX`, which the gateway's guard lets through) and only on
the tasks assigned to it: any other task answers 404, exactly as one that does not exist. With
authentication off everyone is an admin and a rater names themselves with a ``rater`` field
(query parameter or body field): unauthenticated, for trusted networks only.

State-changing requests are guarded against cross-site forgery by the gateway for every native
API (:mod:`evald.ui.csrf`): a JSON body, and no cross-site ``Origin``/``Sec-Fetch-Site``.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from evald.errors import EvalError, InvalidArgument, NotFound, PermissionDenied, internal_status
from evald.gateway import native
from evald.gateway.errors import error_body, http_status
from evald.human.service import (
    DEFAULT_PAGE_SIZE,
    MAX_PAGE_SIZE,
    RATER_NAME,
    HumanService,
    task_json,
)
from evald.human.store import StoredTask
from evald.ops.auth import ADMIN, ANNOTATOR_PREFIX, ANONYMOUS, Principal
from evald.ui.access import require_admin

PREFIX = "/v1/evald/human/"
ADMIN_PREFIX = "/evald.human.Admin/"

ReadBody = native.ReadBody
Authenticate = native.Authenticate


@dataclass
class Call:
    """One request: its path parameters, caller, and lazily read body."""

    request: web.BaseRequest
    params: dict[str, str]
    principal: Principal
    authenticated: bool
    read_body: ReadBody
    max_json_values: int

    async def body(self) -> Any:
        return await native.json_body(self.request, self.read_body, self.max_json_values)

    def query(self) -> dict[str, str]:
        return native.query(self.request)

    @property
    def admin(self) -> bool:
        return self.principal.role == ADMIN

    def rater(self, named: Any, required: bool = True) -> str | None:
        """Who rates: the key's name (auth on), else the ``rater`` field (auth off)."""
        if self.authenticated:
            if named not in (None, "", self.principal.name):
                raise PermissionDenied("rater: with API keys, a caller rates as its own key name")
            return self.principal.name
        if named in (None, ""):
            if required:
                raise InvalidArgument("rater", "name the rater (authentication is off)")
            return None
        if not isinstance(named, str) or not RATER_NAME.match(named):
            raise InvalidArgument("rater", "letters, digits and _.@- (at most 64)")
        return named


Handler = Callable[[Call], Awaitable[web.StreamResponse]]


def _json(value: Any, status: int = 200) -> web.Response:
    return web.Response(
        status=status,
        body=json.dumps(value, ensure_ascii=False).encode(),
        content_type="application/json",
    )


def _error(exc: EvalError | None) -> web.Response:
    status = internal_status() if exc is None else exc.to_status()
    return _json(error_body(status), http_status(status.code))


def _int(value: str | None, field: str, default: int, low: int, high: int) -> int:
    if value in (None, ""):
        return default
    try:
        number = int(value)
    except ValueError:
        raise InvalidArgument(field, "an integer") from None
    if not low <= number <= high:
        raise InvalidArgument(field, f"between {low} and {high}")
    return number


class HumanRoutes:
    """Serves the human-evaluation API with ``service``."""

    prefix = PREFIX

    def __init__(self, service: HumanService) -> None:
        self.service = service
        task = r"tasks/(?P<id>[^/]+)"
        row = task + r"/rows/(?P<row>\d{1,9})"
        rating, admin = ANNOTATOR_PREFIX, ADMIN_PREFIX
        self.table = native.RouteTable[Handler](
            PREFIX,
            [
                ("GET", r"my/tasks", rating + "ListMyTasks", self.my_tasks),
                ("GET", task, rating + "GetTask", self.get_task),
                ("GET", task + r"/queue", rating + "GetQueue", self.queue),
                ("GET", row, rating + "GetRow", self.get_row),
                ("PUT", row + r"/rating", rating + "Rate", self.rate),
                ("POST", r"tasks", admin + "CreateTask", self.create_task),
                ("GET", r"tasks", admin + "ListTasks", self.list_tasks),
                ("DELETE", task, admin + "DeleteTask", self.delete_task),
                ("GET", task + r"/report", admin + "GetReport", self.report),
                ("GET", task + r"/export", admin + "Export", self.export),
                ("GET", task + r"/ratings", admin + "ListRatings", self.ratings),
            ],
        )

    async def answer(
        self,
        request: web.BaseRequest,
        authenticate: Authenticate | None,
        metadata: list[tuple[str, str]],
        read_body: ReadBody,
        max_json_values: int,
    ) -> web.StreamResponse:
        """Answer one request under :data:`PREFIX`; never raises."""
        found = self.table.find(request.method, request.rel_url.raw_path)
        if isinstance(found, list):
            if not found:
                return _error(NotFound(f"no route for {request.method} {request.rel_url.raw_path}"))
            allow = ", ".join(found)
            message = f"{request.method} is not allowed here; use {allow}"
            response = _json(
                {"error": {"code": 405, "status": "UNIMPLEMENTED", "message": message}}, 405
            )
            response.headers["Allow"] = allow
            return response

        async def serve() -> web.StreamResponse:
            principal = ANONYMOUS
            if authenticate is not None:
                # Raises for a bad key, and for an annotator key on an admin method.
                called = authenticate(found.name, metadata)
                principal = called if isinstance(called, Principal) else ANONYMOUS
            if found.name.startswith(ADMIN_PREFIX):
                require_admin(principal)
            # ANONYMOUS: authentication is off (the guard answers it for every call then).
            authenticated = principal is not ANONYMOUS
            params = found.params
            call = Call(request, params, principal, authenticated, read_body, max_json_values)
            return await found.handler(call)

        return await native.guarded(
            serve(), _error, lambda: _error(None), f"{request.method} {found.name}"
        )

    # Rating calls (annotators and admins).

    async def _task(self, call: Call) -> StoredTask:
        """The task of the path, as the caller may see it (annotators: assigned ones)."""
        rater = None if call.admin else call.principal.name
        return await self.service.task(call.params["id"], rater)

    async def my_tasks(self, call: Call) -> web.StreamResponse:
        rater = call.rater(call.query().get("rater"))
        assert rater is not None
        return _json({"tasks": await self.service.my_tasks(rater)})

    async def get_task(self, call: Call) -> web.StreamResponse:
        found = task_json(await self._task(call))
        if (
            not call.admin
        ):  # where the rows came from (a server path, a run) is the admins' business
            found.pop("source", None)
        return _json(found)

    async def queue(self, call: Call) -> web.StreamResponse:
        task = await self._task(call)
        rater = call.rater(call.query().get("rater"))
        assert rater is not None
        return _json(await self.service.queue(task, self._rater_of(task, rater)))

    async def get_row(self, call: Call) -> web.StreamResponse:
        task = await self._task(call)
        rater = call.rater(call.query().get("rater"), required=False)
        if call.admin and rater not in task.spec["raters"]:
            rater = None  # an admin who is not a rater sees any row, without ratings
        index = int(call.params["row"])
        return _json(await self.service.row(task, index, rater))

    async def rate(self, call: Call) -> web.StreamResponse:
        task = await self._task(call)
        body = await call.body()
        rater = call.rater(body.get("rater") if isinstance(body, dict) else None)
        assert rater is not None
        index = int(call.params["row"])
        return _json(await self.service.rate(task, index, self._rater_of(task, rater), body))

    @staticmethod
    def _rater_of(task: StoredTask, rater: str) -> str:
        if rater not in task.spec["raters"]:
            raise PermissionDenied(f"rater: {rater!r} is not a rater of task {task.id!r}")
        return rater

    # Admin calls.

    async def create_task(self, call: Call) -> web.StreamResponse:
        return _json(await self.service.create_task(await call.body(), call.principal.name), 201)

    async def list_tasks(self, call: Call) -> web.StreamResponse:
        return _json({"tasks": await self.service.list_tasks()})

    async def delete_task(self, call: Call) -> web.StreamResponse:
        await self.service.delete(call.params["id"])
        return web.Response(status=204)

    async def report(self, call: Call) -> web.StreamResponse:
        query = call.query()
        task = await self._task(call)
        return _json(
            await self.service.report(task, query.get("run") or None, query.get("metric") or None)
        )

    async def export(self, call: Call) -> web.StreamResponse:
        task = await self._task(call)
        response = web.Response(
            body=await self.service.export(task), content_type="application/x-ndjson"
        )
        response.headers["Content-Disposition"] = f'attachment; filename="{task.id}-ratings.jsonl"'
        return response

    async def ratings(self, call: Call) -> web.StreamResponse:
        query = call.query()
        task = await self._task(call)
        size = _int(query.get("page_size"), "page_size", DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE)
        offset = _int(query.get("page_token"), "page_token", 0, 0, 10**9)
        row = query.get("row")
        index = None if row in (None, "") else _int(row, "row", 0, 0, 10**9)
        rater = query.get("rater") or None
        return _json(await self.service.ratings(task, rater, index, size, offset))
