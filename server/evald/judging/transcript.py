"""Rendering an EvaluationInstance as text a judge can read: turns, tool calls, agent traces.

Unlike :class:`~evald.metrics.instance.InstanceView` (plain texts for computed metrics), this
keeps what a judge needs to see: who said what when a field holds several contents (``[user]``,
``[model]``), function calls and their results (as JSON), and the agent trace of
``agent_eval_data`` (or the deprecated ``agent_data``): agents, their instructions and tools, and
each turn's events. Thought parts are left out. Images, audio, video and files go to the
judge as media when a :class:`~evald.judging.media.MediaSink` is given (the text holds each
one's label where it was); without one they are shown as a placeholder naming their MIME type.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import json_format

from evald.judges import Media
from evald.judging.media import MediaSink

CONTEXT_KEY = "context"
"""The ``other_data`` key the SDKs use for grounding material."""


def _plain(value: Any) -> Any:
    # Struct numbers are doubles: show 20, not 20.0, as the caller most likely wrote it.
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _struct(message: Any) -> str:
    value = _plain(json_format.MessageToDict(message))
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def part_text(part: Any, sink: MediaSink | None = None, path: str = "") -> str | None:
    """One content part (at ``path``) as judge-readable text; None for parts a judge should not
    see. Media parts become their label in ``sink``, or a placeholder without one."""
    if part.thought:
        return None
    kind = part.WhichOneof("data")
    if kind == "text":
        return str(part.text)
    if kind == "function_call":
        call = part.function_call
        return f"[tool call] {call.name}({_struct(call.args)})"
    if kind == "function_response":
        reply = part.function_response
        return f"[tool result] {reply.name}: {_struct(reply.response)}"
    if kind == "executable_code":
        return f"[code]\n{part.executable_code.code}"
    if kind == "code_execution_result":
        return f"[code output]\n{part.code_execution_result.output}"
    if kind in ("inline_data", "file_data") and sink is not None:
        return sink.add(part, path)
    if kind == "inline_data":
        return f"[{part.inline_data.mime_type or 'binary'} data omitted]"
    if kind == "file_data":
        return f"[{part.file_data.mime_type or 'file'} file omitted: {part.file_data.file_uri}]"
    return None


def content_text(content: Any, sink: MediaSink | None = None, path: str = "") -> str:
    """The parts of one Content (at ``path``), one per line (text parts of a run are
    concatenated)."""
    lines: list[str] = []
    text_run: list[str] = []
    for p, part in enumerate(content.parts):
        rendered = part_text(part, sink, f"{path}.parts[{p}]")
        if rendered is None:
            continue
        if part.WhichOneof("data") == "text":
            text_run.append(rendered)
            continue
        if text_run:
            lines.append("".join(text_run))
            text_run = []
        lines.append(rendered)
    if text_run:
        lines.append("".join(text_run))
    return "\n".join(line for line in lines if line.strip())


def contents_text(contents: Iterable[Any], sink: MediaSink | None = None, path: str = "") -> str:
    """Several contents (``path[i]``): a single one as is; several as ``[role] text`` blocks, in
    order."""
    items = list(contents)
    if len(items) == 1:
        return content_text(items[0], sink, f"{path}[0]")
    blocks = []
    for i, content in enumerate(items):
        text = content_text(content, sink, f"{path}[{i}]")
        if text:
            blocks.append(f"[{content.role or 'user'}] {text}")
    return "\n".join(blocks)


def instance_data_text(data: Any, sink: MediaSink | None = None, path: str = "") -> str | None:
    """An ``InstanceData`` (at ``path``; text or contents) as text; None when neither is set."""
    which = data.WhichOneof("data")
    if which == "text":
        return str(data.text)
    if which == "contents":
        return contents_text(data.contents.contents, sink, f"{path}.contents.contents")
    return None


def _tools(tools: Iterable[Any]) -> list[str]:
    names: list[str] = []
    for tool in tools:
        for declaration in tool.function_declarations:
            described = f": {declaration.description}" if declaration.description else ""
            names.append(f"{declaration.name}{described}")
        # Other tool kinds by name only: their configs may hold keys, and say nothing useful.
        names += [f.name for f, _ in tool.ListFields() if f.name != "function_declarations"]
    return names


def _agent_block(
    agent_id: str, config: Any, tools: Iterable[Any], sink: MediaSink | None, path: str
) -> str:
    kind = getattr(config, "agent_type", "")
    lines = [f"- {agent_id}" + (f" ({kind})" if kind else "")]
    if config.description:
        lines.append(f"  Description: {config.description}")
    instruction = getattr(config, "instruction", "")
    if not instruction and _has(config, "developer_instruction"):
        instruction = (
            instance_data_text(config.developer_instruction, sink, f"{path}.developer_instruction")
            or ""
        )
    if instruction:
        lines.append(f"  Instruction: {instruction}")
    listed = _tools(tools)
    if listed:
        lines.append("  Tools: " + "; ".join(listed))
    if config.sub_agents:
        lines.append("  Sub-agents: " + ", ".join(config.sub_agents))
    return "\n".join(lines)


def _has(message: Any, name: str) -> bool:
    """Whether ``message`` has field ``name`` and it is set (the deprecated messages differ)."""
    return name in message.DESCRIPTOR.fields_by_name and message.HasField(name)


def _config_tools(config: Any) -> list[Any]:
    if "tools_data" in config.DESCRIPTOR.oneofs_by_name:  # the deprecated messages: a oneof
        return list(config.tools.tool) if config.WhichOneof("tools_data") == "tools" else []
    return list(config.tools)


def agent_trace(data: Any, sink: MediaSink | None = None, path: str = "") -> str | None:
    """``AgentData`` (or the deprecated agent data, at ``path``): agents, then each turn's
    events."""
    sections: list[str] = []
    agents = [
        _agent_block(
            k, data.agents[k], _config_tools(data.agents[k]), sink, f"{path}.agents[{k!r}]"
        )
        for k in sorted(data.agents)
    ]
    if _has(data, "agent_config"):  # deprecated: one agent, no id
        agents.append(
            _agent_block(
                "agent",
                data.agent_config,
                _config_tools(data.agent_config),
                sink,
                f"{path}.agent_config",
            )
        )
    if "tools_data" in data.DESCRIPTOR.oneofs_by_name:  # deprecated: top-level instruction, tools
        instruction = (
            instance_data_text(data.developer_instruction, sink, f"{path}.developer_instruction")
            if _has(data, "developer_instruction")
            else None
        )
        if instruction:
            sections.append(f"Developer instruction: {instruction}")
        tools = _tools(_config_tools(data))
        if data.WhichOneof("tools_data") == "tools_text":
            tools.append(data.tools_text)
        if tools:
            sections.append("Available tools: " + "; ".join(tools))
    if agents:
        sections.append("Agents:\n" + "\n".join(agents))
    turns: list[str] = []
    for position, turn in enumerate(data.turns):
        index = turn.turn_index if turn.HasField("turn_index") else position
        events = []
        for e, event in enumerate(turn.events):
            where = f"{path}.turns[{position}].events[{e}].content"
            text = content_text(event.content, sink, where) if event.HasField("content") else ""
            if text:
                author = event.author if event.HasField("author") else "unknown"
                events.append(f"[{author}] {text}")
        if events:
            turns.append(f"Turn {index}:\n" + "\n".join(events))
    if "events_data" in data.DESCRIPTOR.oneofs_by_name and data.WhichOneof("events_data"):
        events = [
            f"[{c.role or 'user'}] {t}"
            for i, c in enumerate(data.events.event)
            if (t := content_text(c, sink, f"{path}.events.event[{i}]"))
        ]
        if events:
            turns.append("Events:\n" + "\n".join(events))
    if turns:
        sections.append("\n\n".join(turns))
    return "\n\n".join(sections) or None


@dataclass
class Sources:
    """What a judge may be shown about one instance, each as text (None when absent)."""

    prompt: str | None = None
    response: str | None = None
    reference: str | None = None
    context: str | None = None
    agent: str | None = None
    other: dict[str, str] = field(default_factory=dict)
    media: tuple[Media, ...] = ()
    """The media the texts refer to by label (see :mod:`evald.judging.media`)."""

    def get(self, name: str) -> str | None:
        """The text of source ``name`` if it is set and not blank."""
        value = getattr(self, name) if name != "other" else None
        return value if isinstance(value, str) and value.strip() else None


FIELD_OF = {
    "prompt": "prompt",
    "response": "response",
    "reference": "reference",
    "context": f"other_data.map_instance[{CONTEXT_KEY!r}]",
    "agent": "agent_eval_data",
}
"""The EvaluationInstance field each source is read from (for error messages)."""


def sources(message: Any, path: str = "instance") -> Sources:
    """The :class:`Sources` of an ``EvaluationInstance`` message found at ``path``, with its
    media."""
    sink = MediaSink()

    def data(name: str) -> str | None:
        if not message.HasField(name):
            return None
        return instance_data_text(getattr(message, name), sink, f"{path}.{name}")

    values = message.other_data.map_instance
    other = {
        key: text
        for key in sorted(values)
        if (
            text := instance_data_text(
                values[key], sink, f"{path}.other_data.map_instance[{key!r}]"
            )
        )
        is not None
    }
    agent = None
    if message.HasField("agent_eval_data"):
        agent = agent_trace(message.agent_eval_data, sink, f"{path}.agent_eval_data")
    elif message.HasField("agent_data"):
        agent = agent_trace(message.agent_data, sink, f"{path}.agent_data")
    return Sources(
        prompt=data("prompt"),
        response=data("response"),
        reference=data("reference"),
        context=other.get(CONTEXT_KEY),
        agent=agent,
        other={k: v for k, v in other.items() if k != CONTEXT_KEY},
        media=sink.media,
    )
