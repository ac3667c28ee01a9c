"""``multi_turn_task_success_v1``: Whether the agent accomplished the user's task by the end of the
conversation."""

from __future__ import annotations

from evald.metrics.named.vertex.base import CONVERSATION, FINAL_RESPONSE, BinaryNamed


class MultiTurnTaskSuccess(BinaryNamed):
    """Whether the agent accomplished the user's task by the end of the conversation."""

    name = "multi_turn_task_success_v1"
    definition = (
        "Binary task success: 1 when, by the end of the conversation, the agent has fully "
        "accomplished what the user asked (achieved, not merely discussed; nothing left undone "
        "or done wrong), judged from the conversation, the agent trace and the final response; "
        "else 0. Reads prompt or agent_eval_data / agent_data (one required), response."
    )
    title = "task success"
    criterion = (
        "By the end of the conversation the agent has fully accomplished the task or tasks the "
        "user asked for: the user's goal is actually achieved (according to the agent trace and "
        "the final response), not merely discussed, with nothing requested left undone or done "
        "wrong."
    )
    meanings = ("success: the user's goal is achieved", "failure: the goal is not fully achieved")
    reads = ("prompt", "agent", "response")
    required = (("prompt", "agent"),)
    labels = (
        ("prompt", CONVERSATION),
        ("response", FINAL_RESPONSE),
    )
