"""comet_input: COMET-22 (``Unbabel/wmt22-comet-da``), a learned score of a translation given its
source and a reference; about 0..1, higher is better.

COMET encodes the source, the translation (``prediction``) and the reference separately with
XLM-R, mixes the encoder's layers with learned weights (sparsemax over the layers for COMET-22),
averages the mix over each segment's tokens, and feeds ``[mt, ref, mt*ref, |mt-ref|, mt*src,
|mt-src|]`` to a feed-forward estimator whose single output is the score. Scores are those of
the reference package (unbabel-comet 2.2.7): ``tests/unit/metrics/computed/test_comet.py``
compares them on a tiny checkpoint the package scored.

The model is a COMET checkpoint folder as the Hub serves it (``checkpoints/model.ckpt`` and
``hparams.yaml``) plus the encoder its ``pretrained_model`` names (``xlm-roberta-large``: its
``config.json`` and tokenizer; the weights come from the checkpoint), both under the models
directory. ``source_language`` and ``target_language`` are accepted and change nothing: COMET-22
reads no language codes.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from google.protobuf.message import Message

from evald.call import Call
from evald.errors import FailedPrecondition, FieldViolation, InvalidArgument
from evald.metrics.base import Metric, Outcome
from evald.metrics.instance import InstanceView
from evald.metrics.params import Parameter, Params
from evald.models.base import ModelRequest

VERSIONS = {"COMET_22_SRC_REF": "Unbabel/wmt22-comet-da"}
"""The versions served, by ``CometSpec.CometVersion`` name, and the model of each."""
DEFAULT_VERSION = "COMET_22_SRC_REF"
"""An unset (or UNSPECIFIED) version: the only one Vertex defines."""


class Comet(Metric):
    """COMET-22 of one (source, prediction, reference) triple."""

    input_field = "comet_input"
    result_field = "comet_result"
    model_kind = "evald.metrics.computed.comet:CometKind"
    default_model = VERSIONS[DEFAULT_VERSION]
    required: ClassVar[tuple[str, ...]] = ("prediction", "reference", "source")

    name = "comet"
    family = "vertex"
    definition = (
        "COMET-22 (`Unbabel/wmt22-comet-da`) of the response as a translation of the source "
        "(`other_data.source`, else the prompt) given the reference, as `comet_input` scores "
        "it: about 0..1, higher is better. evald's name for `comet_input` in the Metric API, "
        "dataset jobs and `evald evaluate`."
    )
    parameters = (
        Parameter("version", "choice", "COMET version", DEFAULT_VERSION, tuple(VERSIONS)),
        Parameter("source_language", "string", "accepted; COMET reads no language code", ""),
        Parameter("target_language", "string", "accepted; COMET reads no language code", ""),
    )
    score_range = "about 0..1 (higher is better)"

    async def evaluate_input(self, metric_input: Any, path: str, call: Call) -> Message:
        version_name(
            metric_input.metric_spec, f"{path}.metric_spec.version", "COMET", list(VERSIONS)
        )
        instance = metric_input.instance
        check_present(instance, self.required, f"{path}.instance")
        score = await self.score(call, instance.source, instance.prediction, instance.reference)
        return self.result_class()(score=score)

    async def evaluate_named(
        self, params: Params, instance: InstanceView, call: Call, path: str
    ) -> Outcome:
        params.choice("version")
        source = instance.other_data.get("source") or instance.require("prompt")
        prediction, reference = instance.require("response"), instance.require("reference")
        return Outcome(await self.score(call, source, prediction, reference))

    async def score(self, call: Call, source: str, prediction: str, reference: str) -> float:
        """COMET-22 of one triple, through the server's model runtime."""
        models = call.services.models
        if models is None:
            raise FailedPrecondition("COMET needs the model runtime, which this server lacks")
        assert self.default_model is not None
        assert self.model_kind is not None
        folder = models.resolve(self.default_model)
        name = _ENCODERS.get(folder)
        if name is None:  # read once: the model worker also keeps what it first loaded
            name = _ENCODERS[folder] = await asyncio.to_thread(encoder_name, folder)
        encoder = models.resolve(name)
        request = ModelRequest(self.model_kind, self.default_model, {"encoder": str(encoder)})
        [score] = await models.run(
            request, [(source, prediction, reference)], deadline=call.deadline
        )
        return float(score)


_ENCODERS: dict[Path, str] = {}
"""Each COMET checkpoint folder's encoder name, from its ``hparams.yaml``: parsing that file
on every call cost more CPU than the rest of the call, and a burst of calls queued on the
thread pool instead of filling one forward pass."""


def version_name(spec: Any, field: str, metric: str, served: Sequence[str]) -> str:
    """The version ``spec`` asks for, by enum name (unset or UNSPECIFIED: the first of
    ``served``, the default); InvalidArgument naming ``field`` for one evald does not serve."""
    versions = type(spec).DESCRIPTOR.fields_by_name["version"].enum_type
    number = spec.version if spec.HasField("version") else 0
    value = versions.values_by_number.get(number)
    name = "" if value is None else value.name
    if number == 0:
        return served[0]
    if name not in served:
        known = ", ".join(served)
        raise InvalidArgument(
            field, f"{metric} version {name or number} is not served: use {known}"
        )
    return name


