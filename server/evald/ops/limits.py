"""Request limits: sizes checked before a request is evaluated, and calls in flight per key.

Limit (setting)              over it
--------------------------   ------------------------------------------------------------
max_message_bytes            gRPC RESOURCE_EXHAUSTED (by gRPC) / HTTP 413 (max_http_body_bytes)
max_instances                INVALID_ARGUMENT, field ``<input>.instances``
max_template_bytes           INVALID_ARGUMENT, field of the template / system instruction
max_code_bytes               INVALID_ARGUMENT, field of the function / result parser
max_concurrent_per_key       RESOURCE_EXHAUSTED (HTTP 429) with a QuotaFailure detail
judge max_concurrency        calls wait their turn (per judge, ``[judges.<name>]``)

Size limits are INVALID_ARGUMENT: the same request will never pass, retrying is pointless.
The concurrency limit is RESOURCE_EXHAUSTED: the same request passes once others finish.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from google.protobuf import any_pb2
from google.rpc import error_details_pb2

from evald import api
from evald.errors import InvalidArgument, ResourceExhausted
from evald.ops.auth import Principal

_TEXT_FIELDS = {
    # spec message field -> (field name, limit setting)
    "metric_prompt_template": "max_template_bytes",
    "system_instruction": "max_template_bytes",
    "prompt_template": "max_template_bytes",
    "evaluation_function": "max_code_bytes",
    "parsing_function": "max_code_bytes",
}


class LimitExceeded(ResourceExhausted):
    """A rate/concurrency limit was reached; a QuotaFailure detail names it."""

    def __init__(self, message: str, subject: str, limit: str) -> None:
        super().__init__(message)
        self.subject = subject
        self.limit = limit

    def details(self) -> list[any_pb2.Any]:
        failure = error_details_pb2.QuotaFailure(
            violations=[
                error_details_pb2.QuotaFailure.Violation(
                    subject=self.subject, description=self.message
                )
            ]
        )
        packed = any_pb2.Any()
        packed.Pack(failure)
        return [packed]


@dataclass(frozen=True)
class RequestLimits:
    """Size limits on one EvaluateInstancesRequest (their defaults are the Settings')."""

    max_instances: int
    max_template_bytes: int
    max_code_bytes: int

    @classmethod
    def from_settings(cls, settings: Any) -> RequestLimits:
        """The limits ``settings`` (an ``evald.config.Settings``) ask for."""
        return cls(settings.max_instances, settings.max_template_bytes, settings.max_code_bytes)

    @functools.cached_property
    def _smallest(self) -> int:
        return min(2 * self.max_instances, self.max_template_bytes, self.max_code_bytes)

    def fits(self, size: int) -> bool:
        """Whether any request of ``size`` serialized bytes is within every limit, whatever it
        holds: an instance takes at least 2 bytes on the wire (its tag and length) and a text
        at least its UTF-8 length, so :meth:`check` need not look at it."""
        return size <= self._smallest

    def check(self, request: Any) -> None:
        """Raise InvalidArgument naming the field and the limit a request goes over."""
        which = request.WhichOneof("metric_inputs")
        if which is not None:
            metric_input = getattr(request, which)
            if api.has_field(metric_input.DESCRIPTOR, "instances"):
                count = len(metric_input.instances)
                if count > self.max_instances:
                    raise InvalidArgument(
                        f"{which}.instances",
                        f"{count} instances are more than the limit of {self.max_instances} "
                        "per request (max_instances); split the request",
                    )
            if api.has_field(metric_input.DESCRIPTOR, "metric_spec") and metric_input.HasField(
                "metric_spec"
            ):
                spec = metric_input.metric_spec
                if _may_hold_texts(spec.DESCRIPTOR):
                    self._texts(spec, f"{which}.metric_spec")
        for i, metric in enumerate(request.metrics):
            self._metric(metric, f"metrics[{i}]")
        for i, source in enumerate(request.metric_sources):
            if source.HasField("metric"):
                self._metric(source.metric, f"metric_sources[{i}].metric")

    def _metric(self, metric: Any, path: str) -> None:
        which = metric.WhichOneof("metric_spec")
        if which is not None:
            self._texts(getattr(metric, which), f"{path}.{which}")

    def _texts(self, spec: Any, path: str, depth: int = 0) -> None:
        # Walks only the set fields of a spec (small), never instances: cheap on any request.
        for field, value in spec.ListFields():
            where = f"{path}.{field.name}"
            if field.name in _TEXT_FIELDS and isinstance(value, str):
                self._text(value, where, _TEXT_FIELDS[field.name])
            elif field.message_type is not None and depth < 3 and not _repeated(field):
                self._texts(value, where, depth + 1)

    def _text(self, text: str, where: str, setting: str) -> None:
        limit: int = getattr(self, setting)
        # A str has at most 4 UTF-8 bytes per character: encode only when it may be too long.
        if len(text) * 4 <= limit:
            return
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > limit:
            raise InvalidArgument(
                where, f"{size} bytes are more than the limit of {limit} bytes ({setting})"
            )


def _repeated(field: Any) -> bool:
    return bool(field.is_repeated)


@functools.cache
def _may_hold_texts(descriptor: Any, depth: int = 0) -> bool:
    """Whether :meth:`RequestLimits._texts` could find a limited text in a message of this
    type (most computed-metric specs cannot: their walk is skipped)."""
    return any(
        field.name in _TEXT_FIELDS
        or (
            field.message_type is not None
            and depth < 3
            and not _repeated(field)
            and _may_hold_texts(field.message_type, depth + 1)
        )
        for field in descriptor.fields
    )


class Concurrency:
    """Calls in flight per caller; one instance per server process (single event loop)."""

    def __init__(self, default_limit: int) -> None:
        self.default_limit = default_limit
        self.in_flight: dict[str, int] = {}

    def enabled_for(self, principal: Principal) -> bool:
        """Whether any limit applies to ``principal``."""
        return bool(principal.max_concurrent or self.default_limit)

    def acquire(self, principal: Principal) -> None:
        """Take one slot of ``principal``; LimitExceeded if none is free."""
        limit = principal.max_concurrent or self.default_limit
        current = self.in_flight.get(principal.name, 0)
        if limit and current >= limit:
            setting = "max_concurrent" if principal.max_concurrent else "max_concurrent_per_key"
            raise LimitExceeded(
                f"'{principal.name}' already has {current} calls in flight, the limit "
                f"({setting}) is {limit}; retry when one has finished",
                subject=f"key:{principal.name}",
                limit=setting,
            )
        self.in_flight[principal.name] = current + 1

    def release(self, principal: Principal) -> None:
        """Give back a slot taken by :meth:`acquire`."""
        left = self.in_flight[principal.name] - 1
        if left:
            self.in_flight[principal.name] = left
        else:
            del self.in_flight[principal.name]

    @contextmanager
    def admit(self, principal: Principal) -> Iterator[None]:
        """Hold one slot of ``principal`` for the ``with`` body."""
        self.acquire(principal)
        try:
            yield
        finally:
            self.release(principal)
