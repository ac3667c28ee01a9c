"""A local fake LLM judge on 127.0.0.1 (port 0) speaking two wire protocols.

- Gemini REST: ``POST /{version}/models/{model}:generateContent`` (API-key mode, what google-genai
  sends) and ``POST /{version}/projects/{p}/locations/{l}/publishers/google/models/{model}:
  generateContent`` (Vertex mode).
- OpenAI chat completions: ``POST /v1/chat/completions`` (any prefix ending in
  ``/chat/completions``).

Answers are scripted: :meth:`FakeJudge.script` queues :class:`Reply` objects that are served in
order, one per call; when the queue is empty ``FakeJudge.default`` (a function of the prompt text)
answers, reporting ``FakeJudge.usage``. Every call is recorded in :attr:`FakeJudge.calls`, so
tests can count them. Each answer reports its :class:`Usage` as the protocol does (Gemini's
``usageMetadata``, OpenAI's ``usage``), or none.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

GEMINI_PATH = re.compile(r"^/[^/]+/(?:.*/)?models/(?P<model>[^/:]+):generateContent$")
OPENAI_PATH = re.compile(r"^(?:/[^?]*)?/chat/completions$")


@dataclass(frozen=True)
class Usage:
    """The token counts an answer reports."""

    prompt: int = 1
    output: int = 1
    thoughts: int = 0
    """Gemini's ``thoughtsTokenCount``; in OpenAI's ``completion_tokens`` (as reasoning)."""


@dataclass(frozen=True)
class Reply:
    """One scripted answer: judge text (status 200), or an HTTP error, optionally delayed.

    ``raw`` replaces the whole response body (e.g. a truncated JSON document).
    """

    text: str = ""
    status: int = 200
    delay: float = 0.0
    raw: bytes | None = None
    content_type: str = "application/json"
    """The Content-Type of a ``raw`` body."""
    usage: Usage | None = Usage()
    """What a 200 answer reports it cost; None: no usage in the response."""


@dataclass
class Call:
    """One request the fake received."""

    protocol: str  # "gemini" or "openai"
    path: str
    model: str
    headers: dict[str, str]
    body: dict[str, Any]
    peer: str = ""
    """The client's ``host:port``: equal for calls sent over one pooled connection."""

    @property
    def prompt(self) -> str:
        """The user prompt text of the request."""
        if self.protocol == "gemini":
            return "".join(
                part.get("text", "")
                for content in self.body.get("contents", [])
                for part in content.get("parts", [])
            )
        texts = []
        for message in self.body.get("messages", []):
            if message["role"] != "user":
                continue
            content = message.get("content", "")
            if isinstance(content, list):  # text and image parts
                texts += [p.get("text", "") for p in content if p.get("type") == "text"]
            else:
                texts.append(str(content))
        return "".join(texts)

    @property
    def system(self) -> str:
        """The system instruction text of the request ("" when none)."""
        if self.protocol == "gemini":
            parts = (self.body.get("systemInstruction") or {}).get("parts", [])
            return "".join(p.get("text", "") for p in parts)
        messages = self.body.get("messages", [])
        return "".join(str(m.get("content", "")) for m in messages if m["role"] == "system")


def _default_answer(prompt: str) -> str:
    return json.dumps({"score": 3, "explanation": "default fake answer"})


@dataclass
class FakeJudge:
    """The fake endpoint's state; start it with :func:`running`."""

    default: Callable[[str], str] = _default_answer
    usage: Usage | None = Usage()
    """What the default answers report."""
    calls: list[Call] = field(default_factory=list)
    _queue: deque[Reply] = field(default_factory=deque)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    url: str = ""
    in_flight: int = 0
    """Calls being answered now."""
    peak: int = 0
    """The most calls ever answered at once (a concurrency limit's test reads it)."""

    def _enter(self) -> None:
        with self._lock:
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def script(self, *replies: Reply | str) -> None:
        """Queue replies (a bare string is a 200 answer with that text)."""
        with self._lock:
            self._queue.extend(Reply(text=r) if isinstance(r, str) else r for r in replies)

    def reset(self) -> None:
        """Forget queued replies and recorded calls."""
        with self._lock:
            self._queue.clear()
            self.calls.clear()

    def _next(self, call: Call) -> Reply:
        with self._lock:
            self.calls.append(call)
            if self._queue:
                return self._queue.popleft()
        return Reply(text=self.default(call.prompt), usage=self.usage)


def _gemini_body(text: str, usage: Usage | None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}
        ],
        "modelVersion": "fake",
    }
    if usage is not None:
        body["usageMetadata"] = {
            "promptTokenCount": usage.prompt,
            "candidatesTokenCount": usage.output,
            "totalTokenCount": usage.prompt + usage.output + usage.thoughts,
        }
        if usage.thoughts:
            body["usageMetadata"]["thoughtsTokenCount"] = usage.thoughts
    return body


def _openai_body(text: str, model: str, usage: Usage | None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
        ],
    }
    if usage is not None:
        generated = usage.output + usage.thoughts
        body["usage"] = {
            "prompt_tokens": usage.prompt,
            "completion_tokens": generated,
            "total_tokens": usage.prompt + generated,
            "completion_tokens_details": {"reasoning_tokens": usage.thoughts},
        }
    return body


_STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}


def _handler_class(state: FakeJudge) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        answering = False
        """Counted in ``state.in_flight``: from the request's arrival until its answer starts
        to leave. Not until the answer has left: the client may already have it and send its
        next call, which must not meet this one still counted."""

        def log_message(self, format: str, *args: Any) -> None:  # quiet test output
            return

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw_body = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw_body or b"{}")
            except ValueError:
                body = {}
            path = self.path.split("?", 1)[0]
            if match := GEMINI_PATH.match(path):
                protocol, model = "gemini", match["model"]
            elif OPENAI_PATH.match(path):
                protocol, model = "openai", str(body.get("model", ""))
            else:
                self._send(404, {"error": {"code": 404, "message": f"no route {path}"}})
                return
            headers = {k.lower(): v for k, v in self.headers.items()}
            peer = f"{self.client_address[0]}:{self.client_address[1]}"
            call = Call(protocol, path, model, headers, body, peer)
            state._enter()
            self.answering = True
            try:
                self._answer(state._next(call), protocol, model)
            finally:
                self._answered()

        def _answered(self) -> None:
            if self.answering:
                self.answering = False
                state._leave()

        def _answer(self, reply: Reply, protocol: str, model: str) -> None:
            if reply.delay:
                time.sleep(reply.delay)
            if reply.raw is not None:
                self._send_bytes(reply.status, reply.raw, reply.content_type)
            elif reply.status != 200:
                error = {
                    "code": reply.status,
                    "message": reply.text or "scripted failure",
                    "status": _STATUS_NAMES.get(reply.status, "UNKNOWN"),
                }
                self._send(reply.status, {"error": error})
            elif protocol == "gemini":
                self._send(200, _gemini_body(reply.text, reply.usage))
            else:
                self._send(200, _openai_body(reply.text, model, reply.usage))

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            self._send_bytes(status, json.dumps(payload).encode())

        def _send_bytes(
            self, status: int, data: bytes, content_type: str = "application/json"
        ) -> None:
            self._answered()
            try:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout test): nothing to do

    return Handler


@contextmanager
def running(state: FakeJudge | None = None) -> Iterator[FakeJudge]:
    """Serve ``state`` (a new :class:`FakeJudge` by default) on 127.0.0.1, port 0."""
    state = state or FakeJudge()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_class(state))
    server.daemon_threads = True
    # shutdown() waits for the serving loop's next poll: poll often, so a stop takes no 0.5 s.
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
