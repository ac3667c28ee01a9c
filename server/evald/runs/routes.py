"""The runs API on the HTTP gateway (admin keys only), under ``/v1/evald/runs``:

=======  ==============================================  ======================================
GET      /v1/evald/runs?offset=&limit=                   runs, newest first
POST     /v1/evald/runs                                  import (JSON or multipart)
GET      /v1/evald/runs/{id}                             summary, histograms, categories, errors
DELETE   /v1/evald/runs/{id}                             forget an imported run
GET      /v1/evald/runs/{id}/rows?...                    rows, filtered, sorted, paged
GET      /v1/evald/runs/{id}/rows/{index}                one row in full
GET      /v1/evald/runs/{a}/compare/{b}                  b against a
=======  ==============================================  ======================================

Errors are Google's ``{"error": {"code", "message", "status"}}`` shape, as on the Vertex routes.
"""

from __future__ import annotations

import asyncio
import email.parser
import email.policy
import json
import math
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from evald.errors import EvalError, InvalidArgument, NotFound, Unimplemented
from evald.gateway import native
from evald.gateway.errors import error_body
from evald.jobs.outputs import AGGREGATION_FILE, RESULTS_FILE
from evald.runs import imports
from evald.runs.service import SORTS, RowQuery, RunsService
from evald.ui.access import require_admin

PREFIX = "/v1/evald/runs"
MAX_LIMIT = 500
DEFAULT_LIMIT = 50

ReadBody = native.ReadBody
Authenticate = native.Authenticate
Handler = Callable[["RunsRoutes", web.BaseRequest, dict[str, str], ReadBody], Awaitable[Any]]

_ID = r"(?P<id>[A-Za-z0-9_-]+)"


class RunsRoutes:
    """Serves the runs API with ``service``."""

    prefix = PREFIX

    def __init__(self, service: RunsService) -> None:
        self.service = service
        routes: list[tuple[str, str, str, Handler]] = [
            ("GET", r"", "ListRuns", RunsRoutes.list_runs),
            ("POST", r"", "ImportRun", RunsRoutes.import_run),
            ("GET", rf"/{_ID}", "GetRun", RunsRoutes.get_run),
            ("DELETE", rf"/{_ID}", "DeleteRun", RunsRoutes.delete_run),
            ("GET", rf"/{_ID}/rows", "ListRows", RunsRoutes.list_rows),
            ("GET", rf"/{_ID}/rows/(?P<index>[0-9]{{1,9}})", "GetRow", RunsRoutes.get_row),
            ("GET", rf"/{_ID}/compare/(?P<b>[A-Za-z0-9_-]+)", "CompareRuns", RunsRoutes.compare),
        ]
        named = [(method, path, f"/evald.runs/{name}", h) for method, path, name, h in routes]
        self.table = native.RouteTable(PREFIX, named, head_as_get=True)

    async def answer(
        self,
        request: web.BaseRequest,
        authenticate: Authenticate | None,
        metadata: list[tuple[str, str]],
        read_body: ReadBody,
        max_json_values: int,
    ) -> web.StreamResponse:
        """Answer one request under :data:`PREFIX`; never raises."""
        path = request.rel_url.raw_path
        found = self.table.find(request.method, path)
        if isinstance(found, list):
            if not found:
                return _error(NotFound(f"no route for {request.method} {path}"))
            response = _error(Unimplemented(f"{request.method} is not allowed on {path}"), 405)
            response.headers["Allow"] = ", ".join(found)
            return response

        async def serve() -> web.StreamResponse:
            principal = authenticate(found.name, metadata) if authenticate is not None else None
            require_admin(principal)
            answer = await found.handler(self, request, found.params, read_body)
            if answer is None:
                return web.Response(status=204)
            return _json(answer, 201 if found.method == "POST" else 200)

        return await native.guarded(
            serve(),
            _error,
            lambda: _error(EvalError("internal error")),
            f"{request.method} {found.name}",
        )

    # Handlers.

    async def list_runs(
        self, request: web.BaseRequest, params: dict[str, str], read_body: ReadBody
    ) -> Any:
        query = native.query(request)
        offset, limit = _paging(query)
        runs, total = await self.service.list(offset, limit)
        return {
            "runs": [run.to_json() for run in runs],
            "total": total,
            "offset": offset,
            "limit": limit,
        }

    async def get_run(
        self, request: web.BaseRequest, params: dict[str, str], read_body: ReadBody
    ) -> Any:
        return await self.service.run(params["id"])

    async def delete_run(
        self, request: web.BaseRequest, params: dict[str, str], read_body: ReadBody
    ) -> Any:
        await self.service.delete(params["id"])
        return None

    async def list_rows(
        self, request: web.BaseRequest, params: dict[str, str], read_body: ReadBody
    ) -> Any:
        return await self.service.rows(params["id"], row_query(native.query(request)))

    async def get_row(
        self, request: web.BaseRequest, params: dict[str, str], read_body: ReadBody
    ) -> Any:
        return await self.service.row(params["id"], int(params["index"]))

    async def compare(
        self, request: web.BaseRequest, params: dict[str, str], read_body: ReadBody
    ) -> Any:
        return await self.service.compare(params["id"], params["b"])

    async def import_run(
        self, request: web.BaseRequest, params: dict[str, str], read_body: ReadBody
    ) -> Any:
        raw = await read_body(request)
        if len(raw) > 2 * imports.MAX_IMPORT_BYTES:
            raise InvalidArgument("", f"an import is at most {imports.MAX_IMPORT_BYTES} bytes")
        content_type = request.headers.get("Content-Type", "")
        if content_type.lower().startswith("multipart/form-data"):
            fields = await asyncio.to_thread(_multipart, content_type, raw)
        else:
            fields = await asyncio.to_thread(_json_fields, raw)
        results = fields.get("results")
        if results is None:
            raise InvalidArgument("results", f"give the text of {RESULTS_FILE}")
        run = await self.service.import_run(
            fields.get("name") or "", results, fields.get("aggregation")
        )
        return run.to_json()


