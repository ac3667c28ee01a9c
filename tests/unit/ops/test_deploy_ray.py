"""The KubeRay manifest of ``--engine ray`` (deploy/k8s/ray/), checked structurally: a
RayCluster whose pods run evald with the ray extra as non-root, kept out of the default
kustomization."""

from __future__ import annotations

from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")

K8S = Path(__file__).parents[3] / "deploy" / "k8s"


def test_raycluster_runs_evald_ray_pods_as_non_root() -> None:
    cluster = yaml.safe_load((K8S / "ray" / "raycluster.yaml").read_text(encoding="utf-8"))
    assert (cluster["apiVersion"], cluster["kind"]) == ("ray.io/v1", "RayCluster")
    pods = [cluster["spec"]["headGroupSpec"]["template"]["spec"]]
    pods += [group["template"]["spec"] for group in cluster["spec"]["workerGroupSpecs"]]
    for pod in pods:
        assert pod["securityContext"]["runAsNonRoot"] is True
        for container in pod["containers"]:
            assert container["image"].startswith("evald-ray:")
            env = {item["name"]: item for item in container.get("env", [])}
            assert env["RAY_USAGE_STATS_ENABLED"]["value"] == "0"
            assert container["resources"]["limits"]["cpu"]


def test_raycluster_is_not_in_the_default_kustomization() -> None:
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text(encoding="utf-8"))
    assert not any("ray" in resource for resource in kustomization["resources"])
