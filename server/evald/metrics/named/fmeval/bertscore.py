"""``fmeval/bertscore``: BERTScore of the response against the reference, as FMEval computes it,
and :class:`BertScoreKind`, the model kind that runs the encoder.

FMEval's ``BertscoreHelperModel`` calls Hugging Face evaluate's ``bertscore`` once per pair
(``predictions=[model_output]``, ``references=[target_output]``, ``model_type`` from the
algorithm config) and keeps ``f1``. evaluate passes bert-score its defaults: the layer from
bert-score's table for the model, no idf weighting, no baseline rescaling, the tokenizer loaded
with ``use_fast=False``. The kind reproduces ``bert_score.score`` for one pair: each text is
stripped and encoded as bert-score's ``sent_encode`` does, the encoder cut at ``num_layers`` gives
one vector per token (special tokens included), and each candidate token is matched to its most
similar reference token by cosine (precision) and each reference token to a candidate token
(recall), averaged with weight 0 for the [CLS]/[SEP] ids and 1 for every other token.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Final

from evald.call import Call
from evald.errors import FailedPrecondition, InvalidArgument
from evald.metrics.base import Metric, Outcome
from evald.metrics.instance import InstanceView
from evald.metrics.params import Parameter, Params
from evald.models.base import ModelRequest

KIND: Final = "evald.metrics.named.fmeval.bertscore:BertScoreKind"
DEFAULT_MODEL: Final = "microsoft/deberta-xlarge-mnli"
"""FMEval's ``BERTSCORE_DEFAULT_MODEL``."""

LAYERS: Final[dict[str, int]] = {
    "microsoft/deberta-xlarge-mnli": 40,
    "roberta-large-mnli": 19,
    "microsoft/deberta-large-mnli": 18,
    "microsoft/deberta-base-mnli": 9,
    "microsoft/deberta-xlarge": 18,
    "microsoft/deberta-large": 16,
    "microsoft/deberta-base": 9,
    "roberta-large": 17,
    "roberta-base": 10,
    "distilroberta-base": 5,
    "bert-base-uncased": 9,
    "bert-large-uncased": 18,
    "bert-base-multilingual-cased": 9,
    "distilbert-base-uncased": 5,
    "xlm-roberta-large": 17,
    "xlm-roberta-base": 9,
}
"""The layer bert-score uses for a model it knows (its ``model2layers``, for the models FMEval
allows and common ones; a test checks them against bert-score's table)."""

BATCH: Final = 32
"""Texts encoded per forward pass of the encoder."""

Scores = tuple[float, float, float]
"""Precision, recall and F1 of one pair."""


def default_layers(model: str) -> int | None:
    """bert-score's layer for ``model``, by its name; None for a model it does not list."""
    return LAYERS.get(model)


@dataclass
class _Loaded:
    tokenizer: Any
    encoder: Any
    device: str


