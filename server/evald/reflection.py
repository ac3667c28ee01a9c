"""gRPC server reflection, both protocol versions, resolving method symbols too.

The stock grpcio-reflection servicer answers only ``grpc.reflection.v1alpha`` and cannot resolve a
method name (``pkg.Service.Method``) with ``file_containing_symbol``. ``grpcurl`` and ``ghz`` try
``grpc.reflection.v1`` first and look methods up by exactly that name, so evald serves its own
servicer under both names. The two protocol versions are wire-identical (same messages, same field
numbers, only the package differs), so one implementation built on the v1alpha message classes
answers both.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from typing import Any, TypeVar

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from google.protobuf.descriptor import Descriptor, FileDescriptor
from grpc_reflection.v1alpha import reflection_pb2 as messages

V1ALPHA = "grpc.reflection.v1alpha.ServerReflection"
V1 = "grpc.reflection.v1.ServerReflection"
SERVICE_NAMES = (V1, V1ALPHA)
"""The reflection services evald serves (v1 first: what current grpcurl and ghz ask for)."""

METHOD = "ServerReflectionInfo"

T = TypeVar("T")


def _v1_file() -> descriptor_pb2.FileDescriptorProto:
    """``grpc/reflection/v1/reflection.proto``, derived from the installed v1alpha descriptor.

    grpcio-reflection ships no v1 module; without this file a client that describes the v1
    reflection service it just listed would get NOT_FOUND.
    """
    proto = descriptor_pb2.FileDescriptorProto()
    messages.DESCRIPTOR.CopyToProto(proto)
    old, new = "grpc.reflection.v1alpha", "grpc.reflection.v1"
    proto.name = "grpc/reflection/v1/reflection.proto"
    proto.package = new
    proto.ClearField("options")  # language options (java_package, ...) name the v1alpha package
    for message in proto.message_type:
        for field in message.field:
            if field.type_name.startswith(f".{old}."):
                field.type_name = f".{new}." + field.type_name.removeprefix(f".{old}.")
    for service in proto.service:
        for method in service.method:
            method.input_type = method.input_type.replace(f".{old}.", f".{new}.")
            method.output_type = method.output_type.replace(f".{old}.", f".{new}.")
    return proto


def _own_pool() -> descriptor_pool.DescriptorPool:
    """A private pool holding the v1 reflection file (kept out of the default pool so a future
    grpcio-reflection that registers its own copy cannot clash with ours)."""
    pool = descriptor_pool.DescriptorPool()
    pool.Add(_v1_file())
    return pool


def _error(
    request: messages.ServerReflectionRequest, code: grpc.StatusCode, message: str
) -> messages.ServerReflectionResponse:
    return messages.ServerReflectionResponse(
        valid_host=request.host,
        original_request=request,
        error_response=messages.ErrorResponse(error_code=code.value[0], error_message=message),
    )


class ReflectionServicer:
    """Answers ServerReflectionInfo streams from descriptor pools (the default pool first)."""

    def __init__(
        self,
        service_names: Iterable[str],
        pools: Sequence[descriptor_pool.DescriptorPool] | None = None,
    ) -> None:
        self.service_names = sorted({*service_names, *SERVICE_NAMES})
        self.pools = list(pools) if pools is not None else [descriptor_pool.Default(), _own_pool()]
        self._serialized: dict[str, bytes] = {}

    async def info(
        self,
        requests: AsyncIterator[messages.ServerReflectionRequest],
        context: grpc.aio.ServicerContext[Any, Any],
    ) -> AsyncIterator[messages.ServerReflectionResponse]:
        """The bidirectional ServerReflectionInfo RPC: one response per request, in order."""
        async for request in requests:
            yield self.answer(request)

    def answer(
        self, request: messages.ServerReflectionRequest
    ) -> messages.ServerReflectionResponse:
        """The response to one reflection request."""
        which = request.WhichOneof("message_request")
        try:
            if which == "list_services":
                return messages.ServerReflectionResponse(
                    valid_host=request.host,
                    original_request=request,
                    list_services_response=messages.ListServiceResponse(
                        service=[messages.ServiceResponse(name=n) for n in self.service_names]
                    ),
                )
            if which == "file_by_filename":
                found = self._find(lambda p: p.FindFileByName(request.file_by_filename))
                return self._files(request, found)
            if which == "file_containing_symbol":
                return self._files(
                    request, self.file_containing_symbol(request.file_containing_symbol)
                )
            if which == "file_containing_extension":
                ext = request.file_containing_extension
                return self._files(
                    request,
                    self._find(
                        lambda p: p.FindFileContainingSymbol(
                            p.FindExtensionByNumber(
                                p.FindMessageTypeByName(ext.containing_type), ext.extension_number
                            ).full_name
                        )
                    ),
                )
            if which == "all_extension_numbers_of_type":
                name = request.all_extension_numbers_of_type
                numbers = self._find(
                    lambda p: sorted(
                        e.number for e in p.FindAllExtensions(p.FindMessageTypeByName(name))
                    )
                )
                return messages.ServerReflectionResponse(
                    valid_host=request.host,
                    original_request=request,
                    all_extension_numbers_response=messages.ExtensionNumberResponse(
                        base_type_name=name, extension_number=numbers
                    ),
                )
        except KeyError as exc:
            return _error(request, grpc.StatusCode.NOT_FOUND, str(exc.args[0]) if exc.args else "")
        return _error(request, grpc.StatusCode.INVALID_ARGUMENT, "no message_request is set")

    def file_containing_symbol(self, symbol: str) -> FileDescriptor:
        """The file defining ``symbol``: a message, field, enum, service, extension, or a method
        given as ``package.Service.Method``; raises KeyError if no pool knows it."""

        def lookup(pool: descriptor_pool.DescriptorPool) -> FileDescriptor:
            try:
                return pool.FindFileContainingSymbol(symbol)
            except KeyError:
                # The pool does not index methods: resolve them through their service.
                service, _, method = symbol.rpartition(".")
                found = pool.FindServiceByName(service)
                if method not in found.methods_by_name:
                    raise
                return found.file

        return self._find(lookup, missing=f"symbol not found: {symbol}")

    def _find(
        self, lookup: Callable[[descriptor_pool.DescriptorPool], T], missing: str = "not found"
    ) -> T:
        for pool in self.pools:
            try:
                return lookup(pool)
            except KeyError:
                continue
        raise KeyError(missing)

    def _files(
        self, request: messages.ServerReflectionRequest, file: FileDescriptor
    ) -> messages.ServerReflectionResponse:
        """The file and every file it imports, transitively, the requested one first."""
        ordered: dict[str, FileDescriptor] = {}
        pending = [file]
        while pending:
            current = pending.pop(0)
            if current.name not in ordered:
                ordered[current.name] = current
                pending.extend(current.dependencies)
        return messages.ServerReflectionResponse(
            valid_host=request.host,
            original_request=request,
            file_descriptor_response=messages.FileDescriptorResponse(
                file_descriptor_proto=[self._serialize(f) for f in ordered.values()]
            ),
        )

    def _serialize(self, file: FileDescriptor) -> bytes:
        cached = self._serialized.get(file.name)
        if cached is None:
            proto = descriptor_pb2.FileDescriptorProto()
            file.CopyToProto(proto)
            _set_json_names(proto, file)
            cached = self._serialized[file.name] = proto.SerializeToString()
        return cached

    def handlers(self) -> list[grpc.GenericRpcHandler[Any, Any]]:
        """Generic handlers serving this servicer as both reflection service versions."""
        method = grpc.stream_stream_rpc_method_handler(
            self.info,
            request_deserializer=messages.ServerReflectionRequest.FromString,
            response_serializer=messages.ServerReflectionResponse.SerializeToString,
        )
        return [
            grpc.method_handlers_generic_handler(name, {METHOD: method}) for name in SERVICE_NAMES
        ]


def _set_json_names(proto: descriptor_pb2.FileDescriptorProto, file: FileDescriptor) -> None:
    """Set ``json_name`` on every field and extension of ``proto``, as protoc does.

    ``CopyToProto`` leaves it out, and clients that render JSON from reflected descriptors
    (grpcurl, ghz) then print the proto names (``exact_match_results``) instead of the JSON
    names the API documents (``exactMatchResults``).
    """
    for message in proto.message_type:
        _set_message_json_names(message, file.message_types_by_name[message.name])
    for extension in proto.extension:
        extension.json_name = file.extensions_by_name[extension.name].json_name


def _set_message_json_names(proto: descriptor_pb2.DescriptorProto, message: Descriptor) -> None:
    for field in proto.field:
        field.json_name = message.fields_by_name[field.name].json_name
    for extension in proto.extension:
        extension.json_name = message.extensions_by_name[extension.name].json_name
    for nested in proto.nested_type:
        _set_message_json_names(nested, message.nested_types_by_name[nested.name])


def enable(server: grpc.aio.Server, service_names: Sequence[str]) -> ReflectionServicer:
    """Serve reflection (v1 and v1alpha) listing ``service_names`` plus the reflection services."""
    servicer = ReflectionServicer(service_names)
    server.add_generic_rpc_handlers(tuple(servicer.handlers()))
    return servicer
