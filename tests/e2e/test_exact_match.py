"""exact_match end to end over gRPC, both API versions."""

from __future__ import annotations

import grpc
import pytest

from tests.support import MESSAGES, stub

CASES = [
    # (prediction, reference, expected score)
    ("Paris", "Paris", 1.0),
    ("Paris", "paris", 0.0),
    ("Paris ", "Paris", 0.0),
    ("", "", 1.0),
    ("", "x", 0.0),
    ("日本", "日本", 1.0),
]


@pytest.mark.parametrize("version", ["v1beta1", "v1"])
def test_scores_in_instance_order(channel: grpc.Channel, version: str) -> None:
    m = MESSAGES[version]
    request = m.EvaluateInstancesRequest(
        location="projects/p/locations/us-central1",
        exact_match_input=m.ExactMatchInput(
            metric_spec=m.ExactMatchSpec(),
            instances=[m.ExactMatchInstance(prediction=p, reference=r) for p, r, _ in CASES],
        ),
    )
    response = stub(channel, version).EvaluateInstances(request)
    values = response.exact_match_results.exact_match_metric_values
    assert [v.score for v in values] == [expected for *_, expected in CASES]
    assert all(v.HasField("score") for v in values)