class BertScoreKind:
    """BERTScore's encoders: loads a Hugging Face encoder cut at a layer; an item is a
    (candidate, reference) pair, its result (precision, recall, F1)."""

    name = "bertscore"

    def load(self, path: Path, device: str, options: Mapping[str, Any]) -> Any:
        # Never reach the Hub: the models directory is all there is.
        os.environ["HF_HUB_OFFLINE"] = "1"
        import torch
        from transformers import AutoModel, AutoTokenizer

        layers = int(options["num_layers"])
        try:
            # bert-score's default, which FMEval keeps: the tokenizer without use_fast.
            tokenizer = AutoTokenizer.from_pretrained(path, use_fast=False, local_files_only=True)
            model = AutoModel.from_pretrained(path, local_files_only=True)
        except (OSError, ValueError) as exc:
            raise FailedPrecondition(f"cannot load the BERTScore model at {path}: {exc}") from None
        model.eval()
        if hasattr(model, "decoder") and hasattr(model, "encoder"):
            model = model.encoder  # an encoder-decoder: bert-score keeps the encoder
        holder, attribute = _layer_list(model)
        if holder is None:
            raise FailedPrecondition(
                f"the BERTScore model at {path} ({type(model).__name__}) has no layer list to "
                "cut at num_layers"
            )
        available = len(getattr(holder, attribute))
        if not 0 <= layers <= available:
            raise FailedPrecondition(
                f"the BERTScore model at {path} has {available} layers; num_layers is {layers}"
            )
        setattr(holder, attribute, torch.nn.ModuleList(getattr(holder, attribute)[:layers]))
        model.to(device)
        return _Loaded(tokenizer, model, device)

    def forward(self, state: Any, items: Sequence[Any], options: Mapping[str, Any]) -> list[Any]:
        import torch

        assert isinstance(state, _Loaded)
        pairs = [(str(candidate).strip(), str(reference).strip()) for candidate, reference in items]
        texts = sorted({text for pair in pairs for text in pair if text})
        ids = {text: _encode(state.tokenizer, text) for text in texts}
        with torch.inference_mode():
            vectors = _embed(state, ids)
            special = {state.tokenizer.cls_token_id, state.tokenizer.sep_token_id}
            weights = {
                text: torch.tensor([0.0 if i in special else 1.0 for i in ids[text]])
                for text in texts
            }
            return [
                _greedy(vectors[c], weights[c], vectors[r], weights[r]) if c and r else _EMPTY
                for c, r in pairs
            ]


_EMPTY: Final[Scores] = (0.0, 0.0, 0.0)
"""An empty side: bert-score encodes it as [CLS] [SEP], whose weights are all 0, and scores the
pair 0 (its newer tokenizers can no longer encode it at all)."""


def _layer_list(model: Any) -> tuple[Any, str]:
    """Where the encoder's layers are, as bert-score looks for them."""
    if hasattr(model, "encoder") and hasattr(model.encoder, "layer"):  # BERT, RoBERTa, DeBERTa
        return model.encoder, "layer"
    if hasattr(model, "transformer") and hasattr(model.transformer, "layer"):  # DistilBERT
        return model.transformer, "layer"
    if hasattr(model, "layers"):  # BART's encoder
        return model, "layers"
    return None, ""


def _encode(tokenizer: Any, text: str) -> list[int]:
    """bert-score's ``sent_encode`` of a stripped, non-empty text: GPT-2 and RoBERTa tokenizers
    are given a prefix space, every tokenizer truncates at its ``model_max_length``."""
    from transformers import GPT2Tokenizer, RobertaTokenizer

    extra = (
        {"add_prefix_space": True}
        if isinstance(tokenizer, GPT2Tokenizer | RobertaTokenizer)
        else {}
    )
    ids: list[int] = tokenizer.encode(
        text,
        add_special_tokens=True,
        max_length=tokenizer.model_max_length,
        truncation=True,
        **extra,
    )
    return ids


def _embed(state: _Loaded, ids: Mapping[str, list[int]]) -> dict[str, Any]:
    """Each text's token vectors from the cut encoder, unit length, in batches of similar
    lengths (padding is masked out of attention)."""
    import torch

    pad = state.tokenizer.pad_token_id or 0
    order = sorted(ids, key=lambda text: len(ids[text]), reverse=True)
    found: dict[str, Any] = {}
    for start in range(0, len(order), BATCH):
        batch = order[start : start + BATCH]
        width = len(ids[batch[0]])
        tokens = torch.full((len(batch), width), pad, dtype=torch.long)
        mask = torch.zeros((len(batch), width), dtype=torch.long)
        for row, text in enumerate(batch):
            tokens[row, : len(ids[text])] = torch.tensor(ids[text], dtype=torch.long)
            mask[row, : len(ids[text])] = 1
        out = state.encoder(tokens.to(state.device), attention_mask=mask.to(state.device))[0]
        out = out.float().cpu()
        for row, text in enumerate(batch):
            vectors = out[row, : len(ids[text])]
            found[text] = vectors / torch.norm(vectors, dim=-1).unsqueeze(-1)
    return found