def row_query(query: dict[str, str]) -> RowQuery:
    """The :class:`RowQuery` of a rows request's query string; InvalidArgument naming the
    parameter when one is malformed."""
    offset, limit = _paging(query)
    found = RowQuery(offset=offset, limit=limit, text=query.get("q", "")[:500])
    has_error = query.get("has_error", "")
    if has_error:
        if has_error not in ("true", "false"):
            raise InvalidArgument("has_error", "true or false")
        found.has_error = has_error == "true"
    found.metric = query.get("metric") or None
    for name in ("min", "max"):
        if query.get(name, "") != "":
            try:
                value = float(query[name])
            except ValueError:
                raise InvalidArgument(name, "a number") from None
            if not math.isfinite(value):
                raise InvalidArgument(name, "a finite number")
            setattr(found, name, value)
    if (found.min is not None or found.max is not None) and found.metric is None:
        raise InvalidArgument("metric", "name the metric that min and max apply to")
    sort = query.get("sort", "row")
    found.descending = sort.startswith("-")
    found.sort = sort.removeprefix("-")
    if found.sort not in SORTS:
        raise InvalidArgument("sort", f"one of {', '.join(SORTS)} (prefix - for descending)")
    if found.sort == "metric" and found.metric is None:
        raise InvalidArgument("metric", "name the metric to sort by")
    return found


def _paging(query: dict[str, str]) -> tuple[int, int]:
    try:
        offset = int(query.get("offset", "0"))
    except ValueError:
        raise InvalidArgument("offset", "an integer") from None
    try:
        limit = int(query.get("limit", str(DEFAULT_LIMIT)))
    except ValueError:
        raise InvalidArgument("limit", "an integer") from None
    if offset < 0:
        raise InvalidArgument("offset", "0 or more")
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidArgument("limit", f"between 1 and {MAX_LIMIT}")
    return offset, limit


def _json_fields(raw: bytes) -> dict[str, str | None]:
    """``{"name", "results", "aggregation"}`` of a JSON import body: ``results`` the text of
    results.jsonl, ``aggregation`` the text (or the object) of aggregation.json."""
    try:
        body = json.loads(raw or b"null")
    except ValueError as exc:
        raise InvalidArgument("", f"the request body is not JSON: {exc}") from None
    if not isinstance(body, dict):
        raise InvalidArgument("", "the request body must be a JSON object")
    fields: dict[str, str | None] = {}
    for name in ("name", "results", "aggregation"):
        value = body.get(name)
        if value is None:
            continue
        if name == "aggregation" and isinstance(value, dict):
            value = json.dumps(value)
        if not isinstance(value, str):
            raise InvalidArgument(name, "must be a string")
        fields[name] = value
    return fields


MULTIPART_FIELDS = {"name": "name", "results": "results", "aggregation": "aggregation"}
"""Form fields of a multipart import; files are also recognised by their file names."""
FILE_FIELDS = {RESULTS_FILE: "results", AGGREGATION_FILE: "aggregation"}


def _multipart(content_type: str, raw: bytes) -> dict[str, str | None]:
    """The fields of a ``multipart/form-data`` import body: ``name``, and the two files (by
    field name, or by the file names results.jsonl and aggregation.json)."""
    head = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode()
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + raw)
    if not message.is_multipart():
        raise InvalidArgument("", "the multipart body has no parts")
    fields: dict[str, str | None] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        filename = part.get_filename()
        field = FILE_FIELDS.get(str(filename).rsplit("/", 1)[-1]) if filename else None
        field = field or MULTIPART_FIELDS.get(str(name))
        if field is None:
            continue  # report.html and the like: not needed
        payload = part.get_payload(decode=True)
        if not isinstance(payload, bytes):
            continue
        try:
            fields[field] = payload.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidArgument(field, "is not UTF-8 text") from None
    return fields


def _json(value: Any, status: int = 200) -> web.Response:
    return web.Response(
        status=status,
        body=json.dumps(value, ensure_ascii=False, allow_nan=False).encode(),
        content_type="application/json",
    )


def _error(exc: EvalError, http: int | None = None) -> web.Response:
    body = error_body(exc.to_status(), http)
    return web.Response(
        status=body["error"]["code"],
        body=json.dumps(body, ensure_ascii=False).encode(),
        content_type="application/json",
    )
