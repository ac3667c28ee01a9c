"""Python client for evald (the `evald` command is :mod:`evald.cli`).

>>> from evald_client import EvaluationClient
>>> with EvaluationClient(target) as client:
...     client.exact_match(["Paris"], ["Paris"])
[1.0]
"""

from evald_client._client import DEFAULT_LOCATION, AsyncEvaluationClient, EvaluationClient
from evald_client._exceptions import (
    DeadlineExceededError,
    EvaldError,
    FailedPreconditionError,
    FieldViolation,
    InvalidArgumentError,
    NotFoundError,
    NotImplementedByServerError,
    PermissionDeniedError,
    ResourceExhaustedError,
    ServerError,
    UnauthenticatedError,
    UnavailableError,
)
from evald_client._requests import ToolInput, ToolStep, Trajectory

__all__ = [
    "DEFAULT_LOCATION",
    "AsyncEvaluationClient",
    "DeadlineExceededError",
    "EvaldError",
    "EvaluationClient",
    "FailedPreconditionError",
    "FieldViolation",
    "InvalidArgumentError",
    "NotFoundError",
    "NotImplementedByServerError",
    "PermissionDeniedError",
    "ResourceExhaustedError",
    "ServerError",
    "ToolInput",
    "ToolStep",
    "Trajectory",
    "UnauthenticatedError",
    "UnavailableError",
]
