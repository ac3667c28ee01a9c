"""Deployment files of the scaled-out setup (replicas on one PostgreSQL), checked structurally:
compose.yaml's postgres service and replicas, and the deploy/k8s-replicas overlay."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).parents[3]
OVERLAY = ROOT / "deploy" / "k8s-replicas"
URL = re.compile(r"postgresql://evald:\$\{EVALD_DB_PASSWORD:\?[^}$]+\}@postgres:5432/evald")


def test_compose_replicas_share_one_database() -> None:
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
    services = compose["services"]
    postgres = services["postgres"]
    assert "ports" not in postgres  # the database is reached inside the compose network only
    assert re.fullmatch(
        r"\$\{EVALD_DB_PASSWORD:\?[^}$]+\}", postgres["environment"]["POSTGRES_PASSWORD"]
    )
    for name in ("evald", "evald-replica"):
        evald = services[name]
        assert URL.fullmatch(evald["environment"]["EVALD_DATABASE_URL"]), name
        assert evald["depends_on"]["postgres"]["condition"] == "service_healthy"
        assert "evald-data:/var/lib/evald" in evald["volumes"]  # datasets and outputs shared
    assert services["evald-replica"]["deploy"]["replicas"] >= 2
    assert "ports" not in services["evald-replica"]


def overlay_docs() -> dict[tuple[str, str], list[dict[str, Any]]]:
    docs: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for path in sorted(OVERLAY.glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            if doc and "metadata" in doc:
                docs.setdefault((doc["kind"], doc["metadata"]["name"]), []).append(doc)
    return docs


def test_the_overlay_adds_the_database_to_every_evald_workload() -> None:
    kustomization = yaml.safe_load((OVERLAY / "kustomization.yaml").read_text(encoding="utf-8"))
    assert "../k8s" in kustomization["resources"]
    for item in [*kustomization["resources"], *(p["path"] for p in kustomization["patches"])]:
        assert (OVERLAY / item).exists(), item
    docs = overlay_docs()
    secret = docs[("Secret", "evald-database")][0]["stringData"]
    assert secret["url"].startswith("postgresql://")
    for kind, name in (("StatefulSet", "evald-jobs"), ("Deployment", "evald")):
        patch = next(d for d in docs[(kind, name)] if "template" in d["spec"])
        (container,) = patch["spec"]["template"]["spec"]["containers"]
        (env,) = [e for e in container["env"] if e["name"] == "EVALD_DATABASE_URL"]
        ref = env["valueFrom"]["secretKeyRef"]
        assert (ref["name"], ref["key"]) == ("evald-database", "url")
    jobs = docs[("StatefulSet", "evald-jobs")][0]
    assert jobs["spec"]["replicas"] > 1
    (postgres,) = docs[("StatefulSet", "postgres")][0]["spec"]["template"]["spec"]["containers"]
    password = next(e for e in postgres["env"] if e["name"] == "POSTGRES_PASSWORD")
    assert password["valueFrom"]["secretKeyRef"] == {"name": "evald-database", "key": "password"}
    assert docs[("Service", "postgres")][0]["spec"]["ports"][0]["port"] == 5432
