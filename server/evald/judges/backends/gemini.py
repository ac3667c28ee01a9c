"""Gemini judges through the ``google-genai`` SDK (Gemini API key, or Vertex AI)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from evald.judges.backends import JudgeBackend
from evald.judges.base import (
    JudgeCallError,
    JudgeRequest,
    JudgeTimeout,
    RejectedError,
    Reply,
    Tokens,
    TransientError,
    classify_http,
)
from evald.judges.http import AnswerTooLarge, connection_failed
from evald.judges.spec import ConfigError, JudgeSpec, Secret, flag

_credentials: dict[str, Any] = {}
"""Vertex application-default credentials, loaded once per judge name (loading is slow)."""


@dataclass(frozen=True)
class GeminiOptions:
    """A Gemini judge's own settings."""

    vertex: bool = False
    """Vertex AI instead of the Gemini API."""
    project: str | None = None
    location: str | None = None


class Gemini(JudgeBackend):
    """The Gemini API (a key) or Vertex AI (a key, or application-default credentials)."""

    name = "gemini"
    keys = frozenset({"vertex", "project", "location"})
    carries = ("image/*", "audio/*", "video/*", "application/pdf", "text/*")
    uri_schemes = ("gs", "https", "http")

    def options(
        self, where: str, entry: Mapping[str, Any], api_key: Secret | None
    ) -> GeminiOptions:
        vertex = flag(entry.get("vertex", False), f"{where}.vertex")
        if api_key is None and not vertex:
            raise ConfigError(
                f"{where}: the Gemini API needs a key (api_key_env / api_key_file), "
                "or set vertex = true with project and location for Vertex AI credentials"
            )
        if vertex and api_key is None and not (entry.get("project") and entry.get("location")):
            raise ConfigError(f"{where}: Vertex mode needs project and location (or an API key)")
        return GeminiOptions(vertex, entry.get("project") or None, entry.get("location") or None)

    def client(self, spec: JudgeSpec, http: httpx.AsyncClient) -> GeminiJudge:
        return GeminiJudge(spec, http)


class GeminiJudge:
    """Calls ``client.aio.models.generate_content`` on one Gemini endpoint."""

    backend = "gemini"

    def __init__(self, spec: JudgeSpec, http: httpx.AsyncClient) -> None:
        from google import genai
        from google.genai import errors, types

        self.name = spec.name
        self._types = types
        self._errors = errors
        options = types.HttpOptions(
            base_url=spec.base_url,
            api_version=spec.api_version,
            httpx_async_client=http,  # ours: pooled and closed by the judge runtime, not the GC
        )
        key = spec.api_key.reveal() if spec.api_key else None
        own: GeminiOptions = spec.options
        if own.vertex and key is None:
            self._client = genai.Client(
                vertexai=True,
                project=own.project,
                location=own.location,
                credentials=_vertex_credentials(spec),
                http_options=options,
            )
        else:
            self._client = genai.Client(vertexai=own.vertex, api_key=key, http_options=options)

    async def generate(self, model: str, request: JudgeRequest, timeout: float) -> Reply:
        types = self._types
        params = request.params
        config = types.GenerateContentConfig(
            system_instruction=request.system_instruction or None,
            temperature=params.temperature,
            top_p=params.top_p,
            top_k=params.top_k,
            max_output_tokens=params.max_output_tokens,
            seed=params.seed,
            presence_penalty=params.presence_penalty,
            frequency_penalty=params.frequency_penalty,
            stop_sequences=list(params.stop_sequences) or None,
            candidate_count=1,
            response_mime_type="application/json" if request.response_schema else None,
            response_json_schema=dict(request.response_schema) if request.response_schema else None,
            # The SDK's own timeout (ms) also sets X-Server-Timeout so the server can give up too.
            http_options=types.HttpOptions(timeout=max(1, int(timeout * 1000))),
        )
        contents: Any = request.prompt
        if request.media:
            parts = [types.Part.from_text(text=request.prompt)]
            for media in request.media:
                parts.append(types.Part.from_text(text=media.label))
                if media.uri:
                    parts.append(types.Part.from_uri(file_uri=media.uri, mime_type=media.mime_type))
                else:
                    parts.append(types.Part.from_bytes(data=media.data, mime_type=media.mime_type))
            contents = [types.Content(role="user", parts=parts)]
        try:
            response = await asyncio.wait_for(
                self._client.aio.models.generate_content(
                    model=model, contents=contents, config=config
                ),
                timeout,
            )
        except self._errors.APIError as exc:
            message = str(exc.message or exc.status or "")
            raise classify_http(int(exc.code or 500), message) from None
        except (TimeoutError, httpx.TimeoutException):
            raise JudgeTimeout(f"no answer within {timeout:.3g}s") from None
        except AnswerTooLarge as exc:
            raise TransientError(str(exc)) from None
        except httpx.TransportError as exc:
            raise TransientError(connection_failed(exc)) from None
        except JudgeCallError:
            raise
        except ValueError as exc:  # the SDK could not read the response body
            raise TransientError(f"unreadable response: {exc}") from None
        text, tokens = _text(response), _tokens(response)
        if text is None:
            raise TransientError(
                "the response has no text (blocked or empty candidate)", reply=Reply("", tokens)
            )
        return Reply(text, tokens)


def _text(response: Any) -> str | None:
    """The answer text of a response, None when it has none (whatever shape it has)."""
    candidates = getattr(response, "candidates", None)
    if not isinstance(candidates, list) or not candidates:
        return None
    parts = getattr(getattr(candidates[0], "content", None), "parts", None)
    if not isinstance(parts, list):
        return None
    texts = [
        p.text
        for p in parts
        if isinstance(getattr(p, "text", None), str) and p.text and not getattr(p, "thought", False)
    ]
    return "".join(texts) if texts else None


def _tokens(response: Any) -> Tokens | None:
    """The usage a response reports (thinking is billed as output), None when it has none."""
    usage = getattr(response, "usage_metadata", None)
    prompt = getattr(usage, "prompt_token_count", None)
    if not isinstance(prompt, int):
        return None

    def count(name: str) -> int:  # absent when zero (e.g. no thinking, a blocked prompt)
        value = getattr(usage, name, None)
        return value if isinstance(value, int) else 0

    return Tokens(
        prompt + count("tool_use_prompt_token_count"),
        count("candidates_token_count") + count("thoughts_token_count"),
    )


def _vertex_credentials(spec: JudgeSpec) -> Any:
    if spec.name not in _credentials:
        import google.auth

        try:
            creds, _ = google.auth.default(
                scopes=["https://www.googleapis.com/auth/cloud-platform"]
            )
        except google.auth.exceptions.DefaultCredentialsError:
            raise RejectedError(
                "Vertex mode needs application-default credentials "
                "(GOOGLE_APPLICATION_CREDENTIALS or gcloud auth application-default login)"
            ) from None
        _credentials[spec.name] = creds
    return _credentials[spec.name]
