"""Generations from the Gemini API through google-genai, answered in OpenAI's shapes.

Chat messages map to Gemini contents: ``system`` to the system instruction, ``user`` to role
``user``, ``assistant`` to role ``model`` (its tool calls to function calls), ``tool`` to a
function response. Parameters map by name: ``max_tokens`` (or ``max_completion_tokens``) to
``max_output_tokens``, ``stop`` to ``stop_sequences``, ``temperature``, ``top_p``, ``top_k``,
``seed``, the penalties; OpenAI function ``tools`` to function declarations and ``tool_choice``
to the function calling mode. Other parameters have no Gemini meaning and are left out.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import httpx

from evald.judges.base import (
    JudgeCallError,
    JudgeTimeout,
    RejectedError,
    TransientError,
    classify_http,
)
from evald.judges.http import AnswerTooLarge, connection_failed
from evald.targets.base import Endpoint, Generation, Output, plain

if TYPE_CHECKING:
    from google import genai
    from google.genai import types

_SAME_NAME = ("temperature", "top_p", "top_k", "seed", "presence_penalty", "frequency_penalty")
_FINISH = {"STOP": "stop", "MAX_TOKENS": "length", "SAFETY": "content_filter"}


def make_client(endpoint: Endpoint, http: httpx.AsyncClient) -> genai.Client:
    """A client for ``endpoint`` sending through ``http`` (slow to build: call in a thread)."""
    from google import genai
    from google.genai import types

    options = types.HttpOptions(
        base_url=endpoint.url or None,
        httpx_async_client=http,  # ours: pooled, size-capped, closed by the runtime
    )
    if not endpoint.api_key:
        # Never the server's own key: google-genai would read GOOGLE_API_KEY from the
        # environment, and the endpoint URL is the caller's choice.
        raise RejectedError("the Gemini endpoint needs an api_key")
    return genai.Client(api_key=endpoint.api_key, http_options=options)


async def generate(
    client: genai.Client, endpoint: Endpoint, generation: Generation, timeout: float
) -> Output:
    """One attempt, within ``timeout`` seconds."""
    from google.genai import errors

    system, contents = _contents(generation)
    config = _config(generation.params, system, timeout)
    try:
        response = await asyncio.wait_for(
            client.aio.models.generate_content(
                model=endpoint.model_id, contents=contents, config=config
            ),
            timeout,
        )
    except errors.APIError as exc:
        raise classify_http(int(exc.code or 500), str(exc.message or exc.status or "")) from None
    except (TimeoutError, httpx.TimeoutException):
        raise JudgeTimeout(f"no answer within {timeout:.3g}s") from None
    except AnswerTooLarge as exc:
        raise TransientError(str(exc)) from None
    except httpx.TransportError as exc:
        raise TransientError(connection_failed(exc)) from None
    except JudgeCallError:
        raise
    except ValueError as exc:  # the SDK could not read the body
        raise RejectedError(f"unreadable answer: {type(exc).__name__}") from None
    return _output(response, endpoint.model_id)


def _config(
    params: Mapping[str, Any], system: str | None, timeout: float
) -> types.GenerateContentConfig:
    from google.genai import types

    fields: dict[str, Any] = {k: params[k] for k in _SAME_NAME if params.get(k) is not None}
    max_tokens = params.get("max_tokens", params.get("max_completion_tokens"))
    if max_tokens is not None:
        fields["max_output_tokens"] = max_tokens
    stop = params.get("stop")
    if stop:
        fields["stop_sequences"] = [stop] if isinstance(stop, str) else list(stop)
    tools = [
        types.FunctionDeclaration(
            name=str(t["function"]["name"]),
            description=t["function"].get("description"),
            parameters_json_schema=plain(t["function"].get("parameters")) or None,
        )
        for t in params.get("tools") or ()
        if isinstance(t, Mapping) and isinstance(t.get("function"), Mapping)
    ]
    if tools:
        fields["tools"] = [types.Tool(function_declarations=tools)]
        fields["automatic_function_calling"] = types.AutomaticFunctionCallingConfig(disable=True)
        choice = _tool_choice(params.get("tool_choice"))
        if choice is not None:
            fields["tool_config"] = types.ToolConfig(function_calling_config=choice)
    return types.GenerateContentConfig(
        system_instruction=system,
        candidate_count=1,
        # The SDK's timeout (ms) also sets X-Server-Timeout, so the server can give up too.
        http_options=types.HttpOptions(timeout=max(1, int(timeout * 1000))),
        **fields,
    )


def _tool_choice(choice: Any) -> types.FunctionCallingConfig | None:
    from google.genai import types

    mode = types.FunctionCallingConfigMode
    if choice == "auto":
        return types.FunctionCallingConfig(mode=mode.AUTO)
    if choice == "none":
        return types.FunctionCallingConfig(mode=mode.NONE)
    if choice == "required":
        return types.FunctionCallingConfig(mode=mode.ANY)
    if isinstance(choice, Mapping) and isinstance(choice.get("function"), Mapping):
        name = str(choice["function"].get("name", ""))
        return types.FunctionCallingConfig(mode=mode.ANY, allowed_function_names=[name])
    return None


def _contents(generation: Generation) -> tuple[str | None, list[types.Content]]:
    """The system instruction and contents of ``generation``."""
    from google.genai import types

    if generation.kind == "completion":
        part = types.Part.from_text(text=generation.prompt or "")
        return None, [types.Content(role="user", parts=[part])]
    system: list[str] = []
    contents: list[types.Content] = []
    names: dict[str, str] = {}  # tool call id -> function name, for the tool's answer
    for message in generation.messages:
        role = message.get("role")
        text = _text_of(message.get("content"))
        if role in ("system", "developer"):
            system.append(text)
        elif role == "assistant":
            parts = [types.Part.from_text(text=text)] if text else []
            for call in message.get("tool_calls") or ():
                function = call.get("function") or {}
                name = str(function.get("name", ""))
                names[str(call.get("id", ""))] = name
                parts.append(types.Part.from_function_call(name=name, args=_args(function)))
            contents.append(types.Content(role="model", parts=parts))
        elif role == "tool":
            name = str(message.get("name") or names.get(str(message.get("tool_call_id")), ""))
            answer = types.Part.from_function_response(name=name, response={"result": text})
            contents.append(types.Content(role="user", parts=[answer]))
        else:
            contents.append(types.Content(role="user", parts=[types.Part.from_text(text=text)]))
    return ("\n".join(system) if system else None), contents


def _text_of(content: Any) -> str:
    """The text of an OpenAI message content: a string, or the text of its parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        return "".join(
            str(p.get("text", "")) for p in content if isinstance(p, Mapping) and "text" in p
        )
    return ""


