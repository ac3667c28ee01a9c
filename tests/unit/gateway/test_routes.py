"""Routes come from the descriptors' http rules, additional bindings included."""

from __future__ import annotations

import pytest
from evald.gateway.routes import NotAllowed, default_routes, resolve, routes_for

from tests.unit.gateway import fake_service

EVALUATION_ROUTES = {
    # (HTTP method, template) → RPC, as listed in COMPAT.md and the .proto files.
    (
        "POST",
        "/v1beta1/{location=projects/*/locations/*}:evaluateInstances",
    ): "/google.cloud.aiplatform.v1beta1.EvaluationService/EvaluateInstances",
    (
        "POST",
        "/v1beta1:evaluateInstances",
    ): "/google.cloud.aiplatform.v1beta1.EvaluationService/EvaluateInstances",
    (
        "POST",
        "/v1beta1/{location=projects/*/locations/*}:evaluateDataset",
    ): "/google.cloud.aiplatform.v1beta1.EvaluationService/EvaluateDataset",
    (
        "POST",
        "/v1beta1:evaluateDataset",
    ): "/google.cloud.aiplatform.v1beta1.EvaluationService/EvaluateDataset",
    (
        "POST",
        "/v1beta1/{location=projects/*/locations/*}:generateInstanceRubrics",
    ): "/google.cloud.aiplatform.v1beta1.EvaluationService/GenerateInstanceRubrics",
    (
        "POST",
        "/v1beta1:generateInstanceRubrics",
    ): "/google.cloud.aiplatform.v1beta1.EvaluationService/GenerateInstanceRubrics",
    (
        "POST",
        "/v1/{location=projects/*/locations/*}:evaluateInstances",
    ): "/google.cloud.aiplatform.v1.EvaluationService/EvaluateInstances",
    (
        "POST",
        "/v1:evaluateInstances",
    ): "/google.cloud.aiplatform.v1.EvaluationService/EvaluateInstances",
}


REGISTRY_ROUTES = {
    ("GET", "/v1/predefinedMetrics"): "ListPredefinedMetrics",
    ("GET", "/v1beta1/predefinedMetrics"): "ListPredefinedMetrics",
    ("POST", "/v1beta1/{parent=projects/*/locations/*}/evaluationMetrics"): (
        "CreateEvaluationMetric"
    ),
    ("GET", "/v1beta1/{name=projects/*/locations/*/evaluationMetrics/*}"): "GetEvaluationMetric",
    ("GET", "/v1beta1/{parent=projects/*/locations/*}/evaluationMetrics"): "ListEvaluationMetrics",
    ("DELETE", "/v1beta1/{name=projects/*/locations/*/evaluationMetrics/*}"): (
        "DeleteEvaluationMetric"
    ),
}


OPERATIONS_ROUTES = {
    ("GET", "/v1beta1/{name=projects/*/locations/*}/operations"): "ListOperations",
    ("GET", "/v1beta1/{name=projects/*/locations/*/operations/*}"): "GetOperation",
    ("DELETE", "/v1beta1/{name=projects/*/locations/*/operations/*}"): "DeleteOperation",
    ("POST", "/v1beta1/{name=projects/*/locations/*/operations/*}:cancel"): "CancelOperation",
    ("POST", "/v1beta1/{name=projects/*/locations/*/operations/*}:wait"): "WaitOperation",
}


def test_default_routes() -> None:
    routes = {(r.http_method, r.template.source): r for r in default_routes()}
    evaluation = {key: r.rpc for key, r in routes.items() if ".EvaluationService/" in r.rpc}
    assert evaluation == EVALUATION_ROUTES
    assert all(routes[key].body == "*" for key in EVALUATION_ROUTES)
    registry = {
        key: r.rpc.removeprefix("/evald.v1.MetricRegistry/")
        for key, r in routes.items()
        if r.rpc.startswith("/evald.v1.MetricRegistry/")
    }
    assert registry == REGISTRY_ROUTES
    operations = {
        key: r.rpc.removeprefix("/evald.v1.Operations/")
        for key, r in routes.items()
        if r.rpc.startswith("/evald.v1.Operations/")
    }
    assert operations == OPERATIONS_ROUTES
    models = {key: r.rpc for key, r in routes.items() if ".ModelEvaluationService/" in r.rpc}
    assert models == {
        ("POST", "/v1beta1/{location=projects/*/locations/*}:evaluateModel"): (
            "/evald.v1.ModelEvaluationService/EvaluateModel"
        )
    }
    assert len(routes) == (
        len(EVALUATION_ROUTES) + len(REGISTRY_ROUTES) + len(OPERATIONS_ROUTES) + len(models)
    )


RESOLVE = [
    (
        "POST",
        "/v1beta1/projects/p/locations/l:evaluateInstances",
        "v1beta1.EvaluationService/EvaluateInstances",
        {"location": "projects/p/locations/l"},
    ),
    (
        "POST",
        "/v1beta1/projects/p/locations/l/:evaluateInstances",
        "v1beta1.EvaluationService/EvaluateInstances",
        {"location": "projects/p/locations/l"},
    ),
    ("POST", "/v1beta1/:evaluateInstances", "v1beta1.EvaluationService/EvaluateInstances", {}),
    ("POST", "/v1beta1:evaluateDataset", "v1beta1.EvaluationService/EvaluateDataset", {}),
    (
        "POST",
        "/v1/projects/p/locations/l:evaluateInstances",
        "v1.EvaluationService/EvaluateInstances",
        {"location": "projects/p/locations/l"},
    ),
]


@pytest.mark.parametrize(("method", "path", "rpc", "bindings"), RESOLVE)
def test_resolve(method: str, path: str, rpc: str, bindings: dict[str, str]) -> None:
    found = resolve(default_routes(), method, path)
    assert isinstance(found, tuple)
    route, got = found
    assert route.rpc.endswith(rpc)
    assert got == bindings


def test_wrong_method_and_unknown_path() -> None:
    routes = default_routes()
    assert resolve(routes, "GET", "/v1beta1:evaluateInstances") == NotAllowed(("POST",))
    assert resolve(routes, "POST", "/v1/projects/p/locations/l:evaluateDataset") is None
    assert resolve(routes, "POST", "/") is None


def test_a_new_service_needs_no_route_code() -> None:
    routes = routes_for([fake_service.build()])
    table = {(r.http_method, r.template.source, r.body) for r in routes}
    assert table == {
        ("GET", "/v1/{name=things/*}", ""),
        ("GET", "/v1/shelves/{inner.shelf_id}/{name=**}", ""),
        ("PATCH", "/v1/{name=things/*}", "thing"),
        ("PURGE", "/v1/{name=things/*}:purge", "*"),
    }
    found = resolve(routes, "GET", "/v1/shelves/s9/a/b")
    assert isinstance(found, tuple)
    assert found[1] == {"inner.shelf_id": "s9", "name": "a/b"}
    assert resolve(routes, "DELETE", "/v1/things/t") == NotAllowed(("GET", "PATCH"))
