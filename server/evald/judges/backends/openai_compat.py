"""Judges behind any OpenAI-compatible chat completions API (OpenAI, vLLM, NIM, Ollama)."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Mapping
from typing import Any

import httpx

from evald.judges.backends import JudgeBackend
from evald.judges.base import (
    JudgeRequest,
    JudgeTimeout,
    Reply,
    Tokens,
    TransientError,
    classify_http,
)
from evald.judges.http import AnswerTooLarge, connection_failed
from evald.judges.spec import ConfigError, JudgeSpec, Secret

NO_KEY = "unused"
"""Sent when no key is configured: local servers (vLLM, Ollama) ignore it, the SDK needs one."""


class OpenAICompatible(JudgeBackend):
    """Any OpenAI-compatible chat completions endpoint."""

    name = "openai"
    carries = ("image/*",)
    uri_schemes = ("https", "http")

    def options(self, where: str, entry: Mapping[str, Any], api_key: Secret | None) -> None:
        if not entry.get("base_url"):
            raise ConfigError(f"{where}.base_url is required for the openai backend")

    def client(self, spec: JudgeSpec, http: httpx.AsyncClient) -> OpenAICompatJudge:
        return OpenAICompatJudge(spec, http)


class OpenAICompatJudge:
    """Calls ``AsyncOpenAI.chat.completions.create`` on one endpoint, SDK retries off."""

    backend = "openai"

    def __init__(self, spec: JudgeSpec, http: httpx.AsyncClient) -> None:
        import openai

        self.name = spec.name
        self._openai = openai
        self._structured = spec.structured_output
        self._client = openai.AsyncOpenAI(
            base_url=spec.base_url,
            api_key=spec.api_key.reveal() if spec.api_key else NO_KEY,
            max_retries=0,  # evald retries (with its own budget and deadline)
            http_client=http,
        )

    async def generate(self, model: str, request: JudgeRequest, timeout: float) -> Reply:
        openai = self._openai
        messages: list[Any] = []  # ChatCompletionMessageParam dicts
        if request.system_instruction:
            messages.append({"role": "system", "content": request.system_instruction})
        messages.append({"role": "user", "content": _content(request)})
        params = request.params
        kwargs: dict[str, Any] = {
            "temperature": params.temperature,
            "top_p": params.top_p,
            "max_tokens": params.max_output_tokens,
            "seed": params.seed,
            "presence_penalty": params.presence_penalty,
            "frequency_penalty": params.frequency_penalty,
            "stop": list(params.stop_sequences) or None,
        }
        kwargs = {k: v for k, v in kwargs.items() if v is not None}
        if params.top_k is not None:
            kwargs["extra_body"] = {"top_k": int(params.top_k)}  # vLLM/Ollama extension
        if request.response_schema and self._structured:
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "verdict", "schema": dict(request.response_schema)},
            }
        try:
            completion = await asyncio.wait_for(
                self._client.chat.completions.create(
                    model=model, messages=messages, n=1, timeout=timeout, **kwargs
                ),
                timeout,
            )
        except openai.APIStatusError as exc:
            raise classify_http(exc.status_code, _message(exc)) from None
        except (TimeoutError, openai.APITimeoutError):
            raise JudgeTimeout(f"no answer within {timeout:.3g}s") from None
        except openai.APIConnectionError as exc:
            if isinstance(exc.__cause__, AnswerTooLarge):
                raise TransientError(str(exc.__cause__)) from None
            raise TransientError(connection_failed(exc)) from None
        except (openai.APIResponseValidationError, ValueError) as exc:
            raise TransientError(f"unreadable response: {type(exc).__name__}") from None
        tokens = _tokens(completion)
        return Reply(_text(completion, tokens), tokens)


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


def _text(completion: Any, tokens: Tokens | None) -> str:
    """The answer text of a chat completion. What a 200 response holds is not trusted: the SDK
    hands back a plain string for a body that is not JSON, and JSON of another shape as is."""
    choices = getattr(completion, "choices", None)
    if not isinstance(choices, list) or not choices:
        raise TransientError("unreadable response: not a chat completion with choices")
    message = getattr(choices[0], "message", None)
    text = getattr(message, "content", None)
    if not isinstance(text, str) or not text:
        raise TransientError("the response has no text", reply=Reply("", tokens))
    return text


def _tokens(completion: Any) -> Tokens | None:
    """The usage a completion reports (``completion_tokens`` includes reasoning tokens), None
    when it has none (some OpenAI-compatible servers leave it out)."""
    usage = getattr(completion, "usage", None)
    prompt = getattr(usage, "prompt_tokens", None)
    generated = getattr(usage, "completion_tokens", None)
    if not isinstance(prompt, int) or not isinstance(generated, int):
        return None
    return Tokens(prompt, generated)


def _message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
    return str(getattr(exc, "message", "") or "")
