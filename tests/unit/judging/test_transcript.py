"""What judges are shown of an EvaluationInstance: roles, tool calls, agent traces."""

from __future__ import annotations

from typing import Any

from evald import api
from evald.judging import transcript
from google.protobuf import json_format

m: Any = api.messages


def instance(body: dict[str, Any]) -> Any:
    return json_format.ParseDict(body, m.EvaluationInstance())


def test_text_fields_and_context() -> None:
    found = transcript.sources(
        instance(
            {
                "prompt": {"text": "Q"},
                "response": {"text": "A"},
                "other_data": {"map_instance": {"context": {"text": "C"}, "extra": {"text": "E"}}},
            }
        )
    )
    assert (found.prompt, found.response, found.reference, found.context) == ("Q", "A", None, "C")
    assert found.other == {"extra": "E"}
    assert found.get("reference") is None
    assert found.agent is None


def test_conversation_roles_tool_calls_and_skipped_parts() -> None:
    found = transcript.sources(
        instance(
            {
                "prompt": {
                    "contents": {
                        "contents": [
                            {"role": "user", "parts": [{"text": "Hi, "}, {"text": "weather?"}]},
                            {
                                "role": "model",
                                "parts": [
                                    {"text": "secret plan", "thought": True},
                                    {"function_call": {"name": "get_weather", "args": {"c": "P"}}},
                                ],
                            },
                            {
                                "role": "user",
                                "parts": [
                                    {
                                        "function_response": {
                                            "name": "get_weather",
                                            "response": {"t": 20},
                                        }
                                    },
                                    {"inline_data": {"mime_type": "image/png", "data": "AA=="}},
                                ],
                            },
                        ]
                    }
                },
                "response": {"contents": {"contents": [{"parts": [{"text": "It is 20."}]}]}},
            }
        )
    )
    assert found.prompt == (
        "[user] Hi, weather?\n"
        '[model] [tool call] get_weather({"c": "P"})\n'
        '[user] [tool result] get_weather: {"t": 20}\n[media 1: image/png]'
    )
    assert found.response == "It is 20."
    (media,) = found.media
    assert (media.mime_type, media.data, media.label) == (
        "image/png",
        b"\0",
        "[media 1: image/png]",
    )
    assert media.path == "instance.prompt.contents.contents[2].parts[1].inline_data"


def test_agent_trace() -> None:
    body = {
        "agent_eval_data": {
            "agents": {
                "helper": {
                    "agent_type": "LlmAgent",
                    "description": "Answers weather questions",
                    "instruction": "Be brief.",
                    "tools": [
                        {
                            "function_declarations": [
                                {"name": "get_weather", "description": "Weather of a city"}
                            ]
                        },
                        {"google_search": {}},
                    ],
                }
            },
            "turns": [
                {
                    "turn_index": 0,
                    "events": [
                        {"author": "user", "content": {"parts": [{"text": "Paris?"}]}},
                        {
                            "author": "helper",
                            "content": {
                                "parts": [{"function_call": {"name": "get_weather", "args": {}}}]
                            },
                        },
                    ],
                }
            ],
        }
    }
    assert transcript.sources(instance(body)).agent == (
        "Agents:\n- helper (LlmAgent)\n  Description: Answers weather questions\n"
        "  Instruction: Be brief.\n  Tools: get_weather: Weather of a city; google_search\n\n"
        "Turn 0:\n[user] Paris?\n[helper] [tool call] get_weather({})"
    )


def test_deprecated_agent_data() -> None:
    body = {
        "agent_data": {
            "developer_instruction": {"text": "Be kind."},
            "tools_text": "lookup(x)",
            "turns": [{"events": [{"author": "user", "content": {"parts": [{"text": "Yo"}]}}]}],
        }
    }
    assert transcript.sources(instance(body)).agent == (
        "Developer instruction: Be kind.\n\nAvailable tools: lookup(x)\n\nTurn 0:\n[user] Yo"
    )
