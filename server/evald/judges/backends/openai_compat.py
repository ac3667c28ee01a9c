"""Judges behind any OpenAI-compatible chat completions API (OpenAI, vLLM, NIM, Ollama)."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from evald.judges import rest
from evald.judges.backends import JudgeBackend
from evald.judges.base import JudgeRequest, Reply, Tokens, TransientError, classify_http
from evald.judges.http import JudgeHttp
from evald.judges.spec import ConfigError, JudgeSpec, Secret

NO_KEY = "unused"
"""Sent when no key is configured: local servers (vLLM, Ollama) ignore it, and it is what the
``openai`` SDK sent (it needs one)."""


class OpenAICompatible(JudgeBackend):
    """Any OpenAI-compatible chat completions endpoint."""

    name = "openai"
    carries = ("image/*",)
    uri_schemes = ("https", "http")

    def options(self, where: str, entry: Mapping[str, Any], api_key: Secret | None) -> None:
        if not entry.get("base_url"):
            raise ConfigError(f"{where}.base_url is required for the openai backend")

    def client(self, spec: JudgeSpec, http: JudgeHttp) -> OpenAICompatJudge:
        return OpenAICompatJudge(spec, http)


class OpenAICompatJudge:
    """POSTs chat completions to one endpoint.

    The request is built and the answer read as plain JSON, the way the ``openai`` SDK sends
    and reads them (same URL, authorization and body): its pydantic models cost several times
    the CPU of the rest of a judge call. evald retries (with its own budget and deadline).
    """

    backend = "openai"

    def __init__(self, spec: JudgeSpec, http: JudgeHttp) -> None:
        self.name = spec.name
        self._http = http
        self._structured = spec.structured_output
        self._url = f"{(spec.base_url or '').rstrip('/')}/chat/completions"
        key = spec.api_key.reveal() if spec.api_key else NO_KEY
        self._headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "Authorization": f"Bearer {key}",
            "User-Agent": rest.USER_AGENT,
        }

    async def generate(self, model: str, request: JudgeRequest, timeout: float) -> Reply:
        body = rest.encode(request_body(model, request, self._structured))
        response = await rest.post(self._http, self._url, self._headers, body, timeout)
        document = rest.decoded(response)
        if response.status >= 300:
            raise classify_http(response.status, rest.error_message(document, response))
        tokens = _tokens(document)
        return Reply(_text(document, tokens), tokens)


def request_body(model: str, request: JudgeRequest, structured: bool) -> dict[str, Any]:
    """The chat completions JSON body of ``request``."""
    messages: list[dict[str, Any]] = []
    if request.system_instruction:
        messages.append({"role": "system", "content": request.system_instruction})
    messages.append({"role": "user", "content": _content(request)})
    params = request.params
    body: dict[str, Any] = {"messages": messages, "model": model, "n": 1}
    for name, value in (
        ("temperature", params.temperature),
        ("top_p", params.top_p),
        ("max_tokens", params.max_output_tokens),
        ("seed", params.seed),
        ("presence_penalty", params.presence_penalty),
        ("frequency_penalty", params.frequency_penalty),
        ("stop", list(params.stop_sequences) or None),
    ):
        if value is not None:
            body[name] = value
    if params.top_k is not None:
        body["top_k"] = int(params.top_k)  # vLLM/Ollama extension
    if request.response_schema and structured:
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "verdict", "schema": request.response_schema},
        }
    return body


def _content(request: JudgeRequest) -> Any:
    """The user message: the prompt alone, or the prompt then each image after its label."""
    if not request.media:
        return request.prompt
    parts: list[dict[str, Any]] = [{"type": "text", "text": request.prompt}]
    for media in request.media:
        url = media.uri or (
            f"data:{media.mime_type};base64,{base64.b64encode(media.data).decode('ascii')}"
        )
        parts.append({"type": "text", "text": media.label})
        parts.append({"type": "image_url", "image_url": {"url": url}})
    return parts


def _text(document: Any, tokens: Tokens | None) -> str:
    """The answer text of a chat completion. What a 200 response holds is not trusted: it may
    not be JSON, or JSON of another shape."""
    choices = document.get("choices") if isinstance(document, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise TransientError("unreadable response: not a chat completion with choices")
    message = choices[0].get("message")
    text = message.get("content") if isinstance(message, dict) else None
    if not isinstance(text, str) or not text:
        raise TransientError("the response has no text", reply=Reply("", tokens))
    return text


def _tokens(document: Any) -> Tokens | None:
    """The usage a completion reports (``completion_tokens`` includes reasoning tokens), None
    when it has none (some OpenAI-compatible servers leave it out)."""
    usage = document.get("usage") if isinstance(document, dict) else None
    if not isinstance(usage, dict):
        return None
    prompt, generated = usage.get("prompt_tokens"), usage.get("completion_tokens")
    if not isinstance(prompt, int) or not isinstance(generated, int):
        return None
    return Tokens(prompt, generated)
