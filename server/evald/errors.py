"""The exceptions handlers raise, their conversion to a gRPC status, and how a status travels
(code, message and the ``grpc-status-details-bin`` trailer): one place for both directions.

EvalError                  base; carries a gRPC status code and a message
├── InvalidArgument        caller's input is wrong; names the field path (BadRequest detail)
├── FailedPrecondition     server not set up for this request (e.g. no judge configured)
├── NotFound               a named resource does not exist
├── AlreadyExists          a resource of that name exists already
├── PermissionDenied       a server-local file outside the roots the server allows
├── ResourceExhausted      a limit was reached (memory, output size, …)
├── Unimplemented          a metric evald does not (yet) compute
├── Unavailable            a dependency (judge) is down after bounded retries
└── DeadlineExceeded       the request's deadline passed
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2


class EvalError(Exception):
    """An error with a gRPC status code, safe to show to the caller."""

    code: grpc.StatusCode = grpc.StatusCode.INTERNAL

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def details(self) -> list[any_pb2.Any]:
        """Rich error details (google.rpc.*) to attach to the status."""
        return []

    def to_status(self) -> status_pb2.Status:
        """The google.rpc.Status equivalent of this error."""
        return status_pb2.Status(
            code=self.code.value[0], message=self.message, details=self.details()
        )


class FieldViolation:
    """One bad field: its path in the request (``bleu_input.instances[3].reference``) and why."""

    __slots__ = ("description", "field")

    def __init__(self, field: str, description: str) -> None:
        self.field = field
        self.description = description

    def __repr__(self) -> str:
        return f"FieldViolation({self.field!r}, {self.description!r})"


class InvalidArgument(EvalError):
    """The request is malformed; each violation names the offending field."""

    code = grpc.StatusCode.INVALID_ARGUMENT

    def __init__(self, field: str, description: str, *more: FieldViolation) -> None:
        self.violations = [FieldViolation(field, description), *more]
        super().__init__(f"{field}: {description}" if field else description)

    @classmethod
    def of(cls, violations: Sequence[FieldViolation]) -> InvalidArgument:
        """One error carrying several violations; the message names the first."""
        first, *rest = violations
        error = cls(first.field, first.description, *rest)
        if rest:
            error.message += f" (and {len(rest)} more field violation(s))"
            error.args = (error.message,)
        return error

    def details(self) -> list[any_pb2.Any]:
        bad = error_details_pb2.BadRequest(
            field_violations=[
                error_details_pb2.BadRequest.FieldViolation(
                    field=v.field, description=v.description
                )
                for v in self.violations
            ]
        )
        packed = any_pb2.Any()
        packed.Pack(bad)
        return [packed]


class FailedPrecondition(EvalError):
    """The server is not set up to serve this request."""

    code = grpc.StatusCode.FAILED_PRECONDITION


class NotFound(EvalError):
    """A named resource does not exist."""

    code = grpc.StatusCode.NOT_FOUND


class AlreadyExists(EvalError):
    """A resource of that name exists already."""

    code = grpc.StatusCode.ALREADY_EXISTS


class PermissionDenied(EvalError):
    """The caller may not use what it named (a server-local file outside the allowed roots)."""

    code = grpc.StatusCode.PERMISSION_DENIED


class ResourceExhausted(EvalError):
    """A limit was reached: memory, output size, …"""

    code = grpc.StatusCode.RESOURCE_EXHAUSTED


class Unimplemented(EvalError):
    """The request asks for something evald does not compute."""

    code = grpc.StatusCode.UNIMPLEMENTED


class Unavailable(EvalError):
    """A dependency is unavailable after bounded retries."""

    code = grpc.StatusCode.UNAVAILABLE


class DeadlineExceeded(EvalError):
    """The request's deadline passed before the work finished."""

    code = grpc.StatusCode.DEADLINE_EXCEEDED


def internal_status(message: str = "internal error") -> status_pb2.Status:
    """The status for an unexpected failure: no stack trace or internals leak to the caller."""
    return status_pb2.Status(code=code_pb2.INTERNAL, message=message)


# How a status travels -----------------------------------------------------------------------

STATUS_DETAILS_KEY = "grpc-status-details-bin"
"""The trailer that carries the whole ``google.rpc.Status`` (with its details)."""
_CODES = {code.value[0]: code for code in grpc.StatusCode}


def grpc_code(number: int) -> grpc.StatusCode:
    """The gRPC code of a ``google.rpc.Status.code`` number (UNKNOWN if out of range)."""
    return _CODES.get(number, grpc.StatusCode.UNKNOWN)


def trailer(status: status_pb2.Status) -> tuple[tuple[str, bytes], ...]:
    """The trailing metadata that carries ``status`` to the caller."""
    return ((STATUS_DETAILS_KEY, status.SerializeToString()),)


def status_from(
    code: grpc.StatusCode, details: str, trailing: Iterable[tuple[str, Any]] = ()
) -> status_pb2.Status:
    """The status a call ended with: the details trailer when it matches ``code``, else the
    code and message alone."""
    for key, value in trailing:
        if key == STATUS_DETAILS_KEY and isinstance(value, bytes):
            status = status_pb2.Status.FromString(value)
            if status.code == code.value[0]:
                return status
    return status_pb2.Status(code=code.value[0], message=details)


async def abort(context: grpc.aio.ServicerContext[Any, Any], status: Any) -> None:
    """End the call with a google.rpc.Status, details in ``grpc-status-details-bin``, after the
    trailing metadata the handler set (abort's own would replace it: a failed request's judge
    usage must still reach the caller)."""
    kept = tuple(context.trailing_metadata() or ())
    await context.abort(
        grpc_code(status.code), status.message, trailing_metadata=(*kept, *trailer(status))
    )
