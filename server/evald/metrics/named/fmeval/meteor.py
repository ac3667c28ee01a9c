"""``fmeval/meteor``: METEOR of the response against the reference, as FMEval's summarization
accuracy computes it."""

from __future__ import annotations

from typing import Any

from evald import api, offload
from evald.call import Call
from evald.metrics.base import ComputedNamed, Outcome
from evald.metrics.instance import InstanceView
from evald.metrics.params import Params
from evald.metrics.text.meteor import meteor


class Meteor(ComputedNamed):
    """METEOR of the response against the reference (NLTK's, as FMEval calls it)."""

    name = "fmeval/meteor"
    family = "fmeval"
    definition = (
        "NLTK's `single_meteor_score` with its defaults (lowercased words, Porter stems, "
        "WordNet 3.0 synonyms; alpha 0.9, beta 3, gamma 0.5) on the reference and the response "
        "each tokenized by NLTK's `word_tokenize`, as FMEval's summarization accuracy computes "
        "it. The whole reference is one target (no `<OR>` split). 0 when either side has no "
        "tokens or nothing matches. Needs WordNet 3.0's database files (Debian's "
        "`wordnet-base`); without them the metric fails with FAILED_PRECONDITION."
    )
    score_range = "0..1"

    def score_named(self, params: Params, instance: InstanceView) -> Outcome:
        return Outcome(meteor(instance.require("reference"), instance.require("response")))

    async def evaluate_named(
        self, params: Params, instance: InstanceView, call: Call, path: str
    ) -> Outcome:
        # Never on the event loop: a process's first score loads WordNet (about a second), and
        # synonym look-ups read its files.
        blob = instance.message.SerializeToString()
        outcome: Outcome = await offload.call(
            _score, params.values, params.path, blob, instance.path
        )
        return outcome


def _score(values: dict[str, Any], path: str, blob: bytes, at: str) -> Outcome:
    """Runs off the event loop."""
    params = Params(values, Meteor.parameters, path)
    instance = InstanceView(api.messages.EvaluationInstance.FromString(blob), at)
    return Meteor().score_named(params, instance)
