"""What a model-backed metric asks of the model runtime.

A metric names a :class:`ModelKind` (how one family of models loads and runs a batch) by its
import path, the model (a name under the models directory, or a path), and options; it
awaits :meth:`Models.run` with its items and gets one result per item. The runtime finds the
model offline (a missing one is FAILED_PRECONDITION naming it and where evald looked), loads it
once, batches concurrent calls, and never runs inference on the event loop.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from evald.errors import FailedPrecondition


class ModelKind(Protocol):
    """One family of models (BERTScore's encoders, Detoxify, ...): runs in a model worker."""

    name: str
    """Short name for errors, logs and ``evald models list`` (``bertscore``)."""

    def load(self, path: Path, device: str, options: Mapping[str, Any]) -> Any:
        """The loaded model of ``path`` on ``device`` (``cpu``, ``cuda``, ``cuda:1``); raises
        ``evald.errors.FailedPrecondition`` for files it cannot use."""
        ...  # pragma: no cover

    def forward(self, state: Any, items: Sequence[Any], options: Mapping[str, Any]) -> list[Any]:
        """One result per item, for a batch (picklable in and out)."""
        ...  # pragma: no cover


def kind_of(reference: str) -> ModelKind:
    """The kind at ``module:Class`` (instantiated with no arguments)."""
    module, _, name = reference.partition(":")
    kind: ModelKind = getattr(importlib.import_module(module), name)()
    return kind


@dataclass(frozen=True)
class ModelRequest:
    """Which model to run: the kind (``module:Class``), the model and its load options."""

    kind: str
    model: str
    """A name under the models directory (``roberta-large``, ``unitary/unbiased-toxic-roberta``)
    or an absolute path."""
    options: Mapping[str, Any] = field(default_factory=dict)
    """Options that change the loaded state (a layer to cut the encoder at, ...): part of the
    loaded model's identity."""


class Models(Protocol):
    """The model runtime of a server (or of the command line)."""

    async def run(
        self,
        request: ModelRequest,
        items: Sequence[Any],
        *,
        options: Mapping[str, Any] | None = None,
        deadline: float | None = None,
    ) -> list[Any]:
        """One result per item; ``options`` reach :meth:`ModelKind.forward` (items with
        different forward options are never batched together); ``deadline`` is a
        ``time.monotonic()`` value the call gives up at (DEADLINE_EXCEEDED), also while queued."""
        ...  # pragma: no cover

    def resolve(self, model: str) -> Path:
        """The directory of ``model``; FailedPrecondition naming the model and where evald
        looked when it is not there."""
        ...  # pragma: no cover


MODELS_DIR_SOURCES = "--models-dir or EVALD_MODELS_DIR"
"""Where the models directory is set, for messages."""

WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".ckpt", ".onnx", ".gguf")
"""Files that hold a model's weights."""
CONFIG_NAMES = ("config.json", "hparams.yaml", "config.yaml")
"""Files that describe a model (Hugging Face, COMET)."""


def model_candidates(models_dir: Path | None, model: str) -> list[Path]:
    """Where ``model`` is looked for: itself if it is an absolute path, else under
    ``models_dir``."""
    path = Path(model)
    if path.is_absolute():
        return [path]
    return [] if models_dir is None else [models_dir / model]


def resolve_model(models_dir: Path | None, model: str) -> Path:
    """The directory of ``model``; FailedPrecondition naming the model and every place looked."""
    candidates = model_candidates(models_dir, model)
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    if candidates:
        where = ", ".join(str(c) for c in candidates)
        hint = "" if Path(model).is_absolute() else f" (the models directory, {MODELS_DIR_SOURCES})"
        raise FailedPrecondition(f"model {model!r} not found: looked in {where}{hint}")
    raise FailedPrecondition(
        f"model {model!r} not found: no models directory is set ({MODELS_DIR_SOURCES})"
    )


def model_present(path: Path) -> bool:
    """Whether ``path`` looks loadable: a directory holding a config or weights file (at any
    depth: COMET keeps its checkpoint under ``checkpoints/``)."""
    if not path.is_dir():
        return False
    for file in path.rglob("*"):
        if file.name in CONFIG_NAMES or file.suffix in WEIGHT_SUFFIXES:
            return True
    return False


@dataclass(frozen=True)
class KnownModel:
    """The default model of one model-backed metric."""

    metric: str
    """The metric's name (its ``metric_spec_name``, else its metric input)."""
    kind: str
    """Its :class:`ModelKind` reference (``module:Class``)."""
    model: str
    """Its default model (a name under the models directory, or a path)."""


def known_models(modules: Sequence[str] = ()) -> list[KnownModel]:
    """The default model of each model-backed metric of the catalog (the built-in metrics and
    ``modules``): metrics that declare ``default_model`` and ``model_kind``."""
    from evald.metrics.catalog import Catalog  # the metrics import this module

    catalog = Catalog.discover(modules)
    metrics = [
        *catalog.inputs.values(),
        *catalog.specs.values(),
        *catalog.named.values(),
        *catalog.nemo.values(),
    ]
    found: dict[str, KnownModel] = {}
    for metric in metrics:
        kind = type(metric)
        if kind.default_model is None or kind.model_kind is None:
            continue
        if kind.name is not None and kind.name in kind.aliases:
            continue  # an alias (a subclass the catalog makes): the metric is listed once
        label = kind.name or kind.input_field or kind.nemo_type or kind.__qualname__
        found.setdefault(label, KnownModel(label, kind.model_kind, kind.default_model))
    return sorted(found.values(), key=lambda known: known.metric)
