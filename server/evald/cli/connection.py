"""How the CLI reaches a server: API key, TLS and mTLS flags, and one-line reasons for failures.

``evald evaluate --server`` and ``evald jobs`` share these flags:

* ``--api-key-env NAME``: the environment variable holding the API key, sent as
  ``x-goog-api-key`` (the server's keys file or ``EVALD_API_KEYS`` lists the keys it accepts).
  Without the flag the key is read from ``EVALD_API_KEY`` when that is set. A key is never a
  flag: a flag's value shows in ``ps`` and shell history.
* ``--tls-ca FILE``: speak TLS, trusting the PEM CA certificates in FILE (the server's
  ``--tls-cert`` when it is self-signed). ``--tls`` speaks TLS trusting the system's CAs.
* ``--tls-client-cert FILE`` / ``--tls-client-key FILE`` (both or neither): the client
  certificate a server with ``--tls-client-ca`` (mTLS) requires; they imply TLS.

:func:`connect` opens a ``grpc.aio`` channel and makes one cheap call through it before
anything else, so an unreachable server, a TLS mismatch or a refused key is reported at once,
as :class:`ConnectionFailed` with one line naming the address and the reason.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from google.longrunning import operations_proto_pb2 as lro

DEFAULT_KEY_ENV = "EVALD_API_KEY"
"""Where the API key is read from without ``--api-key-env`` (the server's accepted keys are
``EVALD_API_KEYS``, plural: a list; the client sends one)."""
KEY_HEADER = "x-goog-api-key"
CONNECT_SECONDS = 10.0
"""How long the first call may take to connect and be answered."""
PROBE_METHOD = "/google.longrunning.Operations/GetOperation"
PROBE_NAME = "projects/-/locations/-/operations/-"
"""The first call: it needs a connection, the TLS handshake and, on a server with API keys, a
valid key, and changes nothing (an operation of that name never exists: NOT_FOUND)."""
TRANSPORT_CODES = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
"""A call that failed these ways never reached the server's code."""
AUTH_CODES = (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED)


class ConnectionFailed(Exception):
    """The server could not be used; the message is one line naming the address and why."""


@dataclass(frozen=True)
class Options:
    """What the connection flags say, with the files and the key read."""

    address: str
    tls: bool = False
    root_certificates: bytes | None = None
    client_certificate: bytes | None = None
    client_key: bytes | None = field(default=None, repr=False)
    api_key: str | None = field(default=None, repr=False)
    key_source: str | None = None
    """Where the key came from, for messages (``$EVALD_API_KEY``); never the key."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The connection flags (``--server`` itself is the command's own)."""
    group = parser.add_argument_group("connection to the server (with --server)")
    group.add_argument(
        "--api-key-env",
        metavar="NAME",
        help=f"environment variable holding the API key (default {DEFAULT_KEY_ENV}, "
        "when set); sent as x-goog-api-key",
    )
    group.add_argument(
        "--tls", action="store_true", help="speak TLS, trusting the system's CA certificates"
    )
    group.add_argument(
        "--tls-ca",
        type=Path,
        metavar="FILE",
        help="speak TLS, trusting the PEM CA certificates in FILE (e.g. the server's "
        "self-signed --tls-cert)",
    )
    group.add_argument(
        "--tls-client-cert",
        type=Path,
        metavar="FILE",
        help="PEM client certificate, for a server that requires one (mTLS); implies TLS",
    )
    group.add_argument(
        "--tls-client-key", type=Path, metavar="FILE", help="PEM private key of --tls-client-cert"
    )


