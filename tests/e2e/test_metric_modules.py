"""A metric from a module of the user's, named by ``metric_modules``, served like a built-in one:
evaluated by name over gRPC, listed, its parameters checked; a bad module stops start-up."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from evald.cli.main import main
from evald_proto.evald.v1 import metric_registry_pb2 as pb
from evald_proto.evald.v1 import metric_registry_pb2_grpc as pb_grpc
from google.protobuf import json_format
from google.rpc import error_details_pb2

from tests.support import MESSAGES, serving, stub

PLUGIN = "tests.unit.metrics.plugin_metric"


@pytest.fixture(scope="module")
def channel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[grpc.Channel]:
    data = tmp_path_factory.mktemp("data")
    with (
        serving(data_dir=data, metric_modules=f" {PLUGIN} ,") as server,
        grpc.insecure_channel(server.address) as ch,
    ):
        yield ch


def length_ratio(channel: grpc.Channel, parameters: dict[str, Any]) -> Any:
    """The results of the module's metric and of BLEU on one instance (Metric API: v1beta1)."""
    body = {
        "location": "projects/p/locations/l",
        "metrics": [
            {
                "predefined_metric_spec": {
                    "metric_spec_name": "example/length_ratio",
                    "metric_spec_parameters": parameters,
                }
            },
            {"bleu_spec": {}},
        ],
        "instance": {"response": {"text": "abcdef"}, "reference": {"text": "abcd"}},
    }
    request = json_format.ParseDict(body, MESSAGES["v1beta1"].EvaluateInstancesRequest())
    return stub(channel).EvaluateInstances(request, timeout=10)


CASES = [({}, 1.5), ({"cap": 1.2}, 1.2), ({"cap": 3}, 1.5)]


@pytest.mark.parametrize(("parameters", "expected"), CASES)
def test_the_module_metric_is_served_beside_the_builtin_ones(
    channel: grpc.Channel, parameters: dict[str, Any], expected: float
) -> None:
    ratio, bleu = length_ratio(channel, parameters).metric_results
    assert not ratio.HasField("error")
    assert ratio.score == pytest.approx(expected)
    assert ratio.explanation == "6 / 4 characters"
    assert not bleu.HasField("error")


def test_its_parameters_are_checked(channel: grpc.Channel) -> None:
    (ratio, _) = length_ratio(channel, {"cap": "big"}).metric_results
    assert ratio.error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    bad = error_details_pb2.BadRequest()
    assert ratio.error.details[0].Unpack(bad)
    assert bad.field_violations[0].field == (
        "metrics[0].predefined_metric_spec.metric_spec_parameters.cap"
    )


def test_it_is_listed(channel: grpc.Channel) -> None:
    registry: Any = pb_grpc.MetricRegistryStub(channel)  # type: ignore[no-untyped-call]
    listed = registry.ListPredefinedMetrics(pb.ListPredefinedMetricsRequest(family="example"))
    (metric,) = listed.metrics
    assert metric.name == "example/length_ratio"
    assert [p.name for p in metric.parameters] == ["cap"]
    assert metric.parameters[0].default_json == "2.0"


def test_serve_reports_a_bad_module_before_starting(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    argv = ["serve", "--port", "0", "--data-dir", str(tmp_path)]
    assert main([*argv, "--metric-modules", "tests.no_such_module"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("evald serve: metric module 'tests.no_such_module' cannot be imported")
    assert "Traceback" not in err
