"""A metric module for the Ray engine's tests (named by the ``metric_modules`` setting, so Ray
workers load it too): exact match that can take its time per row, and can kill its worker
process once, mid-batch, as a lost node would."""

from __future__ import annotations

import os
import time
from pathlib import Path

from evald.metrics.base import ComputedNamed, Outcome
from evald.metrics.instance import InstanceView
from evald.metrics.params import Parameter, Params


class Probe(ComputedNamed):
    """1 when the response equals the reference, else 0."""

    name = "test/ray_probe"
    family = "test"
    definition = "exact match, after sleep_ms; kills its process on a 'crash' response once"
    parameters = (
        Parameter("sleep_ms", "number", "milliseconds to wait per row", default=0.0),
        Parameter("crash_marker", "string", "file made when the worker is killed", default=""),
    )
    score_range = "0 or 1"

    def score_named(self, params: Params, instance: InstanceView) -> Outcome:
        response, reference = instance.require("response"), instance.require("reference")
        marker = params.string("crash_marker")
        if marker and response == "crash" and not Path(marker).exists():
            Path(marker).write_text(str(os.getpid()))
            os._exit(1)  # the worker dies mid-batch: no cleanup, no reply
        time.sleep(params.number("sleep_ms") / 1000)
        return Outcome(1.0 if response == reference else 0.0, "")
