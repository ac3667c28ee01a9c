"""Where the gateway sends a call: bytes in, bytes out, failures as ``google.rpc.Status``.

* :class:`InProcessBackend` calls the very handlers the gRPC server registered (no network hop),
  so HTTP and gRPC answer every method, EvaluateDataset's UNIMPLEMENTED included, alike.
* :class:`GrpcBackend` forwards each call to a gRPC address as a generic unary call.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NoReturn, Protocol, cast

import grpc
from google.rpc import code_pb2, status_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc

from evald.errors import internal_status, status_from

log = logging.getLogger(__name__)

Metadata = Sequence[tuple[str, str]]


@dataclass(frozen=True)
class Reply:
    """A backend's answer to one call."""

    body: bytes
    trailers: Metadata = ()
    """The call's trailing metadata (some of it is passed on as response headers)."""


class CallError(Exception):
    """The backend answered with a non-OK status."""

    def __init__(self, status: status_pb2.Status, trailers: Metadata = ()) -> None:
        super().__init__(status.message)
        self.status = status
        self.trailers = trailers


class Backend(Protocol):
    """What the gateway needs from whatever serves the RPCs."""

    async def unary(
        self, rpc: str, request: bytes, metadata: Metadata, timeout: float | None = None
    ) -> Reply:
        """Call ``rpc`` (``/pkg.Service/Method``); raises CallError on a non-OK status."""
        ...

    async def healthy(self) -> bool:
        """Whether the backend is serving."""
        ...

    async def close(self) -> None:
        """Release connections."""
        ...


class InProcessBackend:
    """Runs the gRPC server's own generic handlers in this process."""

    def __init__(self, handlers: Sequence[Any], interceptors: Sequence[Any] = ()) -> None:
        self.handlers = tuple(handlers)
        self.interceptors = tuple(interceptors)
        """``grpc.aio.ServerInterceptor`` s run on each call, as the gRPC server runs them."""

    async def unary(
        self, rpc: str, request: bytes, metadata: Metadata, timeout: float | None = None
    ) -> Reply:
        details: Any = _CallDetails(rpc, tuple(metadata))
        handler = self._find(details)
        if self.interceptors:
            handler = await self._intercepted(details)
        if handler is None or handler.unary_unary is None:
            # What a gRPC server answers for a method nobody registered.
            raise CallError(
                status_pb2.Status(code=code_pb2.UNIMPLEMENTED, message="Method not found!")
            )
        context = LocalContext(details.invocation_metadata, timeout)
        try:
            message = (
                handler.request_deserializer(request) if handler.request_deserializer else request
            )
            result = handler.unary_unary(message, cast(Any, context))
            if inspect.isawaitable(result):
                # The caller's deadline (X-Server-Timeout) cancels the call at the deadline, as
                # gRPC does: custom code is killed, judge retries stop.
                result = await asyncio.wait_for(result, timeout)
        except TimeoutError:
            raise CallError(
                status_pb2.Status(code=code_pb2.DEADLINE_EXCEEDED, message="Deadline Exceeded")
            ) from None
        except _Aborted as aborted:
            raise CallError(aborted.status, _text_trailers(context.trailing_metadata())) from None
        except Exception:
            log.exception("unexpected failure in %s", rpc)
            raise CallError(internal_status()) from None
        if context.code_set not in (None, grpc.StatusCode.OK):
            raise CallError(
                context.status(context.code_set, context.details_set or ""),
                _text_trailers(context.trailing_metadata()),
            )
        serialized = handler.response_serializer(result) if handler.response_serializer else result
        return Reply(bytes(serialized), _text_trailers(context.trailing_metadata()))

    def _find(self, details: Any) -> Any:
        return next((h for h in (g.service(details) for g in self.handlers) if h is not None), None)

    async def _intercepted(self, details: Any) -> Any:
        async def find(call_details: Any) -> Any:
            return self._find(call_details)

        continuation: Any = find
        for interceptor in reversed(self.interceptors):  # the first one runs first, as in gRPC
            continuation = functools.partial(interceptor.intercept_service, continuation)
        return await continuation(details)

    async def healthy(self) -> bool:
        return True

    async def close(self) -> None:
        return None


