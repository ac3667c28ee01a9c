"""``evald jobs list|get|cancel``: dataset jobs (long-running operations) on a server.

Exit codes: 0 done; 1 the call failed (unreachable server, unknown job, ...); 2 bad usage.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

import grpc
from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as m
from evald_proto.evald.v1 import model_evaluation_pb2
from evald_proto.evald.v1 import operations_pb2 as evald_ops
from google.longrunning import operations_proto_pb2 as lro
from google.protobuf import json_format

from evald.cli import connection

ANY_LOCATION = "projects/-/locations/-"
"""Every location (the ``-`` wildcard of resource names): ``list`` shows every job, and an ID
is found wherever its job is."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``list``, ``get`` and ``cancel`` subcommands."""
    actions = parser.add_subparsers(dest="action", required=True)
    for action, text in (
        ("list", "list jobs, newest first: of every location, or of --location"),
        ("get", "show one job: state, progress, results"),
        ("cancel", "stop a running job"),
    ):
        sub = actions.add_parser(action, help=text, description=text)
        sub.add_argument("--server", required=True, metavar="ADDR", help="HOST:PORT of evald")
        sub.add_argument("--json", action="store_true", help="print JSON instead of text")
        if action == "list":
            sub.add_argument(
                "--location",
                default=ANY_LOCATION,
                help="projects/P/locations/L: only its jobs (default: every location)",
            )
        else:
            sub.add_argument(
                "name", help="operation name (projects/P/locations/L/operations/ID), or its ID"
            )
            sub.add_argument(
                "--location",
                default=ANY_LOCATION,
                help="projects/P/locations/L of an ID (default: wherever the job is)",
            )
        connection.add_arguments(sub)


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
    return asyncio.run(_run(args))


async def _run(args: argparse.Namespace) -> int:
    name = getattr(args, "name", "")
    if name and "/" not in name:
        name = f"{args.location}/operations/{name}"
    try:
        opts = connection.options(args)
        channel = await connection.open_channel(opts)
    except (ValueError, connection.ConnectionFailed) as exc:
        print(f"evald jobs {args.action}: {exc}", file=sys.stderr)
        return 1
    try:
        if args.action == "list":
            call = channel.unary_unary(
                "/google.longrunning.Operations/ListOperations",
                request_serializer=lro.ListOperationsRequest.SerializeToString,
                response_deserializer=lro.ListOperationsResponse.FromString,
            )
            operations, token = [], ""
            while True:
                request = lro.ListOperationsRequest(name=args.location, page_token=token)
                page = await call(request, timeout=30)
                operations.extend(page.operations)
                token = page.next_page_token
                if not token:
                    break
            _print_list([describe(op) for op in operations], args.json)
        elif args.action == "get":
            call = channel.unary_unary(
                "/google.longrunning.Operations/GetOperation",
                request_serializer=lro.GetOperationRequest.SerializeToString,
                response_deserializer=lro.Operation.FromString,
            )
            data = describe(await call(lro.GetOperationRequest(name=name), timeout=30))
            print(json.dumps(data, indent=2) if args.json else _text(data))
        else:
            call = channel.unary_unary(
                "/google.longrunning.Operations/CancelOperation",
                request_serializer=lro.CancelOperationRequest.SerializeToString,
                response_deserializer=lambda raw: raw,
            )
            await call(lro.CancelOperationRequest(name=name), timeout=30)
            print(f"cancelling {name}", file=sys.stderr)
    except grpc.aio.AioRpcError as exc:
        print(f"evald jobs {args.action}: {_failure(exc, opts)}", file=sys.stderr)
        return 1
    finally:
        await channel.close(None)
    return 0


def _failure(error: grpc.aio.AioRpcError, opts: connection.Options) -> str:
    """One line: why the server could not be used, or the status and the server's message
    (which names the operation)."""
    if error.code() in (*connection.TRANSPORT_CODES, *connection.AUTH_CODES):
        return connection.describe(error, opts)
    return f"{error.code().name}: {' '.join((error.details() or '').split())}"


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
