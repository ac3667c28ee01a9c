"""Deployment files, checked structurally (Docker cannot run here): Dockerfile, compose.yaml,
the Kubernetes manifests and the example config they all use."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from evald.config import Settings
from evald.judges import config as judges_config
from evald.ops.auth import read_keys_file

from tests.support import serving

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).parents[3]
K8S = ROOT / "deploy" / "k8s"


def instructions(dockerfile: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) per Dockerfile instruction, continuation lines joined."""
    joined = re.sub(r"\\\n", " ", dockerfile)
    result = []
    for line in joined.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            result.append((word.upper(), rest.strip()))
    return result


def test_dockerfile_is_multistage_slim_and_non_root() -> None:
    steps = instructions((ROOT / "Dockerfile").read_text(encoding="utf-8"))
    froms = [args for word, args in steps if word == "FROM"]
    assert len(froms) >= 2, "multi-stage: a build stage and a runtime stage"
    assert all("slim" in f for f in froms)
    final = max(i for i, (word, _) in enumerate(steps) if word == "FROM")
    runtime = steps[final:]
    users = [args for word, args in runtime if word == "USER"]
    assert users, "the runtime stage must switch to a non-root user"
    assert users[-1].split(":")[0] not in ("root", "0")
    assert any(word == "HEALTHCHECK" for word, _ in runtime)
    assert any(word == "COPY" and args.startswith("--from=") for word, args in runtime)
    build = steps[:final]
    # The three distributions in one pip command: evald's evald-proto and evald-client
    # requirements are the local ones.
    assert any(
        word == "RUN" and 'pip install ./protos ./client ".[postgres]" ' in args
        for word, args in build
    )
    assert not any(word == "RUN" and "pip install" in args for word, args in runtime)
    entry = next(args for word, args in runtime if word == "ENTRYPOINT")
    assert entry == '["evald", "serve"]'


def test_dockerignore_keeps_the_context_small() -> None:
    ignored = (ROOT / ".dockerignore").read_text(encoding="utf-8").split()
    assert {".git", "tests", ".venv"} <= set(ignored)


def test_compose_file() -> None:
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
    services = compose["services"]
    evald, judge = services["evald"], services["ollama"]
    assert evald["build"] == "."
    assert {p.split(":")[-1] for p in evald["ports"]} == {"50051", "8080", "9090"}
    # Loopback only: publishing on every interface is a choice made in the file, not a default.
    assert all(p.startswith("127.0.0.1:") for p in evald["ports"])
    env = evald["environment"]
    # The key comes from the caller's environment, required (${VAR:?...}): none is committed.
    assert re.fullmatch(r"\$\{EVALD_API_KEY:\?[^}$]+\}", env["EVALD_API_KEYS"])
    assert "secrets" not in evald
    assert "secrets" not in compose
    assert env["EVALD_JUDGE_BACKEND"] == "openai"
    assert env["EVALD_JUDGE_BASE_URL"].startswith("http://ollama:11434/")
    assert judge["image"].startswith("ollama/")
    assert evald["depends_on"]["ollama-pull"]["condition"] == "service_completed_successfully"
    # The config file the service is started with exists and is mounted where it is read.
    config = evald["command"][evald["command"].index("--config") + 1]
    mounts = {v.split(":")[1]: v.split(":")[0] for v in evald["volumes"]}
    assert (ROOT / mounts[config]).is_file()
    settings = Settings.load({"config": ROOT / mounts[config]}, env={})
    assert settings.auth_keys_file is None  # keys from EVALD_API_KEYS


def test_example_keys_file_holds_no_usable_key() -> None:
    with pytest.raises(ValueError, match="sha256 must be 64 hex digits"):
        read_keys_file(ROOT / "deploy" / "keys.example.toml")


def load_k8s() -> dict[tuple[str, str], dict[str, Any]]:
    docs: dict[tuple[str, str], dict[str, Any]] = {}
    for path in sorted(K8S.glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            if doc and "metadata" in doc:
                docs[(doc["kind"], doc["metadata"]["name"])] = doc
    return docs


def test_kustomization_lists_existing_files() -> None:
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text(encoding="utf-8"))
    for resource in kustomization["resources"]:
        assert (K8S / resource).is_file()


@pytest.mark.parametrize(("kind", "name"), [("Deployment", "evald"), ("StatefulSet", "evald-jobs")])
def test_workloads(kind: str, name: str) -> None:
    docs = load_k8s()
    workload = docs[(kind, name)]
    pod = workload["spec"]["template"]["spec"]
    assert workload["spec"]["selector"]["matchLabels"].items() <= (
        workload["spec"]["template"]["metadata"]["labels"].items()
    )
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] != 0
    (container,) = pod["containers"]
    assert container["securityContext"]["allowPrivilegeEscalation"] is False
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports == {"grpc": 50051, "http": 8080, "metrics": 9090}
    for probe in ("readinessProbe", "livenessProbe"):
        # Native gRPC probes on the health service (no exec, no HTTP): the port must be gRPC's.
        assert container[probe]["grpc"]["port"] == ports["grpc"]
    service = container["readinessProbe"]["grpc"].get("service", "")
    assert service in ("", "google.cloud.aiplatform.v1beta1.EvaluationService")
    # Every mounted volume is declared (or claimed), and the config comes from the ConfigMap.
    declared = {v["name"] for v in pod["volumes"]}
    declared |= {c["metadata"]["name"] for c in workload["spec"].get("volumeClaimTemplates", [])}
    assert {m["name"] for m in container["volumeMounts"]} <= declared
    config_volume = next(v for v in pod["volumes"] if v["name"] == "config")
    assert (("ConfigMap", config_volume["configMap"]["name"])) in docs
    assert container["args"] == ["--config", "/etc/evald/evald.toml"]
    # SIGTERM grace: Kubernetes must wait longer than evald lets in-flight calls run.
    settings = configmap_settings(docs)
    assert pod["terminationGracePeriodSeconds"] > settings.grace_seconds


