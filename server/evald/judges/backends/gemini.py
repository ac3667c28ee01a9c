"""Gemini judges: the ``generateContent`` REST call (Gemini API or Vertex AI with a key), or the
``google-genai`` SDK (Vertex AI with application-default credentials, whose OAuth tokens it
refreshes).

With a key, the request is built and the response read as plain JSON, the way google-genai
sends and reads them (same URL, headers, body and server timeout): the SDK's pydantic models
and retry wrapper cost several times the CPU of the rest of a judge call."""

from __future__ import annotations

import asyncio
import base64
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from evald.judges import rest
from evald.judges.backends import JudgeBackend
from evald.judges.base import (
    Judge,
    JudgeCallError,
    JudgeRequest,
    JudgeTimeout,
    RejectedError,
    Reply,
    Tokens,
    TransientError,
    classify_http,
)
from evald.judges.http import AnswerTooLarge, JudgeHttp, connection_failed
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

    def client(self, spec: JudgeSpec, http: JudgeHttp) -> Judge:
        if spec.api_key is None:
            return GeminiJudge(spec, http)
        return GeminiRestJudge(spec, http)


GEMINI_URL = "https://generativelanguage.googleapis.com"
VERTEX_URL = "https://aiplatform.googleapis.com"
"""Vertex AI's global endpoint, where a key (express mode) is sent."""


class GeminiRestJudge:
    """POSTs ``generateContent`` to one Gemini API or Vertex AI (key) endpoint."""

    backend = "gemini"

    def __init__(self, spec: JudgeSpec, http: JudgeHttp) -> None:
        assert spec.api_key is not None
        own: GeminiOptions = spec.options
        self.name = spec.name
        self._http = http
        self._vertex = own.vertex
        base = (spec.base_url or (VERTEX_URL if own.vertex else GEMINI_URL)).rstrip("/")
        version = spec.api_version or ("v1beta1" if own.vertex else "v1beta")
        self._prefix = f"{base}/{version}/"
        self._headers = {
            "Content-Type": "application/json",
            "x-goog-api-key": spec.api_key.reveal().strip(),
            "User-Agent": rest.USER_AGENT,
            "x-goog-api-client": rest.USER_AGENT,
        }

    def url(self, model: str) -> str:
        """The ``generateContent`` URL of ``model`` (named as google-genai names it)."""
        return f"{self._prefix}{model_path(model, self._vertex)}:generateContent"

    async def generate(self, model: str, request: JudgeRequest, timeout: float) -> Reply:
        # As the SDK: the server may give up too once the call's (whole-second) timeout passes.
        headers = {
            **self._headers,
            "X-Server-Timeout": str(math.ceil(max(1, int(timeout * 1000)) / 1000)),
        }
        response = await rest.post(
            self._http, self.url(model), headers, rest.encode(request_body(request)), timeout
        )
        document = rest.decoded(response)
        if response.status >= 300:
            raise classify_http(response.status, rest.error_message(document, response))
        if not isinstance(document, dict):
            raise TransientError("unreadable response: not a JSON object")
        tokens = usage_tokens(document.get("usageMetadata"))
        text = answer_text(document)
        if text is None:
            raise TransientError(
                "the response has no text (blocked or empty candidate)", reply=Reply("", tokens)
            )
        return Reply(text, tokens)


def model_path(model: str, vertex: bool) -> str:
    """``models/m`` (Gemini API) or ``publishers/google/models/m`` (Vertex AI) for ``m``;
    a name that is already a resource path is kept (google-genai's rules). A name that could
    leave the model's path (``..``, ``?``, ``&``; a request may name any model a ``*`` glob
    serves) is refused, as google-genai refuses it."""
    if not model or ".." in model or "?" in model or "&" in model:
        raise RejectedError(f"invalid model name {model!r}")
    if vertex:
        if model.startswith(("projects/", "models/", "publishers/")):
            return model
        if "/" in model:
            publisher, name = model.split("/", 1)
            return f"publishers/{publisher}/models/{name}"
        return f"publishers/google/models/{model}"
    return model if model.startswith(("models/", "tunedModels/")) else f"models/{model}"


def request_body(request: JudgeRequest) -> dict[str, Any]:
    """The ``generateContent`` JSON body of ``request``, as google-genai encodes it."""
    params = request.params
    config: dict[str, Any] = {
        name: value
        for name, value in (
            ("temperature", params.temperature),
            ("topP", params.top_p),
            ("topK", params.top_k),
            ("maxOutputTokens", params.max_output_tokens),
            ("seed", params.seed),
            ("presencePenalty", params.presence_penalty),
            ("frequencyPenalty", params.frequency_penalty),
            ("stopSequences", list(params.stop_sequences) or None),
        )
        if value is not None
    }
    config["candidateCount"] = 1
    if request.response_schema:
        config["responseMimeType"] = "application/json"
        config["responseJsonSchema"] = request.response_schema
    parts: list[dict[str, Any]] = [{"text": request.prompt}]
    for media in request.media:
        parts.append({"text": media.label})
        if media.uri:
            parts.append({"fileData": {"file_uri": media.uri, "mime_type": media.mime_type}})
        else:
            data = base64.b64encode(media.data).decode("ascii")
            parts.append({"inlineData": {"data": data, "mime_type": media.mime_type}})
    body: dict[str, Any] = {"contents": [{"parts": parts, "role": "user"}]}
    if request.system_instruction:
        body["systemInstruction"] = {
            "parts": [{"text": request.system_instruction}],
            "role": "user",
        }
    body["generationConfig"] = config
    return body


def answer_text(document: Mapping[str, Any]) -> str | None:
    """The answer text of a ``generateContent`` response (thoughts left out), None when it has
    none (whatever shape it has)."""
    candidates = document.get("candidates")
    if not isinstance(candidates, list) or not candidates or not isinstance(candidates[0], dict):
        return None
    content = candidates[0].get("content")
    parts = content.get("parts") if isinstance(content, dict) else None
    if not isinstance(parts, list):
        return None
    texts = [
        p["text"]
        for p in parts
        if isinstance(p, dict)
        and isinstance(p.get("text"), str)
        and p["text"]
        and not p.get("thought")
    ]
    return "".join(texts) if texts else None


def usage_tokens(usage: Any) -> Tokens | None:
    """The ``usageMetadata`` of a response as tokens (thinking is billed as output), None when
    it reports none."""
    if not isinstance(usage, dict):
        return None
    prompt = usage.get("promptTokenCount")
    if not isinstance(prompt, int):
        return None

    def count(name: str) -> int:  # absent when zero (e.g. no thinking, a blocked prompt)
        value = usage.get(name)
        return value if isinstance(value, int) else 0

    return Tokens(
        prompt + count("toolUsePromptTokenCount"),
        count("candidatesTokenCount") + count("thoughtsTokenCount"),
    )


class GeminiJudge:
    """Calls ``client.aio.models.generate_content`` on one Gemini endpoint (Vertex AI with
    application-default credentials)."""

    backend = "gemini"

    def __init__(self, spec: JudgeSpec, http: JudgeHttp) -> None:
        from google import genai
        from google.genai import errors, types

        self.name = spec.name
        self._types = types
        self._errors = errors
        options = types.HttpOptions(
            base_url=spec.base_url,
            api_version=spec.api_version,
            httpx_async_client=http.httpx_client(),  # ours: pooled, closed by the judge runtime
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
