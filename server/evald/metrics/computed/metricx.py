"""metricx_input: MetricX-24 (``google/metricx-24-hybrid-large-v2p6``), a learned error score of a
translation: 0 (perfect) to 25 (worst), lower is better.

MetricX-24 is an mT5 encoder-decoder fine-tuned for regression, as Google publishes it
(github google-research/metricx, ``metricx24``): the input is one text, ``source: S candidate:
P reference: R`` (reference-based: S empty; source-based: ``source: S candidate: P``, as the
published QE mode builds it), tokenized with the mT5 tokenizer up to 1536 tokens and without its
closing ``</s>``; the decoder runs one step from token 0, and the score is the logit of
``<extra_id_10>`` (id 250089 in mT5's vocabulary) at that step, clipped to [0, 25].
``tests/unit/metrics/computed/test_metricx.py`` checks the formula against transformers' own
mT5 forward pass on a tiny random model.

The model folder holds the checkpoint (``config.json``, weights); the tokenizer is mT5's, read
from the model folder when it has one, else from ``google/mt5-large`` under the models
directory. ``source_language`` and ``target_language`` are accepted and change nothing: MetricX-24
reads no language codes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from google.protobuf.message import Message

from evald.call import Call
from evald.errors import FailedPrecondition
from evald.metrics.base import Metric, Outcome
from evald.metrics.computed.comet import check_present, version_name
from evald.metrics.instance import InstanceView
from evald.metrics.params import Parameter, Params
from evald.models.base import ModelRequest

VERSIONS: dict[str, tuple[str, ...]] = {
    "METRICX_24_SRC_REF": ("source", "prediction", "reference"),
    "METRICX_24_REF": ("prediction", "reference"),
    "METRICX_24_SRC": ("source", "prediction"),
}
"""The versions served (the first is the default: the hybrid model's full input), by
``MetricxSpec.MetricxVersion`` name, and the instance fields each reads. All three run the same
hybrid model."""
TOKENIZER = "google/mt5-large"
"""The tokenizer of the default model (MetricX-24 ships none; every size shares mT5's
vocabulary)."""
MAX_INPUT_TOKENS = 1536
"""The input length MetricX-24 was trained with."""
SCORE_TOKEN = "<extra_id_10>"
"""The vocabulary entry whose logit is the score."""
MAX_SCORE = 25.0


def metricx_text(version: str, source: str, prediction: str, reference: str) -> str:
    """The model's input text for ``version``, as the published prediction script builds it."""
    if version == "METRICX_24_SRC":
        return f"source: {source} candidate: {prediction}"
    if version == "METRICX_24_REF":
        source = ""  # the hybrid model's reference-only input: the source left empty
    return f"source: {source} candidate: {prediction} reference: {reference}"


class Metricx(Metric):
    """MetricX-24 of one instance, reference-based, source-based or both (hybrid)."""

    input_field = "metricx_input"
    result_field = "metricx_result"
    model_kind = "evald.metrics.computed.metricx:MetricxKind"
    default_model = "google/metricx-24-hybrid-large-v2p6"

    name = "metricx"
    family = "vertex"
    definition = (
        "MetricX-24 (`google/metricx-24-hybrid-large-v2p6`) of the response, as `metricx_input` "
        "scores it: 0 is perfect, 25 the worst. `METRICX_24_SRC_REF` reads the source "
        "(`other_data.source`, else the prompt) and the reference, `METRICX_24_REF` the "
        "reference, `METRICX_24_SRC` the source. evald's name for `metricx_input` in the Metric "
        "API, dataset jobs and `evald evaluate`."
    )
    parameters = (
        Parameter("version", "choice", "MetricX version", next(iter(VERSIONS)), tuple(VERSIONS)),
        Parameter("source_language", "string", "accepted; MetricX reads no language code", ""),
        Parameter("target_language", "string", "accepted; MetricX reads no language code", ""),
    )
    score_range = "0..25 (lower is better)"

    async def evaluate_input(self, metric_input: Any, path: str, call: Call) -> Message:
        spec_path = f"{path}.metric_spec.version"
        version = version_name(metric_input.metric_spec, spec_path, "MetricX", list(VERSIONS))
        instance = metric_input.instance
        check_present(instance, VERSIONS[version], f"{path}.instance")
        text = metricx_text(version, instance.source, instance.prediction, instance.reference)
        return self.result_class()(score=await self.score(call, text))

    async def evaluate_named(
        self, params: Params, instance: InstanceView, call: Call, path: str
    ) -> Outcome:
        version = params.choice("version")
        needs = VERSIONS[version]
        source = ""
        if "source" in needs:
            source = instance.other_data.get("source") or instance.require("prompt")
        reference = instance.require("reference") if "reference" in needs else ""
        text = metricx_text(version, source, instance.require("response"), reference)
        return Outcome(await self.score(call, text))

    async def score(self, call: Call, text: str) -> float:
        """MetricX-24 of one input text, through the server's model runtime."""
        models = call.services.models
        if models is None:
            raise FailedPrecondition("MetricX needs the model runtime, which this server lacks")
        assert self.default_model is not None
        assert self.model_kind is not None
        folder = models.resolve(self.default_model)
        has_tokenizer = any((folder / f).is_file() for f in ("tokenizer.json", "spiece.model"))
        tokenizer = folder if has_tokenizer else models.resolve(TOKENIZER)
        request = ModelRequest(self.model_kind, self.default_model, {"tokenizer": str(tokenizer)})
        [score] = await models.run(request, [text], deadline=call.deadline)
        return float(score)


@dataclass
class MetricxState:
    """A loaded MetricX model: mT5 encoder-decoder, its tokenizer, the score's token id."""

    tokenizer: Any
    model: Any
    """``transformers.MT5ForConditionalGeneration`` (MetricX's regression model has the same
    weights)."""
    score_token: int
    rescale: bool
    """The checkpoint's output layer is its input embeddings (``tie_word_embeddings``), so the
    decoder's output is scaled by ``d_model ** -0.5`` first; false for MetricX's checkpoints."""
    device: str


class MetricxKind:
    """MetricX-24 models; items are input texts (:func:`metricx_text`), one score each."""

    name = "metricx"

    def load(self, path: Path, device: str, options: Mapping[str, Any]) -> MetricxState:
        from transformers import AutoTokenizer, MT5ForConditionalGeneration

        tokenizer = AutoTokenizer.from_pretrained(options["tokenizer"], local_files_only=True)
        token = tokenizer.convert_tokens_to_ids(SCORE_TOKEN)
        if not isinstance(token, int) or token == tokenizer.unk_token_id:
            raise FailedPrecondition(
                f"tokenizer {options['tokenizer']} has no {SCORE_TOKEN}: not mT5's"
            )
        # The checkpoint's own dtype (bfloat16 for the XL and XXL models), as the published
        # prediction script loads it.
        model: Any = MT5ForConditionalGeneration.from_pretrained(
            path, local_files_only=True, dtype="auto"
        )
        model.to(device).eval()
        # The checkpoint's own word, not the loaded config's: transformers 5 reports every mT5
        # as tied, and unties at load time a checkpoint that has its own output layer.
        config = json.loads((path / "config.json").read_text(encoding="utf-8"))
        rescale = bool(config.get("tie_word_embeddings", False))
        return MetricxState(tokenizer, model, token, rescale, device)

    def forward(
        self, state: MetricxState, items: Sequence[Any], options: Mapping[str, Any]
    ) -> list[float]:
        import torch

        encoded = [
            # The published script drops the tokenizer's closing </s>: the model never saw it.
            state.tokenizer(str(text), max_length=MAX_INPUT_TOKENS, truncation=True)["input_ids"][
                :-1
            ]
            for text in items
        ]
        width = max(len(ids) for ids in encoded)
        pad = state.tokenizer.pad_token_id
        ids = torch.tensor([row + [pad] * (width - len(row)) for row in encoded])
        mask = torch.tensor([[1] * len(row) + [0] * (width - len(row)) for row in encoded])
        ids, mask = ids.to(state.device), mask.to(state.device)
        model = state.model
        with torch.inference_mode():
            hidden = model.encoder(input_ids=ids, attention_mask=mask).last_hidden_state
            start = torch.zeros((len(encoded), 1), dtype=torch.long, device=state.device)
            out = model.decoder(
                input_ids=start, encoder_hidden_states=hidden, encoder_attention_mask=mask
            ).last_hidden_state
            if state.rescale:  # T5's rescaling before an output layer tied to the embeddings
                out = out * (model.config.d_model**-0.5)
            logits = model.lm_head(out)[:, 0, state.score_token].float()
            scores = torch.clamp(logits, 0.0, MAX_SCORE)
        return [float(score) for score in scores.tolist()]
