"""Writes ``bench/ghz/``: ghz configs and request data files (``python -m bench.ghzdata``).

The data files are proto3 JSON of ``EvaluateInstancesRequest`` made from the same texts as the
``server`` section, so ghz runs and ``make bench`` load the server alike. The configs exist in
two flavours: ``*.proto.json`` compile the proto files (run from the repository root) and
``*.reflect.json`` ask the server by reflection. The proto files import googleapis' protos,
which ``python -m bench.ghzdata --googleapis`` copies from the installed
googleapis-common-protos package into ``bench/ghz/googleapis/`` (git-ignored).
``tests/bench/test_ghz.py`` checks that the committed files are what this module writes, that
each data file parses into the request message, and that the protos compile with those paths.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import google.api
from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as messages
from google.protobuf import json_format

from bench.server import BATCH, _pairs, batch_request

FOLDER = Path(__file__).parent / "ghz"
CALL = "google.cloud.aiplatform.v1beta1.EvaluationService.EvaluateInstances"
PROTO = "protos/evald_proto/aiplatform/v1beta1/evaluation_service.proto"
DATA_REQUESTS = 10
"""Requests per batch data file (ghz sends them round-robin)."""


def requests() -> dict[str, list[messages.EvaluateInstancesRequest]]:
    """Data file name -> the requests it holds."""
    exact = [
        messages.EvaluateInstancesRequest(
            location="projects/p/locations/l",
            exact_match_input=messages.ExactMatchInput(
                metric_spec=messages.ExactMatchSpec(),
                instances=[messages.ExactMatchInstance(prediction="Paris", reference="Paris")],
            ),
        )
    ]
    texts = _pairs(7, BATCH * DATA_REQUESTS)
    chunks = [texts[i : i + BATCH] for i in range(0, len(texts), BATCH)]
    return {
        "exact_match-1.data.json": exact,
        "bleu-100.data.json": [batch_request("bleu", chunk) for chunk in chunks],
        "rouge-100.data.json": [batch_request("rouge", chunk) for chunk in chunks],
    }


RUNS = {
    # name: (data file, total calls, concurrency, connections)
    "exact_match-1": ("exact_match-1.data.json", 50_000, 64, 8),
    "bleu-100": ("bleu-100.data.json", 2_000, 8, 8),
    "rouge-100": ("rouge-100.data.json", 5_000, 8, 8),
}
"""Sized for `evald serve --workers 0` on 2 cores with ghz on the same machine: each run ends
in about 15 s (exact_match ~3,000 calls/s, BLEU ~140, ROUGE-L ~500), well inside
:data:`MAX_DURATION`. Connections are 4x the 2 workers: the kernel hands each new connection to
one worker, and few connections can land unevenly (4 over 2 workers landed 2+2, 3+1 or 4+0)."""
MAX_DURATION = "60s"
"""A bound for slower machines. ``duration-stop: wait`` lets the calls in flight at the
cut-off finish: by default ghz cancels them and counts them as errors the server never made."""


def configs() -> dict[str, dict[str, Any]]:
    """Config file name -> ghz config (ghz's JSON config keys)."""
    result: dict[str, dict[str, Any]] = {}
    for name, (data, total, concurrency, connections) in RUNS.items():
        common: dict[str, Any] = {
            "call": CALL,
            "host": "127.0.0.1:50051",
            "insecure": True,
            "total": total,
            "concurrency": concurrency,
            "connections": connections,
            "max-duration": MAX_DURATION,
            "duration-stop": "wait",
            "data-file": f"bench/ghz/{data}",
        }
        result[f"{name}.proto.json"] = {
            "proto": PROTO,
            "import-paths": ["protos", "bench/ghz/googleapis"],
            **common,
        }
        result[f"{name}.reflect.json"] = dict(common)
    return result


def files() -> dict[str, str]:
    """Every generated file's name and text."""
    out = {
        name: json.dumps(
            [json_format.MessageToDict(r) for r in rs]
            if len(rs) > 1
            else json_format.MessageToDict(rs[0]),
            indent=1,
        )
        + "\n"
        for name, rs in requests().items()
    }
    out.update({name: json.dumps(config, indent=2) + "\n" for name, config in configs().items()})
    return out


def googleapis(target: Path) -> Path:
    """Copy googleapis' ``google/{api,rpc,longrunning}`` protos from the installed package into
    ``target``, under the names the proto files import; returns ``target``."""
    common = Path(next(iter(google.api.__path__))).parent.parent
    for package in ("api", "rpc", "longrunning"):
        for proto in (common / "google" / package).glob("*.proto"):
            destination = target / "google" / package / proto.name
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(proto, destination)
    # The package ships google/longrunning/operations.proto as operations_proto.proto.
    longrunning = target / "google" / "longrunning"
    shutil.copyfile(longrunning / "operations_proto.proto", longrunning / "operations.proto")
    return target


def main(argv: list[str]) -> None:
    """Write the files into ``bench/ghz/``; with ``--googleapis`` also its googleapis/ folder."""
    for name, text in files().items():
        (FOLDER / name).write_text(text, encoding="utf-8")
        print(FOLDER / name)
    if "--googleapis" in argv:
        print(googleapis(FOLDER / "googleapis"))


if __name__ == "__main__":
    main(sys.argv[1:])
