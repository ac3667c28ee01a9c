"""Errors the client raises: one class per gRPC status a caller may want to handle.

EvaldError                      any non-OK status; .code, .message, .status, .details
├── InvalidArgumentError        INVALID_ARGUMENT, OUT_OF_RANGE; .field_violations
├── NotImplementedByServerError UNIMPLEMENTED (e.g. a judge metric on a server without one)
├── FailedPreconditionError     FAILED_PRECONDITION (server not set up for the request)
├── NotFoundError               NOT_FOUND
├── ResourceExhaustedError      RESOURCE_EXHAUSTED (e.g. a message over the size limit)
├── UnauthenticatedError        UNAUTHENTICATED
├── PermissionDeniedError       PERMISSION_DENIED
├── DeadlineExceededError       DEADLINE_EXCEEDED
├── UnavailableError            UNAVAILABLE (server down or unreachable; retry later)
└── ServerError                 INTERNAL, UNKNOWN, DATA_LOSS and anything else
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import grpc
from google.rpc import error_details_pb2, status_pb2

STATUS_DETAILS_KEY = "grpc-status-details-bin"


@dataclass(frozen=True)
class FieldViolation:
    """One bad request field, named by its path (``bleu_input.instances[3].reference``)."""

    field: str
    description: str


class EvaldError(Exception):
    """The server (or the channel) answered with a non-OK gRPC status."""

    def __init__(self, code: grpc.StatusCode, message: str, status: Any = None) -> None:
        super().__init__(f"{code.name}: {message}")
        self.code = code
        self.message = message
        self.status: status_pb2.Status = (
            status if status is not None else status_pb2.Status(code=code.value[0], message=message)
        )

    @property
    def details(self) -> list[Any]:
        """The ``google.rpc`` detail messages (``google.protobuf.Any``) of the status."""
        return list(self.status.details)


class InvalidArgumentError(EvaldError):
    """The request was rejected; :attr:`field_violations` names the fields."""

    @property
    def field_violations(self) -> list[FieldViolation]:
        """Violations of every ``google.rpc.BadRequest`` detail, in order."""
        found: list[FieldViolation] = []
        for detail in self.status.details:
            if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
                bad = error_details_pb2.BadRequest()
                detail.Unpack(bad)
                found.extend(FieldViolation(v.field, v.description) for v in bad.field_violations)
        return found


class NotImplementedByServerError(EvaldError):
    """The server does not compute what was asked (UNIMPLEMENTED)."""


class FailedPreconditionError(EvaldError):
    """The server is not set up for this request (FAILED_PRECONDITION)."""


class NotFoundError(EvaldError):
    """A named resource does not exist (NOT_FOUND)."""


class ResourceExhaustedError(EvaldError):
    """A limit was hit, e.g. the message size (RESOURCE_EXHAUSTED)."""


class UnauthenticatedError(EvaldError):
    """Credentials missing or wrong (UNAUTHENTICATED)."""


class PermissionDeniedError(EvaldError):
    """Credentials valid but not allowed (PERMISSION_DENIED)."""


class DeadlineExceededError(EvaldError):
    """The call's deadline passed (DEADLINE_EXCEEDED)."""


class UnavailableError(EvaldError):
    """The server or one of its dependencies is unavailable; retrying later may work."""


class ServerError(EvaldError):
    """The server failed (INTERNAL, UNKNOWN, DATA_LOSS or another status)."""


_BY_CODE: dict[grpc.StatusCode, type[EvaldError]] = {
    grpc.StatusCode.INVALID_ARGUMENT: InvalidArgumentError,
    grpc.StatusCode.OUT_OF_RANGE: InvalidArgumentError,
    grpc.StatusCode.UNIMPLEMENTED: NotImplementedByServerError,
    grpc.StatusCode.FAILED_PRECONDITION: FailedPreconditionError,
    grpc.StatusCode.NOT_FOUND: NotFoundError,
    grpc.StatusCode.RESOURCE_EXHAUSTED: ResourceExhaustedError,
    grpc.StatusCode.UNAUTHENTICATED: UnauthenticatedError,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDeniedError,
    grpc.StatusCode.DEADLINE_EXCEEDED: DeadlineExceededError,
    grpc.StatusCode.UNAVAILABLE: UnavailableError,
}


def error_class(code: grpc.StatusCode) -> type[EvaldError]:
    """The exception class for a gRPC status code."""
    return _BY_CODE.get(code, ServerError)


def from_rpc_error(error: Any) -> EvaldError:
    """Turn a ``grpc.RpcError`` (sync or aio) into the matching :class:`EvaldError`."""
    code: grpc.StatusCode = error.code()
    message: str = error.details() or ""
    status = None
    for key, value in error.trailing_metadata() or ():
        if key == STATUS_DETAILS_KEY and isinstance(value, bytes):
            parsed = status_pb2.Status.FromString(value)
            if parsed.code == code.value[0]:
                status = parsed
    return error_class(code)(code, message, status)
