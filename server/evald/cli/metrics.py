"""The metrics ``evald evaluate --metric`` reaches, derived from the metric catalog, and
``evald metrics list``, which prints them.

A ``--metric`` name reaches one of three kinds of entry point (see :mod:`evald.metrics.base`):

- a computed metric with a Metric API spec of its own (``bleu`` -> ``bleu_spec``);
- a named metric (``predefined_metric_spec.metric_spec_name``: ``general_quality_v1``,
  ``nemo/f1``; ``vertex/NAME`` is accepted for a bare Vertex name);
- a legacy ``metric_inputs`` member (``fluency`` or ``fluency_input`` -> ``fluency_input``),
  whose instance fields are read from the row's columns of the same name (``prediction`` also
  from ``response``, ``baseline_prediction`` also from ``baseline_response``).

A name served by a spec or a named metric and by an input (``bleu``, ``comet``) reaches the
spec or named metric; ``NAME_input`` reaches the input. Custom judge templates come from a file
(``--metric-template NAME=FILE``) and use ``pointwise_metric_spec`` or ``pairwise_metric_spec``.

Exit codes of ``evald metrics list``: 0 done, 2 bad usage.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from dataclasses import dataclass, field
from typing import Any

from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as m
from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor

from evald.metrics.base import Metric
from evald.metrics.catalog import Catalog, builtin
from evald.metrics.computed.base import ComputedMetric

TEMPLATE_INPUTS = ("pointwise_metric_input", "pairwise_metric_input")
"""Inputs that need a prompt template: reached with ``--metric-template`` (as a spec)."""
JUDGE_SPECS = ("pointwise_metric_spec", "pairwise_metric_spec", "llm_based_metric_spec")
COLUMN_ALIASES = {"prediction": ("response",), "baseline_prediction": ("baseline_response",)}
"""Columns also read for an input's instance field when the row lacks the field's own name."""
VERTEX_PREFIX = "vertex/"


@dataclass(frozen=True)
class Entry:
    """One name ``--metric`` takes."""

    name: str
    entry_point: str
    """``bleu_spec``, ``predefined_metric_spec`` or a ``metric_inputs`` member."""
    needs_judge: bool
    family: str = "vertex"
    parameters: list[dict[str, Any]] = field(default_factory=list)
    """Named metrics: ``metric_spec_parameters``; inputs: the fields of their ``metric_spec``."""
    columns: list[str] = field(default_factory=list)
    """Inputs: the instance fields read from the row (named and spec metrics read the row as
    an ``EvaluationInstance``: ``prompt``, ``response``, ``reference`` and other columns)."""
    pairwise: bool = False
    score_range: str = ""
    description: str = ""

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "name": self.name,
            "entry_point": self.entry_point,
            "needs_judge": self.needs_judge,
            "family": self.family,
            "pairwise": self.pairwise,
            "parameters": self.parameters,
            "columns": self.columns,
            "score_range": self.score_range,
            "description": self.description,
        }


def input_message(input_field: str) -> Any:
    """The request message class of a ``metric_inputs`` member."""
    return getattr(m, type(getattr(m.EvaluateInstancesRequest(), input_field)).__name__)


def instance_field(input_field: str) -> Any:
    """The ``instance`` (or repeated ``instances``) field descriptor of an input message."""
    fields = input_message(input_field).DESCRIPTOR.fields_by_name
    return fields.get("instance") or fields["instances"]


def input_judged(metric: Metric) -> bool:
    """Whether a metric input calls a judge: neither computed nor model-backed."""
    return not isinstance(metric, ComputedMetric) and metric.model_kind is None


def input_pairwise(metric: Metric) -> bool:
    """Whether a metric input's verdict is a ``pairwise_choice``."""
    return "pairwise_choice" in type(metric).result_class().DESCRIPTOR.fields_by_name


