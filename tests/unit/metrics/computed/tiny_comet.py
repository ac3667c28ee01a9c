"""A tiny COMET checkpoint laid out as users download one, built offline from seeded weights.

Imported by the tests and by ``make_comet_cases.py``, which runs the reference package
(unbabel-comet) on the same files in its own environment: it needs only torch, tokenizers and
transformers (4 or 5), and gives the same files under both. Every weight is drawn from a
generator seeded by the parameter's name, so the state does not depend on the order a library
version creates its modules in.
"""

from __future__ import annotations

import itertools
import json
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch
    from tokenizers import Tokenizer

ENCODER = "tiny-xlm-roberta"
"""The encoder's folder under the models directory (``pretrained_model`` in hparams.yaml)."""
CHECKPOINT = "Unbabel/wmt22-comet-da"
"""The COMET model's folder under the models directory (COMET-22's name: the server finds it)."""
SPECIALS = ["<s>", "<pad>", "</s>", "<unk>"]
WORDS = [
    "the",
    "cat",
    "sat",
    "on",
    "mat",
    "dog",
    "a",
    "is",
    "not",
    "le",
    "chat",
    "est",
    "sur",
    "tapis",
    "chien",
    "un",
    "der",
    "die",
    "das",
    "ist",
]
MAX_POSITIONS = 24
"""Small, so a long segment is truncated (COMET keeps max_position_embeddings - 4 tokens)."""

VARIANTS: dict[str, dict[str, Any]] = {
    # COMET-22's own choices (wmt22-comet-da): sparsemax over layers, no layer norm, mean pool.
    "comet22": {"layer_transformation": "sparsemax", "layer_norm": False, "pool": "avg"},
    # The older choices (wmt20/21 models) and a final activation, to cover the other branches.
    "softmax_norm": {
        "layer_transformation": "softmax",
        "layer_norm": True,
        "pool": "avg",
        "final_activation": "Sigmoid",
    },
}


@dataclass(frozen=True)
class Shape:
    """The encoder's and estimator's sizes: tiny by default; the benchmark builds larger ones."""

    hidden: int = 8
    layers: int = 2
    heads: int = 2
    intermediate: int = 16
    positions: int = MAX_POSITIONS
    estimator: tuple[int, ...] = (12, 6)
    words: tuple[str, ...] = tuple(WORDS)


TINY = Shape()


def encoder_config(shape: Shape = TINY) -> dict[str, Any]:
    vocab = len(SPECIALS) + len(shape.words) + 26 + 1  # the words, single letters, <mask>
    return {
        "architectures": ["XLMRobertaForMaskedLM"],
        "model_type": "xlm-roberta",
        "vocab_size": vocab,
        "hidden_size": shape.hidden,
        "num_hidden_layers": shape.layers,
        "num_attention_heads": shape.heads,
        "intermediate_size": shape.intermediate,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1,
        "attention_probs_dropout_prob": 0.1,
        "max_position_embeddings": shape.positions,
        "type_vocab_size": 1,
        "initializer_range": 0.02,
        "layer_norm_eps": 1e-5,
        "pad_token_id": 1,
        "bos_token_id": 0,
        "eos_token_id": 2,
        "position_embedding_type": "absolute",
    }


def tokenizer(words: Sequence[str] = WORDS) -> Tokenizer:
    """A unigram tokenizer shaped like XLM-R's (metaspace, ``<s> A </s>``)."""
    from tokenizers import Tokenizer, decoders, normalizers, pre_tokenizers, processors
    from tokenizers.models import Unigram

    pieces = [(s, 0.0) for s in SPECIALS]
    pieces += [(f"\u2581{w}", -2.0 - i / 10) for i, w in enumerate(words)]
    pieces += [(chr(ord("a") + i), -8.0) for i in range(26)]
    pieces += [("<mask>", 0.0)]
    tok = Tokenizer(Unigram(pieces, unk_id=3, byte_fallback=False))
    tok.normalizer = normalizers.NFKC()
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="\u2581", prepend_scheme="always")
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>",
        pair="<s> $A </s> </s> $B </s>",
        special_tokens=[("<s>", 0), ("</s>", 2)],
    )
    tok.add_special_tokens(["<s>", "<pad>", "</s>", "<unk>", "<mask>"])
    return tok


