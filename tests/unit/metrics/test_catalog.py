"""The catalog: every API entry point served once, declarations checked, extra metric modules
discovered beside the built-in ones."""

from __future__ import annotations

from typing import Any

import pytest
from evald import api
from evald.call import Call
from evald.metrics.base import ComputedNamed, Metric, Outcome
from evald.metrics.catalog import PENDING, ROUTED_SPECS, Catalog, CatalogError, builtin
from evald.metrics.computed.exact_match import ExactMatch
from evald.metrics.instance import InstanceView
from evald.metrics.params import Params

SPEC_MEMBERS = [f.name for f in api.messages.Metric.DESCRIPTOR.oneofs_by_name["metric_spec"].fields]
PLUGIN = "tests.unit.metrics.plugin_metric"


@pytest.mark.parametrize("member", SPEC_MEMBERS)
def test_every_spec_member_is_served(member: str) -> None:
    assert member in builtin().specs or member in ROUTED_SPECS


@pytest.mark.parametrize("member", [f.name for f in api.METRIC_INPUTS.fields])
def test_every_metric_input_is_served_or_pending(member: str) -> None:
    assert (member in builtin().inputs) != (member in PENDING)


@pytest.mark.parametrize("name", sorted(builtin().named))
def test_every_named_metric_is_defined(name: str) -> None:
    metric = builtin().named[name]
    assert metric.name == name
    assert metric.family in ("nemo", "fmeval", "vertex")
    assert len(metric.definition) > 40
    assert len({p.name for p in metric.parameters}) == len(metric.parameters)


def test_required_families_are_present() -> None:
    assert {
        "nemo/string-check",
        "nemo/em",
        "nemo/f1",
        "nemo/accuracy",
        "nemo/bleu",
        "nemo/rouge",
        "nemo/tool-calling",
        "nemo/llm-judge",
        "fmeval/exact_match",
        "fmeval/quasi_exact_match",
        "fmeval/f1_over_words",
        "fmeval/factual_knowledge",
        "fmeval/classification_accuracy",
    } <= set(builtin().named)


def test_one_metric_serves_all_its_entry_points() -> None:
    catalog = builtin()
    rouge = catalog.inputs["rouge_input"]
    assert catalog.specs["rouge_spec"] is rouge
    assert catalog.computation_types["ROUGE"] is rouge
    assert catalog.named["nemo/rouge"] is rouge


def test_an_alias_is_the_same_metric_under_its_own_name() -> None:
    named = builtin().named
    assert type(named["general_quality_v2"]).__mro__[1] is type(named["general_quality_v1"])
    assert named["general_quality_v2"].name == "general_quality_v2"


def test_extra_modules_are_discovered_beside_the_builtin_metrics() -> None:
    catalog = Catalog.discover([PLUGIN])
    assert catalog.named["example/length_ratio"].family == "example"
    assert set(builtin().named) < set(catalog.named)
    assert set(builtin().inputs) == set(catalog.inputs)


def test_a_module_named_again_is_served_once() -> None:
    catalog = Catalog.discover(["evald.metrics.computed.rouge", PLUGIN, PLUGIN])
    assert set(catalog.inputs) == set(builtin().inputs)
    assert len(catalog.named) == len(builtin().named) + 1


def test_a_missing_extra_module_fails_at_start_up() -> None:
    with pytest.raises(CatalogError, match=r"no_such_metrics.*cannot be imported"):
        Catalog.discover(["tests.unit.metrics.no_such_metrics"])


class Named(ComputedNamed):
    name = "x/one"
    definition = "a metric for the catalog's checks"

    def score_named(self, params: Params, instance: InstanceView) -> Outcome:
        return Outcome(1.0)


class Twin(Named):
    name = "x/one"


class Aliased(Named):
    name = "x/two"
    aliases = ("x/one",)


class NoMethod(Metric):
    name = "x/no-method"


class NoSpecMethod(Metric):
    spec_fields = ("bleu_spec",)


class RoutedSpec(Metric):
    spec_fields = ("predefined_metric_spec",)

    async def evaluate_spec(
        self, which: str, spec: Any, instance: InstanceView, call: Call, path: str
    ) -> Outcome:
        return Outcome(0.0)


class UnknownInput(ExactMatch):
    input_field = "no_such_input"


class TypeWithoutComputation(Named):
    name = "x/typed"
    computation_type = "BLEU"


BAD = [
    ([Named(), Twin()], "x/one is already served by .*Named"),
    ([Named(), Aliased()], "x/one is already served"),
    ([ExactMatch(), ExactMatch()], "exact_match_input is already served"),
    ([NoMethod()], "no evaluate_named"),
    ([NoSpecMethod()], "no evaluate_spec"),
    ([RoutedSpec()], "bad spec predefined_metric_spec"),
    ([UnknownInput()], "unknown input no_such_input"),
    ([TypeWithoutComputation()], "a computation type needs a computed metric"),
]


@pytest.mark.parametrize(("metrics", "message"), BAD, ids=[m for _, m in BAD])
def test_a_bad_declaration_is_refused(metrics: list[Metric], message: str) -> None:
    with pytest.raises(CatalogError, match=message):
        Catalog.of(metrics)