def options(args: argparse.Namespace, env: Mapping[str, str] | None = None) -> Options:
    """The connection ``args`` describe (``args.server`` and the flags of
    :func:`add_arguments`); ValueError naming the flag for a bad one (bad usage)."""
    env = os.environ if env is None else env
    cert, key = args.tls_client_cert, args.tls_client_key
    if (cert is None) != (key is None):
        raise ValueError("--tls-client-cert and --tls-client-key go together")
    api_key, source = None, None
    if args.api_key_env is not None:
        api_key = env.get(args.api_key_env, "").strip()
        if not api_key:
            raise ValueError(f"--api-key-env {args.api_key_env}: that variable is not set")
        source = "$" + args.api_key_env
    elif env.get(DEFAULT_KEY_ENV, "").strip():
        api_key, source = env[DEFAULT_KEY_ENV].strip(), "$" + DEFAULT_KEY_ENV
    return Options(
        address=args.server,
        tls=bool(args.tls or args.tls_ca or cert),
        root_certificates=_read("--tls-ca", args.tls_ca),
        client_certificate=_read("--tls-client-cert", cert),
        client_key=_read("--tls-client-key", key),
        api_key=api_key,
        key_source=source,
    )


def _read(flag: str, path: Path | None) -> bytes | None:
    if path is None:
        return None
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ValueError(f"{flag} {path}: {exc.strerror}") from None
    if b"-----BEGIN " not in data:
        raise ValueError(f"{flag} {path}: not a PEM file")
    return data


def channel(opts: Options) -> grpc.aio.Channel:
    """A ``grpc.aio`` channel to ``opts.address`` (not yet connected) that sends the API key
    with every call."""
    interceptors: list[Any] = []
    if opts.api_key is not None:
        metadata = ((KEY_HEADER, opts.api_key),)
        interceptors = [_UnaryUnary(metadata), _UnaryStream(metadata), _StreamUnary(metadata)]
        interceptors.append(_StreamStream(metadata))
    if not opts.tls:
        return grpc.aio.insecure_channel(opts.address, interceptors=interceptors)
    credentials = grpc.ssl_channel_credentials(
        opts.root_certificates, opts.client_key, opts.client_certificate
    )
    return grpc.aio.secure_channel(opts.address, credentials, interceptors=interceptors)


async def connect(args: argparse.Namespace, timeout: float = CONNECT_SECONDS) -> grpc.aio.Channel:
    """A channel to ``args.server`` that has answered a first call; ConnectionFailed saying why
    not (refused, TLS, authentication, not a gRPC port, a bad flag, ...)."""
    try:
        opts = options(args)
    except ValueError as exc:
        raise ConnectionFailed(str(exc)) from None
    return await open_channel(opts, timeout)


async def open_channel(opts: Options, timeout: float = CONNECT_SECONDS) -> grpc.aio.Channel:
    """:func:`connect` with the options read already."""
    opened = channel(opts)
    probe = opened.unary_unary(
        PROBE_METHOD,
        request_serializer=lro.GetOperationRequest.SerializeToString,
        response_deserializer=lro.Operation.FromString,
    )
    try:
        await probe(lro.GetOperationRequest(name=PROBE_NAME), timeout=timeout)
    except grpc.aio.AioRpcError as exc:
        # Any answer but these came from the server itself, past TLS and the key check.
        if exc.code() in TRANSPORT_CODES or exc.code() in AUTH_CODES:
            await opened.close(None)
            raise ConnectionFailed(describe(exc, opts, timeout)) from None
    except BaseException:
        await opened.close(None)
        raise
    return opened


# What gRPC's transport says (its error text, lowercased) -> why, in the user's terms. The first
# match wins; the texts are gRPC core's.
_ANY_REASONS = (
    ("connection refused", "connection refused (is evald serving on that port?)"),
    ("dns resolution failed", "cannot resolve the host name"),
    ("errors resolving", "cannot resolve the host name"),
)
_CLOSED = (
    "the server closed the connection at once: it probably speaks TLS "
    "(give --tls-ca FILE, or --tls)"
)
_PLAIN_REASONS = (
    *_ANY_REASONS,
    (
        "http1.x server",
        "the port answers HTTP/1.x, not gRPC (is it the HTTP gateway's port? give the gRPC port)",
    ),
    ("socket closed", _CLOSED),
    ("connection reset", _CLOSED),
)
_TLS_CLOSED = (
    "the server closed the TLS connection during the handshake: it probably requires a client "
    "certificate (--tls-client-cert, --tls-client-key) or does not accept the one given"
)
_TLS_REASONS = (
    *_ANY_REASONS,
    ("wrong_version_number", "TLS handshake failed: the server does not speak TLS on that port"),
    ("peer name", "TLS handshake failed: the server's certificate does not name that host"),
    (
        "alpn",
        "the port speaks TLS but not gRPC (is it the HTTP gateway's port? give the gRPC port)",
    ),
    ("socket closed", _TLS_CLOSED),
    ("connection reset", _TLS_CLOSED),
)


