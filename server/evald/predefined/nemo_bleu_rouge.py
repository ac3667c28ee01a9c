"""NeMo ``bleu`` (corpus BLEU, 0-100) and ``rouge`` over rendered templates."""

from __future__ import annotations

from sacrebleu.metrics.bleu import BLEU

from evald import api
from evald.errors import InvalidArgument
from evald.metric_api.base import Outcome
from evald.metric_api.instance import InstanceView
from evald.metrics.registry import handlers
from evald.metrics.rouge import DEFAULT_ROUGE_TYPE
from evald.predefined.base import ComputedPredefined, Parameter, Params
from evald.predefined.templates import render


class Bleu(ComputedPredefined):
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

    def score(self, params: Params, instance: InstanceView) -> Outcome:
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


class Rouge(ComputedPredefined):
    """ROUGE F-measure (rouge-score) of the candidate against the reference, 0-1."""

    name = "nemo/rouge"
    family = "nemo"
    definition = (
        "rouge-score F-measure of the given `rouge_type` (rouge1..rouge9, rougeL, rougeLsum; "
        f"default {DEFAULT_ROUGE_TYPE}), no stemming, scored exactly as `rouge_spec` is, 0-1."
    )
    parameters = (
        Parameter("rouge_type", "string", "ROUGE variant", DEFAULT_ROUGE_TYPE),
        Parameter("reference", "string", "Jinja2 template of the reference", "{{reference}}"),
        Parameter("candidate", "string", "Jinja2 template of the text scored", "{{response}}"),
    )
    score_range = "0..1"

    def score(self, params: Params, instance: InstanceView) -> Outcome:
        variables = instance.variables()
        candidate = render(params.string("candidate"), variables, params.field("candidate"))
        reference = render(params.string("reference"), variables, params.field("reference"))
        handler = handlers()["rouge_input"]
        spec = api.messages.RougeSpec(rouge_type=params.string("rouge_type"))
        options = handler.options(spec, params.path)  # type: ignore[attr-defined]
        legacy = api.messages.RougeInstance(prediction=candidate, reference=reference)
        return Outcome(float(handler.score(legacy, options, params.path)))  # type: ignore[attr-defined]