def check_present(instance: Any, fields: Sequence[str], path: str) -> None:
    """InvalidArgument naming every one of ``fields`` the instance lacks (an empty string is
    present)."""
    missing = [
        FieldViolation(f"{path}.{name}", f"required field '{name}' is missing")
        for name in fields
        if not instance.HasField(name)
    ]
    if missing:
        raise InvalidArgument.of(missing)


def encoder_name(folder: Path) -> str:
    """The encoder a COMET checkpoint folder was trained from (``pretrained_model`` of its
    ``hparams.yaml``): looked up under the models directory like the model itself."""
    name = read_hparams(folder).get("pretrained_model")
    if not isinstance(name, str) or not name:
        raise FailedPrecondition(f"{folder / 'hparams.yaml'} names no pretrained_model")
    return name


def read_hparams(folder: Path) -> dict[str, Any]:
    import yaml

    file = folder / "hparams.yaml"
    try:
        hparams = yaml.safe_load(file.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise FailedPrecondition(f"COMET model {folder}: cannot read {file.name}: {exc}") from None
    if not isinstance(hparams, dict):
        raise FailedPrecondition(f"COMET model {folder}: {file.name} is not a mapping")
    return hparams


@dataclass
class CometState:
    """A loaded COMET regression model: the encoder, its tokenizer, the layer mix and the
    estimator."""

    tokenizer: Any
    encoder: Any
    """``transformers.XLMRobertaModel`` without its pooler."""
    layer: int | None
    """The encoder layer embedded (0: the embeddings); None: the learned mix of all of them."""
    mix_weights: Any
    """The mix's weights over the layers, already normalized (sparsemax or softmax)."""
    gamma: Any
    layer_norm: bool
    pool: str
    estimator: Any
    """``torch.nn.Sequential``: the feed-forward on the six features."""
    max_length: int
    device: str


class CometKind:
    """COMET regression models (``class_identifier: regression_metric``), items
    ``(source, prediction, reference)``, one score each."""

    name = "comet"

    def load(self, path: Path, device: str, options: Mapping[str, Any]) -> CometState:
        import torch
        from transformers import AutoConfig, AutoTokenizer, XLMRobertaModel

        hparams = read_hparams(path)
        if hparams.get("class_identifier") != "regression_metric":
            raise FailedPrecondition(
                f"COMET model {path}: class_identifier {hparams.get('class_identifier')!r} is "
                "not served (evald scores regression_metric models such as wmt22-comet-da)"
            )
        checkpoint = path / "checkpoints" / "model.ckpt"
        if not checkpoint.is_file():
            raise FailedPrecondition(f"COMET model {path}: {checkpoint} is missing")
        encoder_dir = Path(options["encoder"])
        tokenizer = AutoTokenizer.from_pretrained(encoder_dir, local_files_only=True)
        config = AutoConfig.from_pretrained(encoder_dir, local_files_only=True)
        encoder: Any = XLMRobertaModel(config, add_pooling_layer=False)
        # Tensors and plain containers only: a checkpoint is read, never run.
        saved = torch.load(checkpoint, map_location="cpu", weights_only=True)
        state = saved.get("state_dict", saved)
        prefix = "encoder.model."
        # Older transformers saved buffers (position ids) that newer ones no longer keep:
        # extra keys are ignored, as the package does; missing ones are an error.
        loaded = encoder.load_state_dict(
            {k.removeprefix(prefix): v for k, v in state.items() if k.startswith(prefix)},
            strict=False,
        )
        if loaded.missing_keys:
            raise FailedPrecondition(
                f"COMET model {path}: the checkpoint lacks encoder weights "
                f"{', '.join(loaded.missing_keys[:3])}"
            )
        layer: int | None = None
        mix_weights, gamma = None, None
        if hparams.get("layer", "mix") == "mix":
            layers = config.num_hidden_layers + 1
            raw = torch.cat(
                [state[f"layerwise_attention.scalar_parameters.{i}"] for i in range(layers)]
            )
            mix_weights = _normalize(raw, str(hparams.get("layer_transformation", "softmax")))
            gamma = state["layerwise_attention.gamma"]
        else:
            layer = int(hparams["layer"])
        estimator = _estimator(hparams, 6 * config.hidden_size)
        estimator.load_state_dict(
            {
                k.removeprefix("estimator.ff."): v
                for k, v in state.items()
                if k.startswith("estimator.ff.")
            }
        )
        encoder.to(device).eval()
        estimator.to(device).eval()
        return CometState(
            tokenizer=tokenizer,
            encoder=encoder,
            layer=layer,
            mix_weights=None if mix_weights is None else mix_weights.to(device),
            gamma=None if gamma is None else gamma.to(device),
            layer_norm=bool(hparams.get("layer_norm", True)),
            pool=str(hparams.get("pool", "avg")),
            estimator=estimator,
            # COMET keeps two positions free beyond the tokenizer's own special tokens.
            max_length=config.max_position_embeddings - 4,
            device=device,
        )

    def forward(
        self, state: CometState, items: Sequence[Any], options: Mapping[str, Any]
    ) -> list[float]:
        import torch

        with torch.inference_mode():
            src, mt, ref = (_embed(state, [str(item[i]) for item in items]) for i in range(3))
            features = torch.cat(
                (mt, ref, mt * ref, torch.abs(mt - ref), mt * src, torch.abs(mt - src)), dim=1
            )
            scores = state.estimator(features).view(-1)
        return [float(score) for score in scores.tolist()]


def _embed(state: CometState, texts: list[str]) -> Any:
    """One sentence embedding per text: the layer (or mix of layers) pooled over its tokens."""

    batch = state.tokenizer(
        texts, return_tensors="pt", padding=True, truncation=True, max_length=state.max_length
    ).to(state.device)
    ids, mask = batch["input_ids"], batch["attention_mask"]
    out = state.encoder(input_ids=ids, attention_mask=mask, output_hidden_states=True)
    layers = out.hidden_states
    if state.layer is not None:
        embeddings = layers[state.layer]
    else:
        parts = [
            weight * (_masked_norm(tensor, mask) if state.layer_norm else tensor)
            for weight, tensor in zip(state.mix_weights, layers, strict=True)
        ]
        embeddings = state.gamma * sum(parts)
    if state.pool == "default":
        return out.last_hidden_state[:, 0, :]
    if state.pool == "cls":
        return embeddings[:, 0, :]
    padding = ids.eq(state.tokenizer.pad_token_id).unsqueeze(-1)
    if state.pool == "max":
        return embeddings.masked_fill(padding, float("-inf")).max(dim=1)[0]
    if state.pool != "avg":
        raise FailedPrecondition(f"COMET pooling {state.pool!r} is not served")
    total = embeddings.masked_fill(padding, 0.0).sum(1)
    return total / mask.unsqueeze(-1).float().sum(1)


def _masked_norm(tensor: Any, mask: Any) -> Any:
    """Each segment's layer normalized by the mean and variance of its unpadded values."""
    import torch

    broadcast = mask.float().unsqueeze(-1)
    batch, _, dim = tensor.size()
    count = mask.float().sum(1) * dim
    masked = tensor * broadcast
    mean = (masked.view(batch, -1).sum(1) / count).view(batch, 1, 1)
    variance = (((masked - mean) * broadcast) ** 2).view(batch, -1).sum(1) / count
    return (tensor - mean) / torch.sqrt(variance + 1e-12).view(batch, 1, 1)


def _normalize(weights: Any, transformation: str) -> Any:
    """The layer mix's weights: sparsemax (COMET-22) or softmax. ``sparsemax_patch`` is how
    the package marks checkpoints trained while its sparsemax silently was a softmax."""
    import torch

    if transformation == "sparsemax":
        return _sparsemax(weights)
    if transformation in ("softmax", "sparsemax_patch"):
        return torch.softmax(weights, dim=0)
    raise FailedPrecondition(f"COMET layer_transformation {transformation!r} is not served")


def _sparsemax(z: Any) -> Any:
    """The Euclidean projection of ``z`` onto the simplex (Martins & Astudillo, 2016)."""
    import torch

    ordered, _ = torch.sort(z, descending=True)
    cumulative = ordered.cumsum(0)
    ranks = torch.arange(1, z.numel() + 1, dtype=z.dtype)
    support = int((1 + ranks * ordered > cumulative).sum())
    threshold = (cumulative[support - 1] - 1) / support
    return torch.clamp(z - threshold, min=0)


def _estimator(hparams: Mapping[str, Any], width: int) -> Any:
    """The feed-forward of the checkpoint: linear, activation, dropout per hidden size, a
    linear to one output, and the final activation if any (module indices as saved)."""
    from torch import nn

    def activation(name: str) -> nn.Module:
        module = getattr(nn, name.title(), None)
        if module is None:
            raise FailedPrecondition(f"COMET activation {name!r} is not served")
        made: nn.Module = module()
        return made

    sizes = [width, *[int(size) for size in hparams.get("hidden_sizes", [3072, 1024])]]
    modules: list[nn.Module] = []
    for fan_in, fan_out in itertools.pairwise(sizes):
        act = activation(str(hparams.get("activations", "Tanh")))
        modules += [nn.Linear(fan_in, fan_out), act, nn.Dropout(0.0)]
    modules.append(nn.Linear(sizes[-1], 1))
    if hparams.get("final_activation"):
        modules.append(activation(str(hparams["final_activation"])))
    return nn.Sequential(*modules)
