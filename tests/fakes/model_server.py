"""A local scripted model endpoint on 127.0.0.1 (port 0): the model under test of target tests.

Wire protocols:

- OpenAI completions: ``POST /v1/completions`` (any prefix ending in ``/completions``).
- OpenAI chat completions: ``POST /v1/chat/completions`` (any prefix).
- Gemini: ``POST /{version}/models/{model}:generateContent``.

What the model answers is a function of the request (:attr:`FakeModel.reply`); :attr:`delay`
holds every answer back; :meth:`FakeModel.fail` makes the next calls (of one path, or any)
fail with an HTTP status. Every request is recorded in :attr:`FakeModel.requests`.
Serve it with ``async with running()`` in async tests, or ``with running_in_thread()`` (its own
event loop in a thread) for tests driving synchronous clients.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

GEMINI_PATH = re.compile(r"^/[^/]+/(?:.*/)?models/(?P<model>[^/:]+):generateContent$")


@dataclass(frozen=True)
class ToolCall:
    """A function call the model makes."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Reply:
    """What the model answers: text and tool calls, or ``raw`` bytes as the whole body."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    status: int = 200
    raw: bytes | None = None


@dataclass(frozen=True)
class ModelRequest:
    """One request the fake received."""

    path: str
    kind: str
    """``completion`` or ``chat`` (Gemini requests are ``chat``)."""
    protocol: str
    """``openai`` or ``gemini``."""
    model: str
    body: dict[str, Any]
    headers: dict[str, str]
    prompt: str | None = None
    messages: tuple[dict[str, Any], ...] = ()
    """OpenAI chat messages; for Gemini built from its contents (role ``assistant`` for
    ``model``, ``system`` from the system instruction), text parts only."""


def echo(request: ModelRequest) -> Reply:
    """The default model: echoes the prompt, or the last message's text."""
    if request.prompt is not None:
        return Reply(text=f"echo: {request.prompt}")
    last = request.messages[-1] if request.messages else {}
    return Reply(text=f"echo: {_text(last.get('content'))}")


@dataclass
class _Fault:
    remaining: int
    status: int
    path: str | None


@dataclass
class FakeModel:
    """The fake endpoint's state."""

    reply: Callable[[ModelRequest], Reply | str] = echo
    """The answer to a request (a bare string is a text answer)."""
    delay: float = 0.0
    """Seconds every answer is held back."""
    requests: list[ModelRequest] = field(default_factory=list)
    calls: int = 0
    in_flight: int = 0
    max_in_flight: int = 0
    """The most requests the fake was answering at once."""
    cancelled: int = 0
    """Requests whose client went away before the answer."""
    url: str = ""
    _faults: list[_Fault] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def fail(self, times: int, status: int = 503, path: str | None = None) -> None:
        """Fail the next ``times`` calls (to ``path`` only, when given) with ``status``."""
        with self._lock:
            self._faults.append(_Fault(times, status, path))

    def _fault(self, path: str) -> int | None:
        with self._lock:
            for fault in self._faults:
                if fault.remaining > 0 and fault.path in (None, path):
                    fault.remaining -= 1
                    return fault.status
        return None

    async def _handle(self, http: web.Request) -> web.StreamResponse:
        path = http.path
        try:
            body = await http.json()
        except ValueError:
            body = {}
        request = _parse(path, body, {k.lower(): v for k, v in http.headers.items()})
        if request is None:
            return web.json_response({"error": {"message": f"no route {path}"}}, status=404)
        with self._lock:
            self.requests.append(request)
            self.calls += 1
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.delay:
                await asyncio.sleep(self.delay)
            status = self._fault(path)
            if status is not None:
                error = {"code": status, "message": "scripted failure", "status": "UNAVAILABLE"}
                return web.json_response({"error": error}, status=status)
            reply = self.reply(request)
            reply = Reply(text=reply) if isinstance(reply, str) else reply
            if reply.raw is not None:
                return web.Response(body=reply.raw, status=reply.status)
            if reply.status != 200:
                error = {"code": reply.status, "message": reply.text or "scripted failure"}
                return web.json_response({"error": error}, status=reply.status)
            return web.json_response(_answer(request, reply))
        except asyncio.CancelledError:
            with self._lock:
                self.cancelled += 1
            raise
        finally:
            with self._lock:
                self.in_flight -= 1


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content or "")


def _parse(path: str, body: Any, headers: dict[str, str]) -> ModelRequest | None:
    body = body if isinstance(body, dict) else {}
    if match := GEMINI_PATH.match(path):
        messages: list[dict[str, Any]] = []
        system = body.get("systemInstruction") or body.get("system_instruction")
        if system:
            messages.append({"role": "system", "content": _gemini_text(system)})
        for content in body.get("contents", []):
            role = "assistant" if content.get("role") == "model" else "user"
            messages.append({"role": role, "content": _gemini_text(content)})
        return ModelRequest(
            path, "chat", "gemini", match["model"], body, headers, messages=tuple(messages)
        )
    model = str(body.get("model", ""))
    if path.endswith("/chat/completions"):
        messages = list(body.get("messages", []))
        return ModelRequest(path, "chat", "openai", model, body, headers, messages=tuple(messages))
    if path.endswith("/completions"):
        prompt = body.get("prompt")
        return ModelRequest(path, "completion", "openai", model, body, headers, prompt=str(prompt))
    return None


def _gemini_text(content: dict[str, Any]) -> str:
    return "".join(str(p.get("text", "")) for p in content.get("parts", []))


def _answer(request: ModelRequest, reply: Reply) -> dict[str, Any]:
    usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    if request.protocol == "gemini":
        parts: list[dict[str, Any]] = [{"text": reply.text}] if reply.text else []
        parts += [{"functionCall": {"name": c.name, "args": c.arguments}} for c in reply.tool_calls]
        return {
            "candidates": [
                {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {
                "promptTokenCount": 1,
                "candidatesTokenCount": 1,
                "totalTokenCount": 2,
            },
            "modelVersion": request.model,
            "responseId": "fake-response",
        }
    if request.kind == "completion":
        return {
            "id": "cmpl-fake",
            "object": "text_completion",
            "created": 0,
            "model": request.model,
            "choices": [
                {"index": 0, "text": reply.text, "finish_reason": "stop", "logprobs": None}
            ],
            "usage": usage,
        }
    message: dict[str, Any] = {"role": "assistant", "content": reply.text}
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": f"call_{i}",
                "type": "function",
                "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
            }
            for i, c in enumerate(reply.tool_calls)
        ]
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": request.model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if reply.tool_calls else "stop",
            }
        ],
        "usage": usage,
    }


async def _start(state: FakeModel) -> web.AppRunner:
    app = web.Application()
    app.router.add_post("/{tail:.*}", state._handle)
    # handler_cancellation: a client that hangs up cancels its handler, as a real server would
    # stop generating; the cancellation test counts those.
    runner = web.AppRunner(app, handler_cancellation=True, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    state.url = f"http://127.0.0.1:{port}"
    return runner


@asynccontextmanager
async def running(state: FakeModel | None = None) -> AsyncIterator[FakeModel]:
    """Serve ``state`` (a new :class:`FakeModel` by default) on the running event loop."""
    state = state or FakeModel()
    runner = await _start(state)
    try:
        yield state
    finally:
        await runner.cleanup()


@contextmanager
def running_in_thread(state: FakeModel | None = None) -> Iterator[FakeModel]:
    """Serve ``state`` on an event loop of its own, in a thread."""
    state = state or FakeModel()
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    runner = asyncio.run_coroutine_threadsafe(_start(state), loop).result(10)
    try:
        yield state
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        loop.close()
