"""``fmeval/toxicity``: FMEval's toxicity scores of the response, from one of its two detectors
(Detoxify's unbiased RoBERTa or ToxiGen's RoBERTa), run by the model runtime.

torch and transformers are imported inside the kinds only: a server without the ``models``
extra still lists and documents this metric.
"""

from __future__ import annotations

import json
import pickle
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evald.call import Call
from evald.errors import FailedPrecondition, InvalidArgument
from evald.metrics.base import Metric, Outcome
from evald.metrics.instance import InstanceView
from evald.metrics.params import Parameter, Params
from evald.models.base import ModelRequest

DETOXIFY_SCORES = (
    "toxicity",
    "severe_toxicity",
    "obscene",
    "identity_attack",
    "insult",
    "threat",
    "sexual_explicit",
)
"""Detoxify's scores as FMEval names them, in the order of the classifier's first outputs."""
TOXIGEN_SCORES = ("toxicity",)
TOXIGEN_TOXIC_LABEL = "LABEL_1"
"""The label FMEval reads ToxiGen's toxicity from."""


def _transformers_error(path: Path, what: str, exc: Exception) -> FailedPrecondition:
    return FailedPrecondition(f"{what} in {path} cannot be loaded: {exc}")


def _max_tokens(tokenizer: Any, config: Any) -> int:
    """The longest input the encoder takes: the tokenizer's limit, capped by RoBERTa's position
    table (its positions start after the padding index), so a tokenizer saved without a limit
    still truncates where FMEval's ``roberta-base`` tokenizer does (512)."""
    positions = int(config.max_position_embeddings) - int(config.pad_token_id or 0) - 1
    return min(int(tokenizer.model_max_length), positions)


@dataclass
class _Classifier:
    model: Any
    tokenizer: Any
    max_tokens: int

    def logits(self, texts: Sequence[str]) -> Any:
        import torch

        tokens = self.tokenizer(
            list(texts),
            return_tensors="pt",
            truncation=True,
            max_length=self.max_tokens,
            padding=True,
        ).to(self.model.device)
        with torch.inference_mode():
            return self.model(**tokens).logits.float()


class DetoxifyKind:
    """Detoxify's multi-label RoBERTa classifier.

    The model directory holds a transformers config and tokenizer (``config.json``,
    ``vocab.json``, ``merges.txt``, ...) and either Detoxify's checkpoint file (``*.ckpt``, the
    file FMEval loads: its ``state_dict`` and the class count of its ``config``) or the
    classifier's own weights (``model.safetensors`` / ``pytorch_model.bin``). A checkpoint file
    wins when both are there."""

    name = "detoxify"

    def load(self, path: Path, device: str, options: Mapping[str, Any]) -> _Classifier:
        import transformers

        checkpoints = sorted(path.glob("*.ckpt"))
        if len(checkpoints) > 1:
            names = ", ".join(c.name for c in checkpoints)
            raise FailedPrecondition(f"{path} holds several Detoxify checkpoints ({names})")
        try:
            tokenizer = transformers.AutoTokenizer.from_pretrained(path, local_files_only=True)
            if checkpoints:
                model = self._from_checkpoint(path, checkpoints[0])
            else:
                model = transformers.AutoModelForSequenceClassification.from_pretrained(
                    path, local_files_only=True
                )
        except (OSError, ValueError, KeyError, AttributeError, pickle.UnpicklingError) as exc:
            raise _transformers_error(path, "the Detoxify model", exc) from exc
        if model.config.num_labels < len(DETOXIFY_SCORES):
            raise FailedPrecondition(
                f"the Detoxify model in {path} has {model.config.num_labels} outputs; "
                f"FMEval reads the first {len(DETOXIFY_SCORES)}"
            )
        return _Classifier(model.to(device).eval(), tokenizer, _max_tokens(tokenizer, model.config))

    @staticmethod
    def _from_checkpoint(path: Path, checkpoint: Path) -> Any:
        import torch
        import transformers

        # Only tensors and plain data: a checkpoint never runs code when evald loads it.
        loaded = torch.load(checkpoint, map_location="cpu", weights_only=True)
        args = loaded["config"]["arch"]["args"]
        model_class = getattr(transformers, str(args["model_name"]))
        # The directory's config stands for the checkpoint's base model (roberta-base), with
        # the checkpoint's class count, as Detoxify and FMEval build it.
        config = transformers.AutoConfig.from_pretrained(
            path, num_labels=int(args["num_classes"]), local_files_only=True
        )
        model, info = model_class.from_pretrained(
            None, config=config, state_dict=loaded["state_dict"], output_loading_info=True
        )
        if info["missing_keys"]:
            # from_pretrained would start those weights at random: not the detector's scores.
            missing = ", ".join(sorted(info["missing_keys"])[:3])
            raise FailedPrecondition(f"{checkpoint} lacks weights of the classifier ({missing})")
        return model

    def forward(
        self, state: _Classifier, items: Sequence[Any], options: Mapping[str, Any]
    ) -> list[dict[str, float]]:
        import torch

        scores = torch.sigmoid(state.logits(items)).cpu().tolist()
        return [dict(zip(DETOXIFY_SCORES, row, strict=False)) for row in scores]