def hparams(variant: str, shape: Shape = TINY) -> dict[str, Any]:
    base: dict[str, Any] = {
        "activations": "Tanh",
        "batch_size": 4,
        "class_identifier": "regression_metric",
        "dropout": 0.1,
        "encoder_learning_rate": 1e-06,
        "encoder_model": "XLM-RoBERTa",
        "final_activation": None,
        "hidden_sizes": list(shape.estimator),
        "keep_embeddings_frozen": True,
        "layer": "mix",
        "layer_norm": False,
        "layer_transformation": "sparsemax",
        "layerwise_decay": 0.95,
        "learning_rate": 1.5e-05,
        "loss": "mse",
        "nr_frozen_epochs": 0.3,
        "optimizer": "AdamW",
        "pool": "avg",
        "pretrained_model": ENCODER,
        "train_data": [],
        "validation_data": [],
        "warmup_steps": 0,
    }
    return base | VARIANTS[variant]


def state_dict(variant: str, shape: Shape = TINY) -> dict[str, torch.Tensor]:
    """The COMET model's parameters (``encoder.model.*``, ``layerwise_attention.*``,
    ``estimator.ff.*``), each seeded by its name."""
    # Imported here, not at the top: torch and transformers take ~4 s to import, which every
    # test process collecting the COMET tests would pay, whether it runs them or not.
    import torch
    from transformers import XLMRobertaConfig, XLMRobertaModel

    config = encoder_config(shape)
    hp = hparams(variant, shape)
    encoder = XLMRobertaModel(XLMRobertaConfig(**config), add_pooling_layer=False)
    shapes = {f"encoder.model.{k}": tuple(v.shape) for k, v in encoder.state_dict().items()}
    layers = config["num_hidden_layers"] + 1
    shapes |= {f"layerwise_attention.scalar_parameters.{i}": (1,) for i in range(layers)}
    shapes["layerwise_attention.gamma"] = (1,)
    sizes = [6 * config["hidden_size"], *hp["hidden_sizes"], 1]
    for n, (fan_in, fan_out) in enumerate(itertools.pairwise(sizes)):
        shapes[f"estimator.ff.{3 * n}.weight"] = (fan_out, fan_in)
        shapes[f"estimator.ff.{3 * n}.bias"] = (fan_out,)
    state = {}
    for name in sorted(shapes):
        generator = torch.Generator().manual_seed(zlib.crc32(f"{variant}/{name}".encode()))
        scale = 1.0 if "layerwise_attention" in name else 0.5
        state[name] = torch.randn(shapes[name], generator=generator) * scale
    # Persistent buffers of the package's layer mix (used only while training).
    state["layerwise_attention.dropout_mask"] = torch.zeros(layers)
    state["layerwise_attention.dropout_fill"] = torch.full((layers,), -1e20)
    return state


def build(models_dir: Path, variant: str = "comet22", shape: Shape = TINY) -> Path:
    """Write the encoder (config, tokenizer) and the COMET model (``checkpoints/model.ckpt``,
    ``hparams.yaml``) under ``models_dir``; the COMET model's folder."""
    import torch  # see state_dict

    encoder = models_dir / ENCODER
    encoder.mkdir(parents=True, exist_ok=True)
    (encoder / "config.json").write_text(json.dumps(encoder_config(shape), indent=2))
    tokenizer(shape.words).save(str(encoder / "tokenizer.json"))
    (encoder / "tokenizer_config.json").write_text(
        json.dumps(
            {
                "tokenizer_class": "XLMRobertaTokenizer",
                "bos_token": "<s>",
                "eos_token": "</s>",
                "sep_token": "</s>",
                "cls_token": "<s>",
                "unk_token": "<unk>",
                "pad_token": "<pad>",
                "mask_token": "<mask>",
                "model_max_length": shape.positions - 2,
            }
        )
    )
    model = models_dir / CHECKPOINT if variant == "comet22" else models_dir / f"tiny/{variant}"
    (model / "checkpoints").mkdir(parents=True, exist_ok=True)
    # hparams.yaml as the package writes it: one "key: value" per line, lists as "- item".
    lines = []
    for key, value in sorted(hparams(variant, shape).items()):
        if isinstance(value, list):
            lines.append(f"{key}:" + ("" if value else " []"))
            lines += [f"- {item}" for item in value]
        else:
            text = (
                "null"
                if value is None
                else str(value).lower()
                if isinstance(value, bool)
                else value
            )
            lines.append(f"{key}: {text}")
    (model / "hparams.yaml").write_text("\n".join(lines) + "\n")
    checkpoint = {
        "state_dict": state_dict(variant, shape),
        "hyper_parameters": hparams(variant, shape),
        "epoch": 0,
        "global_step": 0,
        "pytorch-lightning_version": "2.6.6",
    }
    torch.save(checkpoint, model / "checkpoints" / "model.ckpt")
    return model
