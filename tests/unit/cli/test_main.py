"""The ``evald`` command: flags generated from Settings, one constant per fact."""

from __future__ import annotations

import dataclasses

import evald_client
import pytest
from evald import api
from evald.cli import build_parser
from evald.config import Settings


def test_every_setting_says_what_it_is() -> None:
    for field in dataclasses.fields(Settings):
        if field.metadata.get("flag") is not None:
            assert field.metadata["help"].strip(), field.name


@pytest.mark.parametrize(
    "shown",
    [
        "port to listen on, 0 for any (default 50051)",
        "largest request or response (default 64 MiB)",
        "(default 256 KiB)",
        "--enable-custom-code",
        "--no-pin-workers",
        "--judge-config",
    ],
)
def test_serve_help_is_generated_with_the_defaults(
    shown: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--help"])
    assert shown in " ".join(capsys.readouterr().out.split())


def test_gateway_takes_the_http_settings() -> None:
    args = vars(build_parser().parse_args(["gateway", "--grpc-target", "x:1", "--http-port", "8"]))
    assert args["http_port"] == 8
    assert {"http_host", "max_http_body_bytes", "tls_cert", "log_level"} <= set(args)
    assert "workers" not in args


def test_the_client_and_the_server_name_the_same_default_location() -> None:
    assert evald_client.DEFAULT_LOCATION == api.DEFAULT_LOCATION


@pytest.mark.parametrize(
    "shown",
    ["Exit codes: 0 done", "4 an eval file", "EVALD_JUDGE_BACKEND", "--max-error-rate", "--judge"],
)
def test_evaluate_help_says_how_it_ends_and_where_judges_come_from(
    shown: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["evaluate", "--help"])
    assert shown in " ".join(capsys.readouterr().out.split())
