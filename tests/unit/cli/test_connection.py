"""The CLI's connection flags, and gRPC's failures told in the user's terms."""

from __future__ import annotations

import argparse
from pathlib import Path

import grpc
import pytest
from evald.cli import connection
from evald.cli.connection import Options, describe

ADDRESS = "evald.example:50051"


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--server")
    connection.add_arguments(parser)
    return parser.parse_args(["--server", ADDRESS, *argv])


def test_the_key_comes_from_the_named_variable_or_the_default_one() -> None:
    env = {"MY_KEY": " k1 ", connection.DEFAULT_KEY_ENV: "k2"}
    named = connection.options(parse("--api-key-env", "MY_KEY"), env)
    assert (named.api_key, named.key_source) == ("k1", "$MY_KEY")
    default = connection.options(parse(), env)
    assert (default.api_key, default.key_source) == ("k2", "$EVALD_API_KEY")
    assert connection.options(parse(), {}).api_key is None
    assert "k1" not in repr(named)


def test_tls_follows_from_any_tls_flag(tmp_path: Path) -> None:
    pem = tmp_path / "c.pem"
    pem.write_text("-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n")
    assert not connection.options(parse(), {}).tls
    assert connection.options(parse("--tls"), {}).tls
    assert connection.options(parse("--tls-ca", str(pem)), {}).root_certificates
    both = ("--tls-client-cert", str(pem), "--tls-client-key", str(pem))
    assert connection.options(parse(*both), {}).tls


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--api-key-env", "UNSET"], "--api-key-env UNSET: that variable is not set"),
        (["--tls-client-key", "k.pem"], "--tls-client-cert and --tls-client-key go together"),
        (["--tls-ca", "/nonexistent.pem"], "--tls-ca /nonexistent.pem: No such file"),
    ],
)
def test_bad_flags(argv: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        connection.options(parse(*argv), {})


def test_a_file_that_is_not_pem(tmp_path: Path) -> None:
    (tmp_path / "ca.der").write_bytes(b"0\x82\x01")
    with pytest.raises(ValueError, match=r"ca\.der: not a PEM file"):
        connection.options(parse("--tls-ca", str(tmp_path / "ca.der")), {})


class Failed(grpc.RpcError):
    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        self._code, self._details = code, details

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details


UNAVAILABLE = grpc.StatusCode.UNAVAILABLE
LAST = "failed to connect to all addresses; last error: UNKNOWN: ipv4:10.0.0.1:50051: "
PLAIN = Options(ADDRESS)
KEYED = Options(ADDRESS, api_key="secret-key", key_source="$EVALD_API_KEY")
TLS = Options(ADDRESS, tls=True, root_certificates=b"pem")
CASES = [
    # (options, code, gRPC's details, expected)
    (PLAIN, UNAVAILABLE, LAST + "Failed to connect to remote host: Connection refused",
     "cannot reach the server at evald.example:50051: connection refused"),
    (PLAIN, UNAVAILABLE, "DNS resolution failed for evald.example:50051: C-ares status",
     "cannot resolve the host name"),
    (PLAIN, UNAVAILABLE, LAST + "Socket closed", "it probably speaks TLS"),
    (PLAIN, UNAVAILABLE, LAST + "Failed parsing HTTP/2 (Trying to connect an http1.x server)",
     "answers HTTP/1.x, not gRPC"),
    (TLS, UNAVAILABLE, LAST + "Tls handshake failed (TSI_PROTOCOL_FAILURE): SSL_ERROR_SSL: "
     "error:1000007d:SSL routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED: self signed "
     "certificate: OK",
     "not trusted by --tls-ca (self signed certificate)"),
    (TLS, UNAVAILABLE, LAST + "Tls handshake failed: WRONG_VERSION_NUMBER",
     "the server does not speak TLS"),
    (TLS, UNAVAILABLE, LAST + "Peer name evald.example is not in peer certificate",
     "does not name that host"),
    (TLS, UNAVAILABLE, LAST + "Cannot check peer: missing selected ALPN property.",
     "speaks TLS but not gRPC"),
    (TLS, UNAVAILABLE, LAST + "Socket closed", "requires a client certificate"),
    (PLAIN, UNAVAILABLE, LAST + "something new", "cannot reach the server at "
     "evald.example:50051: something new"),
    (PLAIN, grpc.StatusCode.UNAUTHENTICATED, "this server requires an API key",
     "requires an API key: set EVALD_API_KEY or name the variable holding it with --api-key-env"),
    (KEYED, grpc.StatusCode.UNAUTHENTICATED, "the API key is not valid",
     "refused the API key from $EVALD_API_KEY: the API key is not valid"),
    (KEYED, grpc.StatusCode.PERMISSION_DENIED, "not for you", "denied the call: not for you"),
    (PLAIN, grpc.StatusCode.NOT_FOUND, "operation 'x'\n does not exist",
     "answered NOT_FOUND: operation 'x' does not exist"),
]  # fmt: skip


@pytest.mark.parametrize(("opts", "code", "details", "expected"), CASES)
def test_describe(opts: Options, code: grpc.StatusCode, details: str, expected: str) -> None:
    line = describe(Failed(code, details), opts)
    assert expected in line
    assert "\n" not in line
    assert "secret-key" not in line


def test_describe_a_timeout() -> None:
    line = describe(Failed(grpc.StatusCode.DEADLINE_EXCEEDED, "Deadline Exceeded"), PLAIN, 10)
    assert line == "cannot reach the server at evald.example:50051: no answer within 10 s"
