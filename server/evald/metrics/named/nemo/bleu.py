"""NeMo ``bleu``: sentence BLEU (0-100) of rendered templates per row, and corpus BLEU over a
dataset."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sacrebleu.metrics.bleu import BLEU

from evald.errors import InvalidArgument
from evald.metrics.base import ComputedNamed, Outcome
from evald.metrics.instance import InstanceView, TemplateRow
from evald.metrics.named.nemo.api_params import OUTPUT_TEXT, translate
from evald.metrics.params import Parameter, Params
from evald.metrics.text.jinja import render


def _texts(params: Params, instance: InstanceView) -> tuple[str, list[str]]:
    """The rendered candidate and references of one instance."""
    variables = instance.variables()
    candidate = render(params.string("candidate"), variables, params.field("candidate"))
    templates = params.strings("references") or []
    references = [
        render(t, variables, f"{params.field('references')}[{i}]") for i, t in enumerate(templates)
    ]
    if not references:
        raise InvalidArgument(params.field("references"), "at least one reference is needed")
    return candidate, references


class Bleu(ComputedNamed):
    """sacrebleu sentence BLEU of the candidate against its references, 0-100; corpus BLEU over
    a dataset."""

    name = "nemo/bleu"
    family = "nemo"
    definition = (
        "Per row, sacrebleu `sentence_bleu(candidate, references)`: 13a tokenizer, exp "
        "smoothing, case-sensitive, effective order (only the n-gram orders the candidate "
        "has count, so `the` against `the` is 100), on NeMo's 0-100 scale (not divided by 100, "
        "unlike `bleu_spec`); several references are allowed. Over a dataset (dataset jobs, "
        "`evald evaluate`) the summary also reports NeMo's corpus BLEU, sacrebleu "
        "`corpus_bleu(candidates, [first reference of each row])` over the rows scored "
        "without error: NeMo, too, keeps only each row's first reference there."
    )
    parameters = (
        Parameter(
            "references", "string list", "Jinja2 templates of the references", ["{{reference}}"]
        ),
        Parameter("candidate", "string", "Jinja2 template of the text scored", "{{response}}"),
    )
    score_range = "0..100"
    nemo_type = "bleu"
    nemo_score_names = ("sentence",)

    def nemo_params(self, params: Mapping[str, Any], path: str) -> dict[str, Any]:
        values = translate(
            params,
            path,
            {"references": "references", "candidate": "candidate"},
            required=("references",),
            defaults={"candidate": OUTPUT_TEXT},
        )
        if isinstance(values["references"], str):  # one template, as NeMo also takes it
            values["references"] = [values["references"]]
        return values

    def nemo_dataset_scores(self, params: Params, rows: Sequence[TemplateRow]) -> dict[str, float]:
        found = self.dataset_scores(params, rows)
        return {"corpus": found["corpus_bleu"]} if found else {}

    def score_named(self, params: Params, instance: InstanceView) -> Outcome:
        candidate, references = _texts(params, instance)
        # A new scorer per call: sacrebleu's BLEU keeps state between calls.
        result = BLEU(effective_order=True).sentence_score(candidate, references)
        return Outcome(float(result.score), str(result))

    def dataset_scores(self, params: Params, instances: Sequence[InstanceView]) -> dict[str, float]:
        pairs = [_texts(params, instance) for instance in instances]
        if not pairs:
            return {}
        candidates = [candidate for candidate, _ in pairs]
        first_references = [references[0] for _, references in pairs]
        return {"corpus_bleu": float(BLEU().corpus_score(candidates, [first_references]).score)}
