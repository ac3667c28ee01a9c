"""Judge backends come from a registry: a backend defined in any module is found, checks its own
config section and answers judge calls, with no other code changed."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest
from evald.call import Call, Services
from evald.errors import FailedPrecondition
from evald.judges import JudgeRequest, Judges
from evald.judges.backends import JudgeBackend, backends
from evald.judges.base import Reply
from evald.judges.http import JudgeHttp
from evald.judges.spec import ConfigError, JudgeSpec, Secret
from evald.metrics.catalog import builtin
from evald.metrics.judged.pointwise import Pointwise
from evald.sandbox import Sandbox

from tests.support import MESSAGES

m = MESSAGES["v1beta1"]


class ScriptedJudge:
    """Answers every call with its configured reply."""

    def __init__(self, reply: str) -> None:
        self.name = "s"
        self.backend = "scripted"
        self.reply = reply
        self.prompts: list[str] = []

    async def generate(self, model: str, request: JudgeRequest, timeout: float) -> Reply:
        self.prompts.append(request.prompt)
        return Reply(self.reply)


class Scripted(JudgeBackend):
    """A backend of this test module: one key of its own, ``reply``."""

    name = "scripted"
    keys = frozenset({"reply"})

    def options(self, where: str, entry: Mapping[str, Any], api_key: Secret | None) -> str:
        if not isinstance(entry.get("reply"), str):
            raise ConfigError(f"{where}.reply: the scripted backend needs a reply")
        return str(entry["reply"])

    def client(self, spec: JudgeSpec, http: JudgeHttp) -> ScriptedJudge:
        return ScriptedJudge(spec.options)


def judges(**entry: Any) -> Judges:
    table = {"s": {"backend": "scripted", "model": "m", **entry}, "cache": {"enabled": False}}
    return Judges(None, table, {})


def test_the_backends_of_the_package_and_of_this_module_are_found() -> None:
    assert {"gemini", "openai", "scripted"} <= set(backends())


async def test_a_judge_of_a_new_backend_scores() -> None:
    reply = json.dumps({"score": 4, "explanation": "fine"})
    call = Call(Services(judges(reply=reply), Sandbox(enabled=False), builtin()))
    metric_input = m.PointwiseMetricInput(
        metric_spec=m.PointwiseMetricSpec(metric_prompt_template="Rate: {response}"),
        instance=m.PointwiseMetricInstance(json_instance=json.dumps({"response": "R"})),
    )
    result: Any = await Pointwise().evaluate_input(metric_input, "pointwise_metric_input", call)
    assert (result.score, result.explanation) == (4.0, "fine")
    await call.judges.aclose()


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({}, "judges.s.reply: the scripted backend needs a reply"),
        ({"reply": "x", "vertex": True}, "unknown keys ['vertex']"),
    ],
)
def test_the_backend_checks_its_own_section(entry: dict[str, Any], message: str) -> None:
    with pytest.raises(FailedPrecondition) as err:
        judges(**entry).runtime()
    assert message in err.value.message