def describe(error: grpc.RpcError, opts: Options | None = None, timeout: float = 0.0) -> str:
    """One line for a failed call: the address and why, for a transport or authentication
    failure in the user's terms (which flag to give), else the status and the server's
    message. Never the key."""
    code: grpc.StatusCode = error.code()
    details = " ".join(str(error.details() or "").split())
    where = f"the server at {opts.address}" if opts is not None else "the server"
    if code == grpc.StatusCode.UNAVAILABLE:
        return f"cannot reach {where}: {_transport_reason(details, opts)}"
    if code == grpc.StatusCode.DEADLINE_EXCEEDED and timeout:
        return f"cannot reach {where}: no answer within {timeout:g} s"
    if code == grpc.StatusCode.UNAUTHENTICATED:
        if opts is not None and opts.key_source is None:
            how = f"set {DEFAULT_KEY_ENV} or name the variable holding it with --api-key-env"
            return f"{where} requires an API key: {how} ({details})"
        source = f" from {opts.key_source}" if opts is not None else ""
        return f"{where} refused the API key{source}: {details}"
    if code == grpc.StatusCode.PERMISSION_DENIED:
        return f"{where} denied the call: {details}"
    return f"{where} answered {code.name}: {details}"


def _transport_reason(details: str, opts: Options | None) -> str:
    text = details.lower()
    tls = opts is not None and opts.tls
    for needle, reason in _TLS_REASONS if tls else _PLAIN_REASONS:
        if needle in text:
            return reason
    if "certificate_verify_failed" in text:
        trusted = "--tls-ca" if opts is not None and opts.root_certificates else "the system's CAs"
        why = details[text.index("certificate_verify_failed") + len("certificate_verify_failed") :]
        why = why.strip(": ").removesuffix(": OK").strip()
        return f"TLS handshake failed: the server's certificate is not trusted by {trusted}" + (
            f" ({why})" if why else ""
        )
    if "handshake" in text or "ssl" in text:
        return f"TLS handshake failed: {_last_error(details)}"
    return _last_error(details)


def _last_error(details: str) -> str:
    """gRPC's ``failed to connect to all addresses; last error: UNKNOWN: ipv4:...: why``, as
    ``why``."""
    if "last error: " not in details:
        return details or "unavailable"
    parts = details.rpartition("last error: ")[2].split(": ", 2)
    return parts[2] if len(parts) == 3 else details


class _Metadata:
    """Adds fixed metadata (the API key) to every call."""

    def __init__(self, metadata: tuple[tuple[str, str], ...]) -> None:
        self.metadata = metadata

    def details(self, details: grpc.aio.ClientCallDetails) -> grpc.aio.ClientCallDetails:
        metadata = grpc.aio.Metadata(*(details.metadata or ()), *self.metadata)
        return grpc.aio.ClientCallDetails(
            details.method,
            details.timeout,
            metadata,
            details.credentials,
            details.wait_for_ready,
        )


class _UnaryUnary(_Metadata, grpc.aio.UnaryUnaryClientInterceptor):  # type: ignore[type-arg]
    async def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return await continuation(self.details(details), request)


class _UnaryStream(_Metadata, grpc.aio.UnaryStreamClientInterceptor):  # type: ignore[type-arg]
    async def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return await continuation(self.details(details), request)


class _StreamUnary(_Metadata, grpc.aio.StreamUnaryClientInterceptor):  # type: ignore[type-arg]
    async def intercept_stream_unary(self, continuation: Any, details: Any, requests: Any) -> Any:
        return await continuation(self.details(details), requests)


class _StreamStream(_Metadata, grpc.aio.StreamStreamClientInterceptor):  # type: ignore[type-arg]
    async def intercept_stream_stream(self, continuation: Any, details: Any, requests: Any) -> Any:
        return await continuation(self.details(details), requests)
