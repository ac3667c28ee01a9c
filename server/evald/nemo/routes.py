"""NeMo Evaluator's REST API on the HTTP gateway: ``/v1/evaluation/...`` at NeMo's paths, in
its JSON shapes, as NVIDIA's ``nemo-microservices`` client calls them.

Errors are FastAPI's shapes (:mod:`evald.nemo.errors`); keys are checked from the headers
before a body is read, as for the Vertex routes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from evald.errors import EvalError, InvalidArgument
from evald.gateway import native
from evald.nemo import errors
from evald.nemo.service import NemoService, redacted

PREFIX = "/v1/evaluation/"
DEFAULT_PAGE_SIZE = 10
MAX_PAGE_SIZE = 1000

ReadBody = native.ReadBody
Authenticate = native.Authenticate
Handler = Callable[["Call"], Awaitable[web.StreamResponse]]


@dataclass
class Call:
    """One request: its path parameters, query and (lazily read) body."""

    request: web.BaseRequest
    params: dict[str, str]
    read_body: ReadBody
    max_json_values: int

    async def body(self) -> Any:
        return await native.json_body(self.request, self.read_body, self.max_json_values)

    def query(self) -> dict[str, str]:
        return native.query(self.request)


def _json(value: Any, status: int = 200) -> web.Response:
    return web.Response(
        status=status,
        body=json.dumps(value, ensure_ascii=False).encode(),
        content_type="application/json",
    )


def _json_error(status: int, body: bytes) -> web.Response:
    return web.Response(status=status, body=body, content_type="application/json")


def _refusal(exc: EvalError) -> web.Response:
    return _json_error(*errors.answer(exc))


class NemoRoutes:
    """Serves NeMo Evaluator's API paths with ``service``."""

    prefix = PREFIX

    def __init__(self, service: NemoService) -> None:
        self.service = service
        kinds = "(?P<kind>configs|targets)"
        routes: list[tuple[str, str, str, Handler]] = [
            ("POST", r"live", "Live", self.live),
            ("POST", r"jobs", "CreateJob", self.create_job),
            ("GET", r"jobs", "ListJobs", self.list_jobs),
            ("GET", r"jobs/(?P<id>[^/]+)", "GetJob", self.get_job),
            ("DELETE", r"jobs/(?P<id>[^/]+)", "DeleteJob", self.delete_job),
            ("GET", r"jobs/(?P<id>[^/]+)/status", "GetJobStatus", self.job_status),
            ("GET", r"jobs/(?P<id>[^/]+)/results", "GetJobResults", self.job_results),
            ("GET", r"jobs/(?P<id>[^/]+)/download-results", "DownloadResults", self.download),
            ("GET", r"jobs/(?P<id>[^/]+)/logs", "GetJobLogs", self.logs),
            ("POST", r"jobs/(?P<id>[^/]+)/cancel", "CancelJob", self.cancel),
            ("POST", kinds, "CreateEntity", self.create_entity),
            ("GET", kinds, "ListEntities", self.list_entities),
            ("GET", kinds + r"/(?P<ns>[^/]+)/(?P<name>[^/]+)", "GetEntity", self.get_entity),
            ("PATCH", kinds + r"/(?P<ns>[^/]+)/(?P<name>[^/]+)", "UpdateEntity", self.update),
            ("DELETE", kinds + r"/(?P<ns>[^/]+)/(?P<name>[^/]+)", "DeleteEntity", self.delete),
            ("GET", r"results", "ListResults", self.list_results),
            ("GET", r"results/(?P<id>[^/]+)", "GetResult", self.get_result),
            ("DELETE", r"results/(?P<id>[^/]+)", "DeleteResult", self.delete_result),
        ]
        named = [(method, path, f"/nemo.evaluation/{name}", h) for method, path, name, h in routes]
        self.table = native.RouteTable(PREFIX, named)

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
                return _json_error(404, errors.body("Not Found"))
            response = _json_error(405, errors.body("Method Not Allowed"))
            response.headers["Allow"] = ", ".join(found)
            return response

        async def serve() -> web.StreamResponse:
            if authenticate is not None:
                authenticate(found.name, metadata)
            return await found.handler(Call(request, found.params, read_body, max_json_values))

        return await native.guarded(
            serve(),
            _refusal,
            lambda: _json_error(500, errors.body("internal error")),
            f"{request.method} {found.name}",
        )

    # Handlers.

    async def live(self, call: Call) -> web.StreamResponse:
        return _json(await self.service.live(await call.body()))

    async def create_job(self, call: Call) -> web.StreamResponse:
        return _json(await self.service.create_job(await call.body()))

    async def list_jobs(self, call: Call) -> web.StreamResponse:
        query = call.query()
        items = await self.service.list_jobs(_filters(query))
        return _json(_page(items, query))

    async def get_job(self, call: Call) -> web.StreamResponse:
        return _json(self.service.job_json(await self.service.job(call.params["id"])))

    async def delete_job(self, call: Call) -> web.StreamResponse:
        await self.service.delete(call.params["id"])
        return web.Response(status=204)

    async def job_status(self, call: Call) -> web.StreamResponse:
        job = await self.service.job(call.params["id"])
        return _json(self.service.status_details(job))

    async def job_results(self, call: Call) -> web.StreamResponse:
        return _json(await self.service.results(call.params["id"]))

    async def download(self, call: Call) -> web.StreamResponse:
        data = await self.service.download(call.params["id"])
        response = web.Response(body=data, content_type="application/zip")
        response.headers["Content-Disposition"] = (
            f'attachment; filename="{call.params["id"]}-results.zip"'
        )
        return response

    async def logs(self, call: Call) -> web.StreamResponse:
        return _json(await self.service.logs(call.params["id"]))

    async def cancel(self, call: Call) -> web.StreamResponse:
        return _json(await self.service.cancel(call.params["id"]))

    async def create_entity(self, call: Call) -> web.StreamResponse:
        kind = _kind(call)
        return _json(await self.service.create_entity(kind, await call.body()))

    async def list_entities(self, call: Call) -> web.StreamResponse:
        return await self._list(_kind(call), call)

    async def get_entity(self, call: Call) -> web.StreamResponse:
        p = call.params
        found = await self.service.entities.get(_kind(call), p["ns"], p["name"])
        return _json(redacted(found))

    async def update(self, call: Call) -> web.StreamResponse:
        p = call.params
        body = await call.body()
        return _json(await self.service.update_entity(_kind(call), p["ns"], p["name"], body))

    async def delete(self, call: Call) -> web.StreamResponse:
        p = call.params
        return _json(await self.service.entities.delete(_kind(call), p["ns"], p["name"]))

    async def list_results(self, call: Call) -> web.StreamResponse:
        return await self._list("result", call)

    async def get_result(self, call: Call) -> web.StreamResponse:
        return _json(await self.service.entities.by_id("result", call.params["id"]))

    async def delete_result(self, call: Call) -> web.StreamResponse:
        return _json(await self.service.entities.delete_id("result", call.params["id"]))

    async def _list(self, kind: str, call: Call) -> web.StreamResponse:
        query = call.query()
        page, size = _paging(query)
        newest_first = query.get("sort", "-created_at") != "created_at"
        found = await self.service.entities.list(
            kind, _filters(query), newest_first=newest_first, offset=(page - 1) * size, limit=size
        )
        return _json(_listing(redacted(found.items), found.total, page, size, query))


