"""``evald jobs list|get|cancel``: dataset jobs (long-running operations) on a server.

Exit codes: 0 done; 1 the call failed (unreachable server, unknown job, ...); 2 bad usage.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as m
from evald_proto.evald.v1 import model_evaluation_pb2
from evald_proto.evald.v1 import operations_pb2 as evald_ops
from google.longrunning import operations_proto_pb2 as lro
from google.protobuf import json_format

from evald import api


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``list``, ``get`` and ``cancel`` subcommands."""
    actions = parser.add_subparsers(dest="action", required=True)
    for action, text in (
        ("list", "list the jobs of a location, newest first"),
        ("get", "show one job: state, progress, results"),
        ("cancel", "stop a running job"),
    ):
        sub = actions.add_parser(action, help=text, description=text)
        sub.add_argument("--server", required=True, metavar="ADDR", help="HOST:PORT of evald")
        sub.add_argument("--json", action="store_true", help="print JSON instead of text")
        if action == "list":
            sub.add_argument(
                "--location", default=api.DEFAULT_LOCATION, help="projects/P/locations/L"
            )
        else:
            sub.add_argument("name", help="operation name, or its ID in --location")
            sub.add_argument(
                "--location", default=api.DEFAULT_LOCATION, help="projects/P/locations/L"
            )


def describe(operation: Any) -> dict[str, Any]:
    """An operation as plain data: name, state, progress, error or output."""

    metadata = evald_ops.EvaluateDatasetOperationMetadata.FromString(operation.metadata.value)
    progress = metadata.progress
    data: dict[str, Any] = {
        "name": operation.name,
        "state": progress.state or ("DONE" if operation.done else "UNKNOWN"),
        "done": operation.done,
        "rows_total": progress.rows_total,
        "rows_done": progress.rows_done,
        "rows_failed": progress.rows_failed,
    }
    if operation.HasField("error"):
        data["error"] = {"code": operation.error.code, "message": operation.error.message}
    if operation.HasField("response"):
        model = model_evaluation_pb2.EvaluateModelResponse()
        if operation.response.Is(model.DESCRIPTOR):
            operation.response.Unpack(model)
            data["output_directory"] = model.output_directory
            data["aggregation"] = json_format.MessageToDict(model.aggregation)
            return data
        response = m.EvaluateDatasetResponse()
        operation.response.Unpack(response)
        data["output_directory"] = response.output_info.gcs_output_directory
        data["aggregation"] = json_format.MessageToDict(response.aggregation_output)
    return data


def run(args: argparse.Namespace) -> int:
    """Entry point of ``evald jobs``; returns the exit code."""
    import grpc

    name = getattr(args, "name", "")
    if name and "/" not in name:
        name = f"{args.location}/operations/{name}"
    with grpc.insecure_channel(args.server) as channel:
        try:
            if args.action == "list":
                call = channel.unary_unary(
                    "/google.longrunning.Operations/ListOperations",
                    request_serializer=lro.ListOperationsRequest.SerializeToString,
                    response_deserializer=lro.ListOperationsResponse.FromString,
                )
                operations, token = [], ""
                while True:
                    page = call(
                        lro.ListOperationsRequest(name=args.location, page_token=token), timeout=30
                    )
                    operations.extend(page.operations)
                    token = page.next_page_token
                    if not token:
                        break
                found = [describe(op) for op in operations]
                _print_list(found, args.json)
            elif args.action == "get":
                call = channel.unary_unary(
                    "/google.longrunning.Operations/GetOperation",
                    request_serializer=lro.GetOperationRequest.SerializeToString,
                    response_deserializer=lro.Operation.FromString,
                )
                data = describe(call(lro.GetOperationRequest(name=name), timeout=30))
                print(json.dumps(data, indent=2) if args.json else _text(data))
            else:
                call = channel.unary_unary(
                    "/google.longrunning.Operations/CancelOperation",
                    request_serializer=lro.CancelOperationRequest.SerializeToString,
                    response_deserializer=lambda raw: raw,
                )
                call(lro.CancelOperationRequest(name=name), timeout=30)
                print(f"cancelling {name}", file=sys.stderr)
        except grpc.RpcError as exc:
            code: Any = exc.code()
            print(f"evald jobs {args.action}: {code.name}: {exc.details()}", file=sys.stderr)
            return 1
    return 0


def _text(data: dict[str, Any]) -> str:
    lines = [f"{key}: {value}" for key, value in data.items() if key != "aggregation"]
    if "aggregation" in data:
        lines.append("aggregation: " + json.dumps(data["aggregation"]))
    return "\n".join(lines)


def _print_list(found: list[dict[str, Any]], as_json: bool) -> None:
    if as_json:
        print(json.dumps(found, indent=2))
        return
    print(f"{'STATE':<10} {'DONE':>8} {'TOTAL':>8} {'FAILED':>7}  NAME")
    for d in found:
        counts = f"{d['rows_done']:>8} {d['rows_total']:>8} {d['rows_failed']:>7}"
        print(f"{d['state']:<10} {counts}  {d['name']}")