def _greedy(
    candidate: Any, candidate_weights: Any, reference: Any, reference_weights: Any
) -> Scores:
    """bert-score's ``greedy_cos_idf`` for one pair, operation for operation (the same float32
    sums), including its handling of texts of two tokens and of a zero denominator."""
    similarity = candidate @ reference.T
    precision = (similarity.max(dim=1)[0] * (candidate_weights / candidate_weights.sum())).sum()
    recall = (similarity.max(dim=0)[0] * (reference_weights / reference_weights.sum())).sum()
    f1 = 2 * precision * recall / (precision + recall)
    p, r, f = float(precision), float(recall), float(f1)
    if len(candidate) == 2 or len(reference) == 2:
        p = r = 0.0  # bert-score's test for an empty text: two tokens, [CLS] and [SEP]
    return p, r, 0.0 if math.isnan(f) else f


class BertScore(Metric):
    """BERTScore F1 of the response against the reference, as FMEval reports it."""

    name = "fmeval/bertscore"
    family = "fmeval"
    definition = (
        "BERTScore F1 of the response (candidate) against the reference, as FMEval's "
        "`BertscoreHelperModel` gets it from bert-score: token vectors of the encoder `model` "
        "cut at layer `num_layers`, each token matched to its most similar token of the other "
        "text by cosine, weights 1 (0 for [CLS]/[SEP]), no idf, no baseline rescaling. 0 when "
        "either text is empty after stripping. The whole reference is one target (no `<OR>` "
        "split). Needs the model's files in the models directory; without them the metric "
        "fails with FAILED_PRECONDITION."
    )
    score_range = "0..1"
    parameters = (
        Parameter(
            "model",
            "string",
            "The encoder: a name under the models directory or an absolute path.",
            DEFAULT_MODEL,
        ),
        Parameter(
            "num_layers",
            "number",
            "The layer whose vectors are compared; by default bert-score's for the model "
            "(40 for microsoft/deberta-xlarge-mnli); required for a model it does not list.",
        ),
        Parameter(
            "idf",
            "boolean",
            "Weigh tokens by inverse document frequency; only false, as FMEval (each pair is "
            "scored on its own, so there is no corpus to count).",
            False,
        ),
    )
    model_kind: ClassVar[str | None] = KIND
    default_model: ClassVar[str | None] = DEFAULT_MODEL

    async def evaluate_named(
        self, params: Params, instance: InstanceView, call: Call, path: str
    ) -> Outcome:
        request = request_of(params)
        pair = (instance.require("response"), instance.require("reference"))
        models = call.services.models
        if models is None:
            raise FailedPrecondition("this server has no model runtime for BERTScore")
        [(precision, recall, f1)] = await models.run(request, [pair], deadline=call.deadline)
        return Outcome(f1, explanation=f"precision {precision:.6f}, recall {recall:.6f}")


def request_of(params: Params) -> ModelRequest:
    """The model request of the metric's parameters; InvalidArgument naming a bad one."""
    model = params.string("model")
    if not model:
        raise InvalidArgument(params.field("model"), "name a model")
    if params.boolean("idf"):
        raise InvalidArgument(
            params.field("idf"), "only false: FMEval scores each pair without idf weights"
        )
    if params.values.get("num_layers") is not None:
        value = params.number("num_layers")
        if value != int(value) or value < 0:
            raise InvalidArgument(params.field("num_layers"), "a whole number, 0 or more")
        layers = int(value)
    else:
        found = default_layers(model)
        if found is None:
            raise InvalidArgument(
                params.field("num_layers"), f"bert-score has no default layer for {model!r}"
            )
        layers = found
    return ModelRequest(KIND, model, {"num_layers": layers})