class GrpcBackend:
    """Forwards calls to a gRPC server; the status and its details come back unchanged."""

    def __init__(
        self,
        target: str,
        *,
        root_certificates: bytes | None = None,
        options: Sequence[tuple[str, Any]] = (),
    ) -> None:
        self.target = target
        if root_certificates is None:
            self.channel = grpc.aio.insecure_channel(target, options=list(options))
        else:
            credentials = grpc.ssl_channel_credentials(root_certificates=root_certificates)
            self.channel = grpc.aio.secure_channel(target, credentials, options=list(options))

    async def unary(
        self, rpc: str, request: bytes, metadata: Metadata, timeout: float | None = None
    ) -> Reply:
        method = self.channel.unary_unary(rpc, request_serializer=None, response_deserializer=None)
        call = method(request, metadata=tuple(metadata), timeout=timeout)
        try:
            response = await call
        except grpc.aio.AioRpcError as exc:
            raise CallError(_status_of(exc), _text_trailers(exc.trailing_metadata())) from None
        return Reply(bytes(response), _text_trailers(await call.trailing_metadata()))

    async def healthy(self) -> bool:
        stub = health_pb2_grpc.HealthStub(self.channel)
        try:
            reply = await stub.Check(health_pb2.HealthCheckRequest(), timeout=2.0)
        except grpc.aio.AioRpcError:
            return False
        return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)

    async def close(self) -> None:
        await self.channel.close(None)


def _text_trailers(trailing: Any) -> Metadata:
    """The text entries of a call's trailing metadata (binary ones, ``-bin``, stay behind)."""
    return tuple((k, v) for k, v in trailing or () if isinstance(v, str))


def _status_of(error: grpc.aio.AioRpcError) -> status_pb2.Status:
    trailing: Any = error.trailing_metadata() or ()
    return status_from(error.code(), error.details() or "", trailing)


class _CallDetails:
    """``grpc.HandlerCallDetails`` for a call that did not come over the network."""

    def __init__(self, method: str, invocation_metadata: tuple[tuple[str, str], ...]) -> None:
        self.method = method
        self.invocation_metadata = invocation_metadata


class _Aborted(Exception):
    def __init__(self, status: status_pb2.Status) -> None:
        super().__init__(status.message)
        self.status = status


class LocalContext:
    """The parts of ``grpc.aio.ServicerContext`` a unary handler uses, for in-process calls."""

    def __init__(self, metadata: Metadata, timeout: float | None) -> None:
        self._metadata = tuple(metadata)
        self._deadline = None if timeout is None else time.monotonic() + timeout
        self._trailing: tuple[tuple[str, str | bytes], ...] = ()
        self.code_set: grpc.StatusCode | None = None
        self.details_set: str | None = None

    def status(
        self, code: grpc.StatusCode, details: str, trailing: Sequence[tuple[str, Any]] = ()
    ) -> status_pb2.Status:
        """The status a real call would carry: the details trailer if present, else code+text."""
        return status_from(code, details, [*trailing, *self._trailing])

    async def abort(
        self, code: grpc.StatusCode, details: str = "", trailing_metadata: Any = ()
    ) -> NoReturn:
        raise _Aborted(self.status(code, details, tuple(trailing_metadata or ())))

    async def send_initial_metadata(self, initial_metadata: Any) -> None:
        return None

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._metadata

    def set_trailing_metadata(self, trailing_metadata: Any) -> None:
        self._trailing = tuple(trailing_metadata)

    def trailing_metadata(self) -> tuple[tuple[str, str | bytes], ...]:
        return self._trailing

    def set_code(self, code: grpc.StatusCode) -> None:
        self.code_set = code

    def set_details(self, details: str) -> None:
        self.details_set = details

    def code(self) -> grpc.StatusCode | None:
        return self.code_set

    def details(self) -> str | None:
        return self.details_set

    def time_remaining(self) -> float | None:
        return None if self._deadline is None else max(0.0, self._deadline - time.monotonic())

    def peer(self) -> str:
        return "in-process:http-gateway"

    def peer_identities(self) -> None:
        return None

    def peer_identity_key(self) -> None:
        return None

    def auth_context(self) -> dict[str, list[bytes]]:
        return {}

    def set_compression(self, compression: Any) -> None:
        return None

    def disable_next_message_compression(self) -> None:
        return None

    def cancelled(self) -> bool:
        return False

    def done(self) -> bool:
        return False
