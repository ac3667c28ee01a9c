"""The prompt sets of the predefined judge metrics (``prompts`` in the judge config).

- ``evald`` (default): evald's own prompts, written in :mod:`evald.metrics.judged`.
- ``vertex-sdk``: for the ten metrics with a published analogue, the metric prompt templates the
  Vertex AI SDK publishes (``vertexai/evaluation/metrics/_default_templates.py`` of
  google-cloud-aiplatform, also exposed as ``MetricPromptTemplateExamples``), read at run time
  from the installed package (the optional extra ``evald[vertex-sdk-prompts]``). evald ships none
  of their text. The other four metrics keep evald's prompts.

The module file is read on its own rather than imported as part of the SDK, whose package
imports take seconds; it holds nothing but the template strings.
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import re
from collections.abc import Mapping
from importlib.machinery import ModuleSpec
from pathlib import Path

from evald.judges.spec import ConfigError

EVALD = "evald"
VERTEX_SDK = "vertex-sdk"
PROMPT_SETS = (EVALD, VERTEX_SDK)
EXTRA = "evald[vertex-sdk-prompts]"
DISTRIBUTION = "google-cloud-aiplatform"
MODULE = "vertexai/evaluation/metrics/_default_templates.py"
"""Where the published templates live, relative to the installed packages."""

TEMPLATES: Mapping[str, str] = {
    "fluency_input": "FLUENCY_PROMPT_TEMPLATE",
    "coherence_input": "COHERENCE_PROMPT_TEMPLATE",
    "safety_input": "SAFETY_PROMPT_TEMPLATE",
    "groundedness_input": "GROUNDEDNESS_PROMPT_TEMPLATE",
    "fulfillment_input": "INSTRUCTION_FOLLOWING_PROMPT_TEMPLATE",
    "summarization_quality_input": "SUMMARIZATION_QUALITY_PROMPT_TEMPLATE",
    "summarization_verbosity_input": "VERBOSITY_PROMPT_TEMPLATE",
    "question_answering_quality_input": "QUESTION_ANSWERING_QUALITY_PROMPT_TEMPLATE",
    "pairwise_summarization_quality_input": "PAIRWISE_SUMMARIZATION_QUALITY_PROMPT_TEMPLATE",
    "pairwise_question_answering_quality_input": (
        "PAIRWISE_QUESTION_ANSWERING_QUALITY_PROMPT_TEMPLATE"
    ),
}
"""The predefined metric input -> the name of its published template in the SDK module."""

PAIRWISE = frozenset(name for name in TEMPLATES if name.startswith("pairwise_"))
VARIABLES = frozenset({"prompt", "response", "baseline_model_response"})
"""The placeholders the published templates use: the user input, the (candidate) response and,
for pairwise, the baseline response (Response A)."""
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def check(name: object, where: str = "prompts") -> str:
    """A ``prompts`` setting (read from ``where``), validated; ``vertex-sdk`` also needs the
    templates installed."""
    value = name.strip().lower() if isinstance(name, str) else None
    if value not in PROMPT_SETS:
        raise ConfigError(f"{where} must be one of {list(PROMPT_SETS)}, got {name!r}")
    if value == VERTEX_SDK:
        vertex_sdk_templates()
    return value


@functools.cache
def vertex_sdk_templates() -> Mapping[str, str]:
    """The published template of every metric of :data:`TEMPLATES`, by metric input name.

    ConfigError (naming the extra to install) when google-cloud-aiplatform is not installed, or
    when its templates are not where, or not what, evald expects.
    """
    path = _module_path()
    spec = importlib.util.spec_from_file_location("evald_vertex_sdk_templates", path)
    if spec is None or spec.loader is None:
        raise ConfigError(f"prompts = '{VERTEX_SDK}': cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        raise ConfigError(f"prompts = '{VERTEX_SDK}': cannot load {path}: {exc}") from None
    templates: dict[str, str] = {}
    for metric, constant in TEMPLATES.items():
        text = getattr(module, constant, None)
        if not isinstance(text, str):
            raise ConfigError(
                f"prompts = '{VERTEX_SDK}': {DISTRIBUTION} {sdk_version()} has no {constant} in "
                f"{MODULE}; install a version that has ({EXTRA})"
            )
        used = set(_PLACEHOLDER.findall(text))
        needed = {"response", "baseline_model_response"} if metric in PAIRWISE else {"response"}
        if not used <= VARIABLES or not needed <= used:
            raise ConfigError(
                f"prompts = '{VERTEX_SDK}': {constant} of {DISTRIBUTION} {sdk_version()} uses "
                f"placeholders {sorted(used)}; evald fills {sorted(VARIABLES)}"
            )
        templates[metric] = text
    return templates


def _module_path() -> Path:
    missing = ConfigError(
        f"prompts = '{VERTEX_SDK}' reads the published templates from an installed "
        f"{DISTRIBUTION}, which is missing: pip install '{EXTRA}'"
    )
    spec = find_vertexai()
    if spec is None or not spec.submodule_search_locations:
        raise missing
    for root in spec.submodule_search_locations:
        path = Path(root).parent / MODULE
        if path.is_file():
            return path
    raise ConfigError(
        f"prompts = '{VERTEX_SDK}': {DISTRIBUTION} {sdk_version()} has no {MODULE}; "
        f"install a version that has ({EXTRA})"
    )


def find_vertexai() -> ModuleSpec | None:
    """Where the installed ``vertexai`` package is (None if it is not), without importing it."""
    try:
        return importlib.util.find_spec("vertexai")
    except (ImportError, ValueError):
        return None


def sdk_version() -> str:
    """The installed google-cloud-aiplatform's version ("unknown" if its metadata is missing)."""
    try:
        return importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def fill(template: str, values: Mapping[str, str]) -> str:
    """``template`` with each ``{name}`` of ``values`` replaced in one pass (inserted text is not
    expanded again; other braces stay as they are)."""
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def user_prompt(fields: Mapping[str, str]) -> str:
    """The published templates' ``{prompt}`` (the user input) from an instance's fields: the
    instruction, then the context, then the reference (only present when ``use_reference`` is
    set), separated by blank lines. The context and reference are introduced by a ``Context:`` /
    ``Reference:`` line unless the context is the only part. An instance with none of them (fluency,
    coherence, safety) gives an empty user input."""
    parts = [fields["instruction"]] if fields.get("instruction") else []
    if fields.get("context"):
        parts.append(f"Context:\n{fields['context']}" if parts else fields["context"])
    if fields.get("reference"):
        parts.append(f"Reference:\n{fields['reference']}")
    return "\n\n".join(parts)
