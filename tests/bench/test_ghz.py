"""The ghz configurations and data files under bench/ghz/: what the generator writes, and
what the request message parses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

GHZ = Path(__file__).resolve().parents[2] / "bench" / "ghz"


def test_ghz_files_are_what_the_generator_writes() -> None:
    from bench import ghzdata

    for name, text in ghzdata.files().items():
        assert (GHZ / name).read_text(encoding="utf-8") == text, (
            f"run python -m bench.ghzdata ({name})"
        )


@pytest.mark.parametrize("name", ["exact_match-1", "bleu-100", "rouge-100"])
def test_ghz_data_files_parse_into_the_request_message(name: str) -> None:
    from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as messages
    from google.protobuf import json_format

    data = json.loads((GHZ / f"{name}.data.json").read_text(encoding="utf-8"))
    for item in data if isinstance(data, list) else [data]:
        request = json_format.ParseDict(item, messages.EvaluateInstancesRequest())
        which = request.WhichOneof("metric_inputs")
        assert which is not None
        assert len(getattr(request, which).instances) == (1 if name.startswith("exact") else 100)
    for flavour in ("proto", "reflect"):
        config = json.loads((GHZ / f"{name}.{flavour}.json").read_text(encoding="utf-8"))
        assert (
            config["call"] == "google.cloud.aiplatform.v1beta1.EvaluationService.EvaluateInstances"
        )
        assert config["data-file"] == f"bench/ghz/{name}.data.json"
        assert ("proto" in config) == (flavour == "proto")
        # Calls in flight at the cut-off finish (else ghz counts them as errors), and the
        # connections are 4x the workers of a 2-core server (fewer land unevenly on them).
        assert config["duration-stop"] == "wait"
        assert config["connections"] >= 8


def test_ghz_proto_config_compiles_with_its_import_paths(tmp_path: Path) -> None:
    from importlib import resources

    from grpc_tools import protoc  # type: ignore[import-untyped]

    from bench import ghzdata

    root = Path(__file__).resolve().parents[2]
    config = json.loads((GHZ / "bleu-100.proto.json").read_text(encoding="utf-8"))
    googleapis = ghzdata.googleapis(tmp_path / "googleapis")
    paths = [str(root / p) for p in config["import-paths"] if p != "bench/ghz/googleapis"]
    well_known = str(resources.files("grpc_tools") / "_proto")  # ghz has these built in
    code = protoc.main(
        [
            "protoc",
            *(f"-I{p}" for p in [*paths, str(googleapis), well_known]),
            f"--descriptor_set_out={tmp_path / 'out.pb'}",
            str(root / config["proto"]),
        ]
    )
    assert code == 0