def _kind(call: Call) -> str:
    return "config" if call.params["kind"] == "configs" else "target"


def _filters(query: Mapping[str, str]) -> dict[str, str]:
    """``filter[namespace]=x`` and the like, as the official client sends them."""
    found = {}
    for key, value in query.items():
        match = re.fullmatch(r"filter\[(\w+)\]", key)
        if match:
            found[match.group(1)] = value
    return found


def _paging(query: Mapping[str, str]) -> tuple[int, int]:
    try:
        page = int(query.get("page", "1"))
        size = int(query.get("page_size", str(DEFAULT_PAGE_SIZE)))
    except ValueError:
        raise InvalidArgument("page", "page and page_size are integers") from None
    if page < 1:
        raise InvalidArgument("page", "pages count from 1")
    if not 1 <= size <= MAX_PAGE_SIZE:
        raise InvalidArgument("page_size", f"between 1 and {MAX_PAGE_SIZE}")
    return page, size


def _page(items: list[dict[str, Any]], query: Mapping[str, str]) -> dict[str, Any]:
    page, size = _paging(query)
    if query.get("sort", "-created_at") == "created_at":
        items = list(reversed(items))
    chunk = items[(page - 1) * size : page * size]
    return _listing(chunk, len(items), page, size, query)


def _listing(
    items: list[Any], total: int, page: int, size: int, query: Mapping[str, str]
) -> dict[str, Any]:
    return {
        "object": "list",
        "data": items,
        "pagination": {
            "page": page,
            "page_size": size,
            "current_page_size": len(items),
            "total_pages": (total + size - 1) // size,
            "total_results": total,
        },
        "sort": query.get("sort", "-created_at"),
        "filter": _filters(query),
    }