def entries(catalog: Catalog | None = None) -> list[Entry]:
    """Every name ``--metric`` takes, sorted."""
    catalog = catalog if catalog is not None else builtin()
    found: dict[str, Entry] = {}
    for name, spec in catalog.spec_names().items():
        found[name] = Entry(name, spec, False, description=f"the {spec} of the Metric API")
    for name, metric in catalog.named.items():
        kind = type(metric)
        parameters = [
            {"name": p.name, "kind": p.kind, "description": p.description, "default": p.default}
            for p in kind.parameters
        ]
        found.setdefault(
            name,
            Entry(
                name,
                "predefined_metric_spec",
                kind.needs_judge,
                kind.family,
                parameters,
                score_range=kind.score_range,
                description=kind.definition,
            ),
        )
    for input_field, metric in catalog.inputs.items():
        if input_field in TEMPLATE_INPUTS:
            continue
        spec_field: Any = input_message(input_field).DESCRIPTOR.fields_by_name["metric_spec"]
        instance: Any = instance_field(input_field).message_type
        entry = Entry(
            input_field,
            input_field,
            input_judged(metric),
            parameters=[{"name": f.name, "kind": _kind(f)} for f in spec_field.message_type.fields],
            columns=[f.name for f in instance.fields],
            pairwise=input_pairwise(metric),
            description=f"the legacy {input_field} of EvaluateInstances",
        )
        found[input_field] = entry
        short = input_field.removesuffix("_input")
        if short not in found:
            found[short] = dataclasses.replace(entry, name=short)
    return [found[name] for name in sorted(found)]


def _kind(descriptor: Any) -> str:
    if descriptor.message_type is not None:
        return str(descriptor.message_type.name)
    names = {FieldDescriptor.TYPE_BOOL: "boolean", FieldDescriptor.TYPE_STRING: "string"}
    return names.get(descriptor.type, "number")


def lookup(name: str, catalog: Catalog | None = None) -> Entry | None:
    """The entry a ``--metric`` name reaches (``vertex/NAME`` as ``NAME``), or None."""
    known = {entry.name: entry for entry in entries(catalog)}
    if name in known:
        return known[name]
    bare = name.removeprefix(VERTEX_PREFIX)
    if name.startswith(VERTEX_PREFIX) and "/" not in bare and bare in known:
        entry = known[bare]
        return entry if entry.entry_point == "predefined_metric_spec" else None
    return None


def configured_catalog() -> Catalog:
    """The catalog a server (or an in-process run) with this environment's settings has:
    evald's metrics and those of ``metric_modules`` (``EVALD_METRIC_MODULES`` or the
    ``EVALD_CONFIG`` file). ValueError when a setting or a metric module is bad."""
    from evald.config import Settings

    modules = Settings.load().metric_module_names()
    return Catalog.discover(modules) if modules else builtin()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The subcommands of ``evald metrics``."""
    commands = parser.add_subparsers(dest="metrics_command", required=True)
    listing = commands.add_parser(
        "list",
        help="every name --metric takes, with its entry point and parameters",
        description="Every metric evald evaluate --metric reaches: its entry point on the wire, "
        "whether it calls a judge, its parameters (named metrics: metric_spec_parameters, as "
        'NAME:{"key": value}; legacy inputs: their metric_spec fields, the same way) and, '
        "for legacy inputs, the row columns it reads; with the metrics of metric_modules "
        "(EVALD_METRIC_MODULES). Exit codes: 0 done, 2 bad usage.",
    )
    listing.add_argument("--json", action="store_true", help="one JSON array")


def run(args: argparse.Namespace) -> int:
    """Entry point of ``evald metrics``; returns the exit code."""
    try:
        found = entries(configured_catalog())
    except ValueError as exc:
        print(f"evald metrics: {exc}", file=sys.stderr)
        return 2
    names = {entry.name: entry.entry_point for entry in found}
    if args.json:
        print(json.dumps([entry.to_json() for entry in found], indent=2, ensure_ascii=False))
        return 0
    # NAME_input is listed once, as NAME, when NAME reaches the same input (--json lists both).
    shown = [
        entry
        for entry in found
        if not (
            entry.name == entry.entry_point
            and names.get(entry.name.removesuffix("_input")) == entry.entry_point
        )
    ]
    width = max(len(entry.name) for entry in shown)
    for entry in shown:
        tags = [entry.entry_point]
        if entry.needs_judge:
            tags.append("judge")
        if entry.pairwise:
            tags.append("pairwise")
        line = f"{entry.name.ljust(width)}  {', '.join(tags)}"
        if entry.parameters:
            line += "  parameters: " + ", ".join(p["name"] for p in entry.parameters)
        if entry.columns:
            columns = ["|".join((c, *COLUMN_ALIASES.get(c, ()))) for c in entry.columns]
            line += "  columns: " + ", ".join(columns)
        print(line)
    print(
        "\ncustom judge templates: --metric-template NAME=FILE "
        "(pairwise when the template uses {baseline_model_response})",
        file=sys.stderr,
    )
    return 0


def spec_dict(message: Any) -> dict[str, Any]:
    """A message as JSON with the proto field names (for the report's metric options)."""
    return dict(json_format.MessageToDict(message, preserving_proto_field_name=True))