def secret_data(docs: dict[tuple[str, str], dict[str, Any]], name: str) -> dict[str, str]:
    return dict(docs[("Secret", name)]["stringData"])


@pytest.mark.parametrize(("kind", "name"), [("Deployment", "evald"), ("StatefulSet", "evald-jobs")])
def test_judge_key_variable_comes_from_the_judge_secret(
    kind: str, name: str, tmp_path: Path
) -> None:
    """The example judge config names its key by variable; the workload sets that variable
    from the same secret, so the config loads with the environment the pod gets."""
    docs = load_k8s()
    (container,) = docs[(kind, name)]["spec"]["template"]["spec"]["containers"]
    secrets = {n: secret_data(docs, n) for (k, n) in docs if k == "Secret"}
    env: dict[str, str] = {}
    for item in container["env"]:
        if "value" in item:
            env[item["name"]] = item["value"]
        else:
            ref = item["valueFrom"]["secretKeyRef"]
            env[item["name"]] = secrets[ref["name"]][ref["key"]]
    # The judge config is the file the judge secret is mounted as.
    config = Path(env["EVALD_JUDGE_CONFIG"])
    mount = next(m for m in container["volumeMounts"] if config.parent == Path(m["mountPath"]))
    pod = docs[(kind, name)]["spec"]["template"]["spec"]
    volume = next(v for v in pod["volumes"] if v["name"] == mount["name"])
    judge_secret = secrets[volume["secret"]["secretName"]]
    written = tmp_path / config.name
    written.write_text(judge_secret[config.name], encoding="utf-8")
    loaded = judges_config.load(written, None, env)
    assert loaded is not None
    judges = tomllib.loads(judge_secret[config.name])["judges"].values()
    named = {judge.get("api_key_env") for judge in judges}
    assert named - {None} <= env.keys()


def test_workloads_run_the_image_kustomize_tags() -> None:
    """One place sets the tag (kustomization.yaml), the version being released, which is the
    tag the deployment docs build."""
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text(encoding="utf-8"))
    (image,) = kustomization["images"]
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert image["newTag"] == version["version"]
    docs = load_k8s()
    for kind, name in (("Deployment", "evald"), ("StatefulSet", "evald-jobs")):
        (container,) = docs[(kind, name)]["spec"]["template"]["spec"]["containers"]
        assert container["image"] == image["name"]
    operations = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    assert f"docker build -t {image['name']}:{image['newTag']} ." in operations


def configmap_settings(docs: dict[tuple[str, str], dict[str, Any]]) -> Settings:
    text = docs[("ConfigMap", "evald-config")]["data"]["evald.toml"]
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "evald.toml"
        path.write_text(text, encoding="utf-8")
        return Settings.load({"config": path}, env={})


def test_configmap_is_a_valid_config_with_open_health() -> None:
    settings = configmap_settings(load_k8s())
    assert settings.auth_open_health, "kubelet gRPC probes send no credentials"
    assert (settings.port, settings.http_port, settings.metrics_port) == (50051, 8080, 9090)
    assert settings.host == "0.0.0.0"


def test_services_select_pods_and_name_ports() -> None:
    docs = load_k8s()
    pods = [d for (kind, _), d in docs.items() if kind in ("Deployment", "StatefulSet")]
    labels = [d["spec"]["template"]["metadata"]["labels"] for d in pods]
    for (kind, name), doc in docs.items():
        if kind != "Service":
            continue
        selector = doc["spec"]["selector"]
        assert any(selector.items() <= label.items() for label in labels), name
        for port in doc["spec"]["ports"]:
            assert port["targetPort"] in ("grpc", "http", "metrics")
    assert docs[("Service", "evald-grpc")]["spec"]["clusterIP"] == "None"
    hpa = docs[("HorizontalPodAutoscaler", "evald")]
    assert hpa["spec"]["scaleTargetRef"]["name"] == "evald"
    assert docs[("StatefulSet", "evald-jobs")]["spec"]["replicas"] == 1


def test_healthcheck_command_works() -> None:
    """The image's HEALTHCHECK, run against a real server: exit 0 while SERVING."""
    steps = instructions((ROOT / "Dockerfile").read_text(encoding="utf-8"))
    check = next(args for word, args in steps if word == "HEALTHCHECK")
    argv = json.loads(check[check.index("CMD") + 3 :])
    assert argv[:2] == ["python", "-c"]
    with serving() as server:
        code = argv[2].replace("127.0.0.1:50051", server.address)
        assert "127.0.0.1:50051" in argv[2]
        done = subprocess.run([sys.executable, "-c", code], timeout=60, check=False)
    assert done.returncode == 0
