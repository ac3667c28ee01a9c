"""``tool_use_quality_v1`` (also ``tool_use_quality_v2``): Rubric-based quality of an agent's tool
use for one request."""

from __future__ import annotations

from evald.judging.rubrics import Recipe
from evald.metrics.named.vertex.base import FINAL_RESPONSE, TOOL_USE, RubricNamed

TOOL_USE_QUALITY = Recipe(
    title="tool use quality",
    focus=f"How well the agent used its tools to serve the user's request: {TOOL_USE}. Base "
    "the rubrics on the request and on the tools the agent has.",
    note="Judge the tool calls and results in the agent trace (and any in the response).",
)


class ToolUseQuality(RubricNamed):
    """Rubric-based quality of an agent's tool use for one request."""

    name = "tool_use_quality_v1"
    aliases = ("tool_use_quality_v2",)
    definition = (
        "Rubric-based tool use: rubrics from the request and the agent's tools (tool choice, "
        "arguments, needless calls, use of results, error handling), judged on the tool calls in "
        "`agent_eval_data` (or the deprecated `agent_data`) and the response. Score: "
        "importance-weighted share of rubrics met, 0..1. Reads prompt (required), "
        "agent_eval_data or response (required), other_data.context."
    )
    recipe = TOOL_USE_QUALITY
    reads = ("prompt", "context", "agent", "response")
    generation_reads = ("prompt", "context", "agent")
    required = (("prompt",), ("agent", "response"))
    labels = (("response", FINAL_RESPONSE),)
