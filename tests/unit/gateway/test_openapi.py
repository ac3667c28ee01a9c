"""The OpenAPI document: paths from the http rules, schemas from the messages."""

from __future__ import annotations

from typing import Any

import pytest
from evald.gateway import openapi
from evald.gateway.routes import default_routes, routes_for

from tests.unit.gateway import fake_service

DOC = openapi.document(default_routes())


def refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if "$ref" in node else []
        return found + [r for value in node.values() for r in refs(value)]
    if isinstance(node, list):
        return [r for value in node for r in refs(value)]
    return []


def test_paths() -> None:
    assert DOC["openapi"].startswith("3.")
    assert set(DOC["paths"]) == {
        "/v1beta1/projects/{projectsId}/locations/{locationsId}:evaluateInstances",
        "/v1beta1:evaluateInstances",
        "/v1beta1/projects/{projectsId}/locations/{locationsId}:evaluateDataset",
        "/v1beta1:evaluateDataset",
        "/v1beta1/projects/{projectsId}/locations/{locationsId}:generateInstanceRubrics",
        "/v1beta1:generateInstanceRubrics",
        "/v1/projects/{projectsId}/locations/{locationsId}:evaluateInstances",
        "/v1:evaluateInstances",
        "/v1/predefinedMetrics",
        "/v1beta1/predefinedMetrics",
        "/v1beta1/projects/{projectsId}/locations/{locationsId}/evaluationMetrics",
        "/v1beta1/projects/{projectsId}/locations/{locationsId}/evaluationMetrics/{evaluationMetricsId}",
        "/v1beta1/projects/{projectsId}/locations/{locationsId}/operations",
        "/v1beta1/projects/{projectsId}/locations/{locationsId}/operations/{operationsId}",
        "/v1beta1/projects/{projectsId}/locations/{locationsId}/operations/{operationsId}:cancel",
        "/v1beta1/projects/{projectsId}/locations/{locationsId}/operations/{operationsId}:wait",
        "/v1beta1/projects/{projectsId}/locations/{locationsId}:evaluateModel",
    }
    operation = DOC["paths"]["/v1/projects/{projectsId}/locations/{locationsId}:evaluateInstances"][
        "post"
    ]
    names = [p["name"] for p in operation["parameters"] if p["in"] == "path"]
    assert names == ["projectsId", "locationsId"]
    body = operation["requestBody"]["content"]["application/json"]["schema"]
    assert body == {
        "$ref": "#/components/schemas/google.cloud.aiplatform.v1.EvaluateInstancesRequest"
    }


def test_every_reference_resolves() -> None:
    schemas = DOC["components"]["schemas"]
    for ref in refs(DOC):
        assert ref.startswith("#/components/schemas/")
        assert ref.removeprefix("#/components/schemas/") in schemas, ref


def test_schemas_follow_the_json_mapping() -> None:
    schemas = DOC["components"]["schemas"]
    request = schemas["google.cloud.aiplatform.v1beta1.EvaluateInstancesRequest"]["properties"]
    assert "exactMatchInput" in request
    assert "exact_match_input" not in request
    assert request["exactMatchInput"]["allOf"] == [
        {"$ref": "#/components/schemas/google.cloud.aiplatform.v1beta1.ExactMatchInput"}
    ]
    assert request["exactMatchInput"]["description"].endswith(
        "(oneof metric_inputs: at most one of its fields is set)"
    )
    value = schemas["google.cloud.aiplatform.v1beta1.ExactMatchMetricValue"]["properties"]
    assert value["score"] == {
        "type": "number",
        "format": "float",
        "description": "Output only. Exact match score.",
        "readOnly": True,
    }
    rouge = schemas["google.cloud.aiplatform.v1beta1.RougeSpec"]["properties"]
    assert rouge["useStemmer"]["type"] == "boolean"
    instances = schemas["google.cloud.aiplatform.v1beta1.BleuInput"]["properties"]["instances"]
    assert instances["type"] == "array"
    comet = schemas["google.cloud.aiplatform.v1beta1.CometSpec"]["properties"]["version"]
    assert comet["enum"] == ["COMET_VERSION_UNSPECIFIED", "COMET_22_SRC_REF"]


def test_wildcards_and_field_bodies() -> None:
    doc = openapi.document(routes_for([fake_service.build()]))
    assert set(doc["paths"]) == {
        "/v1/things/{thingsId}",
        "/v1/shelves/{inner.shelf_id}/{name}",
        "/v1/things/{thingsId}:purge",
    }
    patch = doc["paths"]["/v1/things/{thingsId}"]["patch"]
    schema = patch["requestBody"]["content"]["application/json"]["schema"]
    assert schema == {"$ref": "#/components/schemas/test.things.v1.Thing"}
    assert "requestBody" not in doc["paths"]["/v1/things/{thingsId}"]["get"]


def test_security_schemes_are_the_key_headers() -> None:
    schemes = DOC["components"]["securitySchemes"]
    assert schemes["apiKey"] == {
        "type": "apiKey",
        "in": "header",
        "name": "x-goog-api-key",
        "description": schemes["apiKey"]["description"],
    }
    assert (schemes["bearer"]["type"], schemes["bearer"]["scheme"]) == ("http", "bearer")
    assert DOC["security"] == [{"apiKey": []}, {"bearer": []}]
    open_server = openapi.document(default_routes(), keys_required=False)
    assert open_server["security"] == [{}, {"apiKey": []}, {"bearer": []}]


@pytest.mark.parametrize(
    ("message", "required"),
    [
        ("google.cloud.aiplatform.v1beta1.ExactMatchInput", ["metricSpec", "instances"]),
        ("google.cloud.aiplatform.v1beta1.RougeInput", ["metricSpec", "instances"]),
        ("google.cloud.aiplatform.v1.PointwiseMetricSpec", ["metricPromptTemplate"]),
    ],
)
def test_required_fields_are_the_ones_the_api_marks(message: str, required: list[str]) -> None:
    assert DOC["components"]["schemas"][message]["required"] == required


def test_fields_the_url_fills_are_not_required_in_the_body() -> None:
    """The API marks ``location`` required, but ``/v1beta1/projects/p/locations/l:...`` gives it:
    the body (the whole request) is complete without it."""
    schemas = DOC["components"]["schemas"]
    request = schemas["google.cloud.aiplatform.v1beta1.EvaluateInstancesRequest"]
    assert "location" not in request.get("required", [])
    assert request["properties"]["location"]["description"].startswith("Required.")


def test_every_required_field_is_a_property() -> None:
    for name, schema in DOC["components"]["schemas"].items():
        assert set(schema.get("required", [])) <= set(schema.get("properties", {})), name


def test_descriptions_come_from_the_proto_comments() -> None:
    schemas = DOC["components"]["schemas"]
    request = schemas["google.cloud.aiplatform.v1beta1.EvaluateInstancesRequest"]
    assert request["description"] == "Request message for EvaluationService.EvaluateInstances."
    location = request["properties"]["location"]
    assert location["type"] == "string"
    assert location["description"].startswith("Required. The resource name of the Location")
    rouge = schemas["google.cloud.aiplatform.v1beta1.RougeSpec"]["properties"]["rougeType"]
    assert rouge["description"].startswith("Optional. Supported rouge types")
    operation = DOC["paths"]["/v1beta1:evaluateInstances"]["post"]
    assert operation["description"] == "Evaluates instances based on a given metric."
    described = [s for s in schemas.values() if s.get("description")]
    assert len(described) > len(schemas) * 3 // 4


def test_the_document_is_valid_openapi() -> None:
    from openapi_spec_validator import validate  # a dev dependency

    validate(DOC)
