"""Every metric a server serves, found in one discovery pass, and the tables built from what
each metric declares (see :mod:`evald.metrics.base`).

``Catalog.discover()`` walks ``evald.metrics`` and any extra modules or packages (the
``metric_modules`` setting). It refuses, at start-up, a module it cannot import and a metric
that declares an entry point it does not implement, names an unknown request field, or serves
an entry point another metric already serves (:class:`CatalogError`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from types import MappingProxyType

from evald import api
from evald.discovery import concrete_subclasses
from evald.metrics.base import ENTRY_POINTS, Metric
from evald.metrics.computed.base import ComputedMetric

BUILTIN = "evald.metrics"
"""The package of the metrics evald ships."""

PENDING: dict[str, str] = {}
"""Members of ``metric_inputs`` no metric serves yet, and why."""

ROUTED_SPECS = ("computation_based_metric_spec", "predefined_metric_spec")
"""``metric_spec`` members the Metric API routes to a metric by its computation type or name,
rather than serving with one metric."""

_INPUTS = frozenset(f.name for f in api.METRIC_INPUTS.fields)
_RESULTS = frozenset(f.name for f in api.RESPONSE.oneofs_by_name["evaluation_results"].fields)
_SPECS = frozenset(
    f.name for f in api.messages.Metric.DESCRIPTOR.oneofs_by_name["metric_spec"].fields
)
_TYPES = frozenset(api.messages.ComputationBasedMetricSpec.ComputationBasedMetricType.keys()) - {
    "COMPUTATION_BASED_METRIC_TYPE_UNSPECIFIED"
}


class CatalogError(ValueError):
    """A metric module that cannot be imported, or a metric whose declarations are wrong."""


@dataclass(frozen=True)
class Catalog:
    """The metrics of one server, by each entry point."""

    inputs: Mapping[str, Metric]
    """By the ``metric_inputs`` member each reads (``bleu_input``)."""
    specs: Mapping[str, Metric]
    """By the Metric API ``metric_spec`` member each serves (``bleu_spec``)."""
    computation_types: Mapping[str, Metric]
    """By ``ComputationBasedMetricType`` name (``BLEU``)."""
    named: Mapping[str, Metric]
    """By ``metric_spec_name`` and each alias, sorted (``nemo/rouge``)."""
    nemo: Mapping[str, Metric] = field(default_factory=lambda: MappingProxyType({}))
    """By metric ``type`` in NeMo Evaluator API configs (``string-check``)."""

    @classmethod
    def discover(cls, modules: Iterable[str] = ()) -> Catalog:
        """The metrics of ``evald.metrics`` and of ``modules`` (modules or packages)."""
        classes: dict[type[Metric], None] = {}  # a module named twice counts once
        for package in (BUILTIN, *modules):
            try:
                classes.update(dict.fromkeys(concrete_subclasses(package, Metric)))
            except ImportError as exc:
                raise CatalogError(f"metric module {package!r} cannot be imported: {exc}") from exc
        return cls.of(
            kind() for kind in classes if any(point in kind.__dict__ for point in ENTRY_POINTS)
        )

    @classmethod
    def of(cls, metrics: Iterable[Metric]) -> Catalog:
        """The catalog of ``metrics``, each checked (CatalogError on a bad declaration)."""
        inputs: dict[str, Metric] = {}
        specs: dict[str, Metric] = {}
        types: dict[str, Metric] = {}
        named: dict[str, Metric] = {}
        nemo: dict[str, Metric] = {}
        for metric in metrics:
            kind = type(metric)
            where = f"{kind.__module__}.{kind.__qualname__}"
            if kind.input_field is not None:
                _check(kind.input_field in _INPUTS, where, f"unknown input {kind.input_field}")
                _check(kind.result_field in _RESULTS, where, f"unknown result {kind.result_field}")
                _check(_implements(kind, "evaluate_input"), where, "no evaluate_input")
                _add(inputs, kind.input_field, metric, where)
            for spec in kind.spec_fields:
                _check(spec in _SPECS and spec not in ROUTED_SPECS, where, f"bad spec {spec}")
                _check(_implements(kind, "evaluate_spec"), where, "no evaluate_spec")
                _add(specs, spec, metric, where)
            if kind.computation_type is not None:
                _check(kind.computation_type in _TYPES, where, f"bad {kind.computation_type}")
                _check(
                    isinstance(metric, ComputedMetric) and kind.input_field is not None,
                    where,
                    "a computation type needs a computed metric with a metric input",
                )
                _add(types, kind.computation_type, metric, where)
            if kind.name is not None:
                _check(_implements(kind, "evaluate_named"), where, "no evaluate_named")
                for name in (kind.name, *kind.aliases):
                    # An alias gets a subclass of its own name, so messages name what was
                    # asked for.
                    one = metric if name == kind.name else _renamed(kind, name)
                    _add(named, name, one, where)
            if kind.nemo_type is not None:
                _check(_implements(kind, "nemo_params"), where, "no nemo_params")
                _add(nemo, kind.nemo_type, metric, where)
        return cls(
            MappingProxyType(inputs),
            MappingProxyType(specs),
            MappingProxyType(types),
            MappingProxyType(dict(sorted(named.items()))),
            MappingProxyType(dict(sorted(nemo.items()))),
        )

    def computed_inputs(self) -> frozenset[str]:
        """The ``metric_inputs`` members scored locally: they call no judge."""
        return frozenset(
            name for name, metric in self.inputs.items() if isinstance(metric, ComputedMetric)
        )

    def spec_names(self) -> dict[str, str]:
        """Computed metrics with a spec of their own, by the name ``evald evaluate --metric``
        takes (``bleu`` -> ``bleu_spec``)."""
        return {
            spec.removesuffix("_spec"): spec
            for spec, metric in self.specs.items()
            if isinstance(metric, ComputedMetric)
        }


@cache
def builtin() -> Catalog:
    """The catalog of the metrics evald ships (what a server has without ``metric_modules``)."""
    return Catalog.discover()


def _renamed(kind: type[Metric], name: str) -> Metric:
    renamed: type[Metric] = type(kind.__name__, (kind,), {"name": name})
    return renamed()


def _implements(kind: type[Metric], method: str) -> bool:
    return getattr(kind, method) is not getattr(Metric, method)


def _check(ok: bool, where: str, problem: str) -> None:
    if not ok:
        raise CatalogError(f"metric {where}: {problem}")


def _add(table: dict[str, Metric], key: str, metric: Metric, where: str) -> None:
    if key in table:
        other = type(table[key])
        raise CatalogError(
            f"metric {where}: {key} is already served by {other.__module__}.{other.__qualname__}"
        )
    table[key] = metric
