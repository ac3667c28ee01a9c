"""NeMo ``bleu``: corpus BLEU (0-100) of rendered templates."""

from __future__ import annotations

from sacrebleu.metrics.bleu import BLEU

from evald.errors import InvalidArgument
from evald.metrics.base import ComputedNamed, Outcome
from evald.metrics.instance import InstanceView
from evald.metrics.params import Parameter, Params
from evald.metrics.text.jinja import render


class Bleu(ComputedNamed):
    """sacrebleu corpus BLEU of the candidate against one or more references, 0-100."""

    name = "nemo/bleu"
    family = "nemo"
    definition = (
        "sacrebleu `corpus_bleu([candidate], [[ref] for ref in references])` with sacrebleu's "
        "defaults (13a tokenizer, exp smoothing, case-sensitive), on NeMo's 0-100 scale. Over "
        "one instance the corpus is one segment, so this is that segment's BLEU (not divided "
        "by 100, unlike `bleu_spec`); several references are allowed."
    )
    parameters = (
        Parameter(
            "references", "string list", "Jinja2 templates of the references", ["{{reference}}"]
        ),
        Parameter("candidate", "string", "Jinja2 template of the text scored", "{{response}}"),
    )
    score_range = "0..100"

    def score_named(self, params: Params, instance: InstanceView) -> Outcome:
        variables = instance.variables()
        candidate = render(params.string("candidate"), variables, params.field("candidate"))
        templates = params.strings("references") or []
        references = [
            render(t, variables, f"{params.field('references')}[{i}]")
            for i, t in enumerate(templates)
        ]
        if not references:
            raise InvalidArgument(params.field("references"), "at least one reference is needed")
        # A new scorer per call: sacrebleu's BLEU keeps state between calls.
        result = BLEU().corpus_score([candidate], [[r] for r in references])
        return Outcome(float(result.score), str(result))
