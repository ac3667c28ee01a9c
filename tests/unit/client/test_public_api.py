"""The client's public names are pinned: adding or removing one is a deliberate change."""

from __future__ import annotations

import evald_client

PUBLIC = {
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
}


def test_all_is_pinned() -> None:
    assert set(evald_client.__all__) == PUBLIC
    assert len(evald_client.__all__) == len(PUBLIC)


def test_every_public_name_exists() -> None:
    for name in evald_client.__all__:
        assert hasattr(evald_client, name), name


def test_exceptions_form_one_tree() -> None:
    errors = [getattr(evald_client, n) for n in PUBLIC if n.endswith("Error")]
    assert all(issubclass(e, evald_client.EvaldError) for e in errors)
    assert issubclass(evald_client.EvaldError, Exception)
