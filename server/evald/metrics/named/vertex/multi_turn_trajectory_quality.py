"""``multi_turn_trajectory_quality_v1``: Rubric-based quality of an agent's sequence of actions over
a conversation."""

from __future__ import annotations

from evald.judging.rubrics import Recipe
from evald.metrics.named.vertex.base import CONVERSATION, FINAL_RESPONSE, RubricNamed

MULTI_TURN_TRAJECTORY_QUALITY = Recipe(
    title="multi-turn trajectory quality",
    focus="The quality of the agent's trajectory over the conversation: for each user request, "
    "its sequence of actions (tool calls, hand-offs to sub-agents, replies) is a sensible and "
    "efficient path to what was asked: the needed steps, in a sensible order, without "
    "skipped, needless, repeated or looping steps, and with progress after every turn.",
    note="Judge the actions in the agent trace.",
)


class MultiTurnTrajectoryQuality(RubricNamed):
    """Rubric-based quality of an agent's sequence of actions over a conversation."""

    name = "multi_turn_trajectory_quality_v1"
    definition = (
        "Rubric-based trajectory quality over a conversation: rubrics on whether the agent's "
        "actions for each request are the needed steps in a sensible order without skipped, "
        "needless, repeated or looping steps. Score: importance-weighted share of rubrics met, "
        "0..1. Reads agent_eval_data (or agent_data; required), prompt, response."
    )
    recipe = MULTI_TURN_TRAJECTORY_QUALITY
    reads = ("prompt", "agent", "response")
    generation_reads = ("prompt", "agent")
    required = (("agent",),)
    labels = (
        ("prompt", CONVERSATION),
        ("response", FINAL_RESPONSE),
    )