def _args(function: Mapping[str, Any]) -> dict[str, Any]:
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return {"arguments": arguments}
    return plain(arguments) if isinstance(arguments, Mapping) else {}


def _output(response: types.GenerateContentResponse, model: str) -> Output:
    """The output of a response, with a chat completion built from its first candidate (so
    tool-calling scorers read ``choices[0].message.tool_calls`` whatever the format)."""
    candidate = response.candidates[0] if response.candidates else None
    parts = (candidate.content.parts if candidate and candidate.content else None) or []
    text = "".join(p.text for p in parts if p.text and not p.thought)
    tool_calls = tuple(
        {
            "id": p.function_call.id or f"call_{index}",
            "type": "function",
            "function": {
                "name": p.function_call.name or "",
                "arguments": json.dumps(p.function_call.args or {}, ensure_ascii=False),
            },
        }
        for index, p in enumerate(part for part in parts if part.function_call)
        if p.function_call
    )
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if tool_calls:
        message["tool_calls"] = list(tool_calls)
    reason = candidate.finish_reason if candidate else None
    finish = "tool_calls" if tool_calls else _FINISH.get(getattr(reason, "value", ""), "stop")
    usage = response.usage_metadata
    body: dict[str, Any] = {
        "id": response.response_id or "",
        "object": "chat.completion",
        "model": response.model_version or model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    }
    if usage is not None:
        body["usage"] = {
            "prompt_tokens": usage.prompt_token_count or 0,
            "completion_tokens": usage.candidates_token_count or 0,
            "total_tokens": usage.total_token_count or 0,
        }
    return Output(text=text, tool_calls=tool_calls, response=body)
