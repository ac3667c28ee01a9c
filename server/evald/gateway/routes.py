"""HTTP routes read from the ``google.api.http`` options of the compiled service descriptors.

Nothing here names an RPC: a method added to a ``.proto`` with an http rule is routed as soon
as the generated code is rebuilt.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from google.api import annotations_pb2, http_pb2
from google.protobuf.descriptor import MethodDescriptor, ServiceDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass

from evald import api
from evald.gateway.template import PathTemplate


@dataclass(frozen=True)
class Route:
    """One HTTP binding of one RPC."""

    http_method: str
    template: PathTemplate
    body: str
    """``*`` (the whole request), a top-level field name, or empty (no body)."""
    response_body: str
    method: MethodDescriptor = field(compare=False)

    @property
    def rpc(self) -> str:
        """The gRPC method path, ``/package.Service/Method``."""
        return f"/{self.method.containing_service.full_name}/{self.method.name}"

    @cached_property
    def input_class(self) -> type[Message]:
        """Generated class of the request message."""
        return GetMessageClass(self.method.input_type)

    @cached_property
    def output_class(self) -> type[Message]:
        """Generated class of the response message."""
        return GetMessageClass(self.method.output_type)


@dataclass(frozen=True)
class NotAllowed:
    """The path exists but not for this HTTP method."""

    allowed: tuple[str, ...]


def routes_for(services: Iterable[ServiceDescriptor]) -> list[Route]:
    """Every binding (``additional_bindings`` included) of every method of ``services``."""
    routes: list[Route] = []
    for service in services:
        for method in service.methods:
            options: Any = method.GetOptions()
            if not options.HasExtension(annotations_pb2.http):
                continue
            rule = options.Extensions[annotations_pb2.http]
            for binding in [rule, *rule.additional_bindings]:
                routes.append(_route(binding, method))
    return routes


def default_routes() -> list[Route]:
    """Routes of every service evald serves (``evald.api.SERVED_MODULES``)."""
    return routes_for(
        service
        for module in api.SERVED_MODULES
        for service in module.DESCRIPTOR.services_by_name.values()
    )


def resolve(
    routes: Sequence[Route], http_method: str, path: str
) -> tuple[Route, dict[str, str]] | NotAllowed | None:
    """The route and bindings for a request; NotAllowed if only the method is wrong."""
    allowed: list[str] = []
    for route in routes:
        bindings = route.template.match(path)
        if bindings is None:
            continue
        if route.http_method == http_method:
            return route, bindings
        allowed.append(route.http_method)
    return NotAllowed(tuple(dict.fromkeys(allowed))) if allowed else None


def _route(rule: http_pb2.HttpRule, method: MethodDescriptor) -> Route:
    kind = rule.WhichOneof("pattern")
    if kind is None:
        raise ValueError(f"http rule of {method.full_name} has no pattern")
    if kind == "custom":
        verb, path = rule.custom.kind.upper(), rule.custom.path
    else:
        verb, path = kind.upper(), getattr(rule, kind)
    template = PathTemplate.parse(path)
    fields = method.input_type.fields_by_name
    for variable in template.variables:
        _check_field_path(method, variable.field_path)
    if rule.body not in ("", "*") and rule.body not in fields:
        raise ValueError(f"http rule of {method.full_name}: no body field {rule.body!r}")
    return Route(verb, template, rule.body, rule.response_body, method)


def _check_field_path(method: MethodDescriptor, dotted: str) -> None:
    message: Any = method.input_type
    for name in dotted.split("."):
        if message is None or name not in message.fields_by_name:
            raise ValueError(f"http rule of {method.full_name}: no request field {dotted!r}")
        message = message.fields_by_name[name].message_type
