"""Call a running evald with the official GAPIC clients over REST *and* gRPC; print JSON.

    python -m tests.official.rest_client GRPC_ADDRESS HTTP_URL  ->  {id: {"rest", "grpc"}}

Each outcome is ``{"response": <proto3 JSON>}`` or ``{"error": <api_core class>, "http": int,
"fields": [first BadRequest field violations]}``. Runs in its own process: the official SDK and
``evald_proto`` cannot be imported together.
"""

from __future__ import annotations

import importlib
import json
import sys
from typing import Any

import grpc
from google.api_core import exceptions
from google.auth.credentials import AnonymousCredentials
from google.protobuf import json_format

from tests.official.cases import BOTH, CASES, LOCATION

EXTRA: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    # id → (versions, request body without location)
    "error/no_metric_input": (BOTH, {}),
    "error/missing_reference": (
        BOTH,
        {"exact_match_input": {"instances": [{"prediction": "x"}]}},
    ),
    "error/pending_comet": (
        BOTH,
        {"comet_input": {"instance": {"prediction": "x", "reference": "x", "source": "x"}}},
    ),
    "error/judge": (BOTH, {"fluency_input": {"instance": {"prediction": "x"}}}),
}


RUBRICS: dict[str, dict[str, Any]] = {
    # GenerateInstanceRubrics (v1beta1 only): a request without contents, and one the server
    # cannot serve for want of a judge.
    "rubrics/no_contents": {"rubric_generation_spec": {"prompt_template": "Checks for {prompt}"}},
    "rubrics/no_judge": {
        "contents": [{"role": "user", "parts": [{"text": "Name three rivers of France."}]}],
        "predefined_rubric_generation_spec": {"metric_spec_name": "general_quality_v1"},
    },
}


def clients(version: str, grpc_address: str, http_url: str) -> dict[str, Any]:
    module = importlib.import_module(f"google.cloud.aiplatform_{version}")
    grpc_transport = importlib.import_module(
        f"google.cloud.aiplatform_{version}.services.evaluation_service.transports.grpc"
    ).EvaluationServiceGrpcTransport
    return {
        "rest": module.EvaluationServiceClient(
            transport="rest",
            client_options={"api_endpoint": http_url},
            credentials=AnonymousCredentials(),  # type: ignore[no-untyped-call]  # unannotated in google-auth
        ),
        "grpc": module.EvaluationServiceClient(
            transport=grpc_transport(channel=grpc.insecure_channel(grpc_address))
        ),
    }


def violation_fields(detail: Any) -> list[str]:
    """BadRequest fields of one detail: a message over gRPC, a JSON dict over REST."""
    if isinstance(detail, dict):
        if detail.get("@type") != "type.googleapis.com/google.rpc.BadRequest":
            return []
        return [v.get("field", "") for v in detail.get("fieldViolations", [])]
    return [v.field for v in getattr(detail, "field_violations", [])]


def outcome(
    client: Any, request: dict[str, Any], method: str = "evaluate_instances"
) -> dict[str, Any]:
    try:
        response = getattr(client, method)(request=request, timeout=60)
    except exceptions.GoogleAPICallError as exc:
        fields = [field for detail in exc.details or [] for field in violation_fields(detail)]
        return {"error": type(exc).__name__, "http": exc.code, "fields": fields}
    return {"response": json_format.MessageToDict(type(response).pb(response))}


def main(grpc_address: str, http_url: str) -> dict[str, Any]:
    report: dict[str, Any] = {}
    by_version = {v: clients(v, grpc_address, http_url) for v in BOTH}
    calls: list[tuple[str, str, dict[str, Any]]] = [
        (
            f"{case.id}-{version}",
            version,
            {case.member: {"metric_spec": case.spec, "instances": case.instances}},
        )
        for case in CASES
        for version in case.versions
    ] + [
        (f"{name}-{version}", version, body)
        for name, (versions, body) in EXTRA.items()
        for version in versions
    ]
    for check, version, body in calls:
        request = {"location": LOCATION, **body}
        report[check] = {
            transport: outcome(client, request) for transport, client in by_version[version].items()
        }
    for name, body in RUBRICS.items():
        request = {"location": LOCATION, **body}
        report[f"{name}-v1beta1"] = {
            transport: outcome(client, request, "generate_instance_rubrics")
            for transport, client in by_version["v1beta1"].items()
        }
    return report


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], sys.argv[2])))
