"""Request limits: sizes checked before a request is evaluated, and calls in flight per key.

Limit (setting)              over it
--------------------------   ------------------------------------------------------------
max_message_bytes            gRPC RESOURCE_EXHAUSTED (by gRPC) / HTTP 413 (max_http_body_bytes)
max_instances                RESOURCE_EXHAUSTED, field ``<input>.instances``; also bounds
                             the messages a request may parse into (checked on the wire)
max_metrics                  RESOURCE_EXHAUSTED, field ``metrics`` / ``metric_sources``
max_text_bytes               RESOURCE_EXHAUSTED, field of the text (an instance's response, ...)
max_template_bytes           RESOURCE_EXHAUSTED, field of the template / system instruction
max_code_bytes               RESOURCE_EXHAUSTED, field of the function / result parser
max_concurrent_per_key       RESOURCE_EXHAUSTED (HTTP 429) with a QuotaFailure detail
judge max_concurrency        calls wait their turn (per judge, ``[judges.<name>]``)

A size limit names the field (a BadRequest detail) and the setting (a QuotaFailure detail):
the same request never passes, a smaller one does. The concurrency limit names the key: the
same request passes once others finish.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from google.protobuf import any_pb2
from google.protobuf.message import Message
from google.rpc import error_details_pb2

from evald import api
from evald.errors import ResourceExhausted
from evald.ops import wire
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


class SizeLimitExceeded(ResourceExhausted):
    """A request goes over a size limit: BadRequest names the field, QuotaFailure the setting."""

    def __init__(self, field: str, description: str, limit: str) -> None:
        super().__init__(f"{field}: {description}")
        self.field = field
        self.description = description
        self.limit = limit

    def details(self) -> list[any_pb2.Any]:
        bad = error_details_pb2.BadRequest(
            field_violations=[
                error_details_pb2.BadRequest.FieldViolation(
                    field=self.field, description=self.description
                )
            ]
        )
        quota = error_details_pb2.QuotaFailure(
            violations=[
                error_details_pb2.QuotaFailure.Violation(
                    subject=f"limit:{self.limit}", description=self.description
                )
            ]
        )
        packed = [any_pb2.Any(), any_pb2.Any()]
        packed[0].Pack(bad)
        packed[1].Pack(quota)
        return packed


@dataclass(frozen=True)
class RequestLimits:
    """Size limits on one EvaluateInstancesRequest or GenerateInstanceRubricsRequest (their
    defaults are the Settings')."""

    max_instances: int
    max_template_bytes: int
    max_code_bytes: int
    max_metrics: int = 256
    max_text_bytes: int = 1024 * 1024

    @classmethod
    def from_settings(cls, settings: Any) -> RequestLimits:
        """The limits ``settings`` (an ``evald.config.Settings``) ask for."""
        return cls(
            settings.max_instances,
            settings.max_template_bytes,
            settings.max_code_bytes,
            settings.max_metrics,
            settings.max_text_bytes,
        )

    @functools.cached_property
    def _smallest(self) -> int:
        return min(
            2 * self.max_instances,
            2 * self.max_metrics,
            self.max_template_bytes,
            self.max_code_bytes,
            self.max_text_bytes,
        )

    def fits(self, size: int) -> bool:
        """Whether any request of ``size`` serialized bytes is within every limit, whatever it
        holds: an instance or a metric takes at least 2 bytes on the wire (its tag and length)
        and a text at least its UTF-8 length, so :meth:`check` need not look at it."""
        return size <= self._smallest

    def message_budget(self, size: int) -> int:
        """Most (sub)messages a request of ``size`` bytes may hold: one per 16 bytes, and at
        least four per allowed instance. A parsed message takes ~70 bytes, so a request costs
        at most about 5 times its size in memory (or ~30 MB at the default limits)."""
        return max(4 * self.max_instances + 1024, size // 16)

    def check_wire(self, raw: bytes, descriptor: Any) -> None:
        """Refuse a serialized request that would parse into more messages than its budget,
        before it is parsed (:mod:`evald.ops.wire`). A request of at most twice the budget's
        floor cannot hold more (a message takes at least 2 bytes): it is not walked."""
        budget = self.message_budget(len(raw))
        if len(raw) // 2 + 1 <= budget:
            return
        if wire.count_messages(raw, descriptor, budget) > budget:
            raise SizeLimitExceeded(
                "",
                f"the request holds more than {budget} messages, too many for its size (at "
                f"most one per 16 bytes, or four per allowed instance: max_instances is "
                f"{self.max_instances})",
                "max_instances",
            )

    def walks(self, size: int) -> bool:
        """Whether :meth:`check_wire` has work to do for a request of ``size`` bytes."""
        return size // 2 + 1 > self.message_budget(size)

    def check(self, request: Any) -> None:
        """Raise SizeLimitExceeded naming the field and the limit a request goes over."""
        count = len(request.metrics) + len(request.metric_sources)
        if count > self.max_metrics:
            field = "metrics" if len(request.metrics) > self.max_metrics else "metric_sources"
            raise SizeLimitExceeded(
                field,
                f"{count} metrics are more than the limit of {self.max_metrics} per request "
                "(max_metrics); split the request",
                "max_metrics",
            )
        which = request.WhichOneof("metric_inputs")
        if which is not None:
            metric_input = getattr(request, which)
            if api.has_field(metric_input.DESCRIPTOR, "instances"):
                count = len(metric_input.instances)
                if count > self.max_instances:
                    raise SizeLimitExceeded(
                        f"{which}.instances",
                        f"{count} instances are more than the limit of {self.max_instances} "
                        "per request (max_instances); split the request",
                        "max_instances",
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
        # Then every other text: instances, instance data.
        if which is not None and getattr(request, which).ByteSize() > self.max_text_bytes:
            self._long_texts(getattr(request, which), which, skip="metric_spec")
        if request.HasField("instance") and request.instance.ByteSize() > self.max_text_bytes:
            self._long_texts(request.instance, "instance")

    def check_rubrics(self, request: Any) -> None:
        """:meth:`check` for a GenerateInstanceRubricsRequest: the template of its
        ``rubric_generation_spec`` (max_template_bytes), then every text of its contents and
        agent config (max_text_bytes)."""
        for name in ("rubric_generation_spec", "predefined_rubric_generation_spec"):
            if request.HasField(name):
                self._texts(getattr(request, name), name)
        for i, content in enumerate(request.contents):
            if content.ByteSize() > self.max_text_bytes:
                self._long_texts(content, f"contents[{i}]")
        if (
            request.HasField("agent_config")
            and request.agent_config.ByteSize() > self.max_text_bytes
        ):
            self._long_texts(request.agent_config, "agent_config")

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
            raise SizeLimitExceeded(
                where, f"{size} bytes are more than the limit of {limit} bytes ({setting})", setting
            )

    def _long_texts(self, message: Any, path: str, skip: str = "") -> None:
        """Raise for the first text longer than ``max_text_bytes`` in ``message`` (but its
        field ``skip``). Only parts larger than the limit are walked (their size is known
        without Python work)."""
        for field, value in message.ListFields():
            if field.name == skip:
                continue
            where = f"{path}.{field.name}"
            if field.message_type is None:
                if isinstance(value, str):
                    self._text(value, where, "max_text_bytes")
                elif isinstance(value, bytes) and len(value) > self.max_text_bytes:
                    self._text("x" * len(value), where, "max_text_bytes")
                elif _repeated(field):
                    for i, item in enumerate(value):
                        if isinstance(item, str):
                            self._text(item, f"{where}[{i}]", "max_text_bytes")
            elif field.message_type.GetOptions().map_entry:
                for key, item in value.items():
                    entry = f"{where}[{key!r}]"
                    if isinstance(item, str):
                        self._text(item, entry, "max_text_bytes")
                    elif isinstance(item, Message) and item.ByteSize() > self.max_text_bytes:
                        self._long_texts(item, entry)
            elif _repeated(field):
                for i, item in enumerate(value):
                    if item.ByteSize() > self.max_text_bytes:
                        self._long_texts(item, f"{where}[{i}]")
            elif value.ByteSize() > self.max_text_bytes:
                self._long_texts(value, where)


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