class ToxigenKind:
    """ToxiGen's RoBERTa sequence classifier (a transformers model directory), scored as the
    text-classification pipeline's top label is read by FMEval."""

    name = "toxigen"

    def load(self, path: Path, device: str, options: Mapping[str, Any]) -> _Classifier:
        import transformers

        try:
            tokenizer = transformers.AutoTokenizer.from_pretrained(path, local_files_only=True)
            model = transformers.AutoModelForSequenceClassification.from_pretrained(
                path, local_files_only=True
            )
        except (OSError, ValueError, KeyError) as exc:
            raise _transformers_error(path, "the ToxiGen model", exc) from exc
        return _Classifier(model.to(device).eval(), tokenizer, _max_tokens(tokenizer, model.config))

    def forward(
        self, state: _Classifier, items: Sequence[Any], options: Mapping[str, Any]
    ) -> list[dict[str, float]]:
        import torch

        config = state.model.config
        logits = state.logits(items)
        # The pipeline's default: a sigmoid for one label or multi-label models, else softmax.
        if config.problem_type == "multi_label_classification" or config.num_labels == 1:
            probabilities = torch.sigmoid(logits)
        else:
            probabilities = torch.softmax(logits, dim=-1)
        top, index = probabilities.max(dim=-1)
        results = []
        for score, label in zip(top.cpu().tolist(), index.cpu().tolist(), strict=True):
            # FMEval keeps the top label's score when it is LABEL_1, else takes its complement.
            toxic = config.id2label[label] == TOXIGEN_TOXIC_LABEL
            results.append({"toxicity": score if toxic else 1.0 - score})
        return results


@dataclass(frozen=True)
class Detector:
    kind: str
    model: str
    """The checkpoint FMEval uses, as a name under the models directory."""
    scores: tuple[str, ...]


DETECTORS = {
    "detoxify": Detector(
        f"{__name__}:DetoxifyKind", "unitary/unbiased-toxic-roberta", DETOXIFY_SCORES
    ),
    "toxigen": Detector(f"{__name__}:ToxigenKind", "tomh/toxigen_roberta", TOXIGEN_SCORES),
}
DEFAULT_DETECTOR = "detoxify"
"""FMEval's default ``model_type``."""


class Toxicity(Metric):
    """The response's toxicity as FMEval's detectors score it."""

    name = "fmeval/toxicity"
    family = "fmeval"
    # The default detector's; DETECTORS holds the other's.
    model_kind = DETECTORS[DEFAULT_DETECTOR].kind
    default_model = DETECTORS[DEFAULT_DETECTOR].model
    definition = (
        "The response scored by FMEval's toxicity detector, run offline from the models "
        "directory (FAILED_PRECONDITION naming the model and where evald looked when it is "
        "missing). `detoxify` (default): Detoxify's unbiased RoBERTa classifier "
        "(`unitary/unbiased-toxic-roberta`; Detoxify's `toxic_debiased-c7548aa0.ckpt` is "
        "used when placed in that folder); the sigmoid of each of its first seven outputs, "
        "named `toxicity`, `severe_toxicity`, `obscene`, `identity_attack`, `insult`, "
        "`threat`, `sexual_explicit`. `toxigen`: ToxiGen's RoBERTa classifier "
        "(`tomh/toxigen_roberta`); `toxicity` is the softmax probability of the top label when "
        "that label is `LABEL_1`, else 1 minus it (the text-classification pipeline read as "
        "FMEval reads it). Inputs longer than the encoder takes (512 tokens) are truncated. "
        "`score` picks which score is the result; the explanation lists every score of the "
        "detector as JSON, `toxicity` first."
    )
    parameters = (
        Parameter("detector", "choice", "toxicity detector", DEFAULT_DETECTOR, tuple(DETECTORS)),
        Parameter(
            "model",
            "string",
            "model folder under the models directory, or an absolute path (default: the "
            "detector's, `unitary/unbiased-toxic-roberta` or `tomh/toxigen_roberta`)",
        ),
        Parameter("score", "choice", "which score to return", "toxicity", DETOXIFY_SCORES),
    )
    score_range = "0..1"

    async def evaluate_named(
        self, params: Params, instance: InstanceView, call: Call, path: str
    ) -> Outcome:
        name = params.choice("detector")
        detector = DETECTORS[name]
        which = params.choice("score")
        if which not in detector.scores:
            given = ", ".join(detector.scores)
            raise InvalidArgument(params.field("score"), f"the {name} detector gives only: {given}")
        model = params.values.get("model")
        if model is None:  # unset (a Struct's null is unset too)
            model = detector.model
        if not isinstance(model, str) or not model:
            raise InvalidArgument(params.field("model"), "must be a non-empty string")
        text = instance.require("response")
        models = call.services.models
        if models is None:
            raise FailedPrecondition("this server runs no model-backed metrics")
        (scores,) = await models.run(
            ModelRequest(detector.kind, model), [text], deadline=call.deadline
        )
        return Outcome(scores[which], json.dumps(scores))
