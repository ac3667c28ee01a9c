"""``multi_turn_tool_use_quality_v1``: Rubric-based quality of an agent's tool use over a
conversation."""

from __future__ import annotations

from evald.judging.rubrics import Recipe
from evald.metrics.named.vertex.base import CONVERSATION, FINAL_RESPONSE, TOOL_USE, RubricNamed

MULTI_TURN_TOOL_USE_QUALITY = Recipe(
    title="multi-turn tool use quality",
    focus=f"How well the agent used its tools over the whole conversation, turn by turn: "
    f"{TOOL_USE}. Base the rubrics on what the user asked in each turn and on the tools "
    "the agent has.",
    note="Judge the tool calls and results in the agent trace (and any in the response).",
)


class MultiTurnToolUseQuality(RubricNamed):
    """Rubric-based quality of an agent's tool use over a conversation."""

    name = "multi_turn_tool_use_quality_v1"
    definition = (
        "Rubric-based tool use over a whole conversation: per-turn rubrics on tool choice, "
        "arguments, needless calls, use of results and error handling, judged on the agent "
        "trace. Score: importance-weighted share of rubrics met, 0..1. Reads agent_eval_data (or "
        "agent_data; required), prompt, response, other_data.context."
    )
    recipe = MULTI_TURN_TOOL_USE_QUALITY
    reads = ("prompt", "context", "agent", "response")
    generation_reads = ("prompt", "context", "agent")
    required = (("agent",),)
    labels = (
        ("prompt", CONVERSATION),
        ("response", FINAL_RESPONSE),
    )
