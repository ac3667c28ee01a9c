"""Structured logs: one JSON object per line, the request line's fields, where they go."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from evald import logs


def record(
    msg: str = "hello %s", args: tuple[object, ...] = ("world",), **fields: object
) -> logging.LogRecord:
    made = logging.LogRecord("evald.test", logging.WARNING, __file__, 1, msg, args, None)
    if fields:
        made.fields = fields
    return made


def test_formats_one_json_line() -> None:
    line = logs.JsonFormatter().format(record())
    assert "\n" not in line
    parsed = json.loads(line)
    assert parsed["msg"] == "hello world"
    assert parsed["level"] == "warning"
    assert parsed["logger"] == "evald.test"
    assert isinstance(parsed["ts"], float)


def test_fields_become_keys_and_unusual_values_are_strings() -> None:
    parsed = json.loads(
        logs.JsonFormatter().format(record(port=50051, path=logs.__name__, obj={1}))
    )
    assert parsed["port"] == 50051
    assert parsed["obj"] == "{1}"


def test_non_ascii_and_newlines_stay_on_one_line() -> None:
    line = logs.JsonFormatter().format(record("日本\nsecond line", ()))
    assert "\n" not in line
    assert json.loads(line)["msg"] == "日本\nsecond line"
    assert "日本" in line  # readable, not \u-escaped


def test_exception_is_included() -> None:
    try:
        raise ValueError("boom")
    except ValueError:
        made = record()
        made.exc_info = sys.exc_info()
    parsed = json.loads(logs.JsonFormatter().format(made))
    assert "ValueError: boom" in parsed["exc"]


@pytest.fixture
def restore_logging() -> Iterator[None]:
    """configure() rewires the root logger; put it back for the other tests (and caplog)."""
    root, evald = logging.getLogger(), logging.getLogger("evald")
    saved = (root.handlers[:], root.level, evald.handlers[:], evald.level, evald.propagate)
    yield
    root.handlers[:], root.level = saved[0], saved[1]
    evald.handlers[:], evald.level, evald.propagate = saved[2], saved[3], saved[4]


@pytest.mark.usefixtures("restore_logging")
def test_configure_sends_json_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    logs.configure("INFO")
    logs.request_line("/pkg.Service/Method", "bleu_input", 3, "OK", 1.23456)
    logging.getLogger("evald.server").debug("not at INFO")
    logging.getLogger("grpc._cython").info("library chatter below WARNING")
    logging.getLogger("asyncio").error("library error")
    out, err = capsys.readouterr()
    assert out == ""
    lines = [json.loads(line) for line in err.splitlines()]
    assert [(r["logger"], r["msg"]) for r in lines] == [
        ("evald.request", "request"),
        ("asyncio", "library error"),
    ]
    assert {k: lines[0][k] for k in ("method", "metric", "instances", "code", "ms")} == {
        "method": "/pkg.Service/Method",
        "metric": "bleu_input",
        "instances": 3,
        "code": "OK",
        "ms": 1.235,
    }


@pytest.mark.usefixtures("restore_logging")
def test_configure_level_applies_to_evald(capsys: pytest.CaptureFixture[str]) -> None:
    logs.configure("warning")
    logs.request_line("/m", "x", 1, "OK", 0.0)
    logging.getLogger("evald.server").warning("kept")
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    assert [r["msg"] for r in lines] == ["kept"]


@pytest.mark.usefixtures("restore_logging")
def test_configure_twice_does_not_duplicate(capsys: pytest.CaptureFixture[str]) -> None:
    logs.configure()
    logs.configure()
    logging.getLogger("evald").warning("once")
    assert len(capsys.readouterr().err.splitlines()) == 1


def test_request_line_record(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="evald.request")
    logs.request_line("/m", "exact_match_input", 2, "INVALID_ARGUMENT", 0.5)
    (made,) = caplog.records
    assert made.name == "evald.request"
    assert made.levelno == logging.INFO
    assert made.fields == {  # type: ignore[attr-defined]
        "method": "/m",
        "metric": "exact_match_input",
        "instances": 2,
        "code": "INVALID_ARGUMENT",
        "ms": 0.5,
    }


@pytest.mark.usefixtures("restore_logging")
@pytest.mark.parametrize("level", ["INFO", "WARNING"])
def test_direct_request_lines_equal_formatted_ones(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, level: str
) -> None:
    monkeypatch.setattr(logs, "_direct", None)
    logs.configure(level)
    logs.request_line("/pkg.Service/Method", "bleu_input", 3, "OK", 1.23456)
    logs.write_request_lines_directly()
    assert logs._direct is not None
    logs.request_line("/pkg.Service/Method", "bleu_input", 3, "OK", 1.23456)
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    if level == "WARNING":  # below the configured level: neither path writes
        assert lines == []
        return
    formatted, direct = lines
    assert list(direct) == list(formatted)  # same keys, same order
    assert {k: v for k, v in direct.items() if k != "ts"} == {
        k: v for k, v in formatted.items() if k != "ts"
    }


@pytest.mark.usefixtures("restore_logging")
def test_direct_request_line_is_json_dumps_of_the_record(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(logs, "_direct", None)
    logs.configure("INFO")
    logs.write_request_lines_directly()
    logs.request_line('/a"b', "métrique\\x", 7, "NOT_FOUND", 0.0004)
    (line,) = capsys.readouterr().err.splitlines()
    record = json.loads(line)
    assert line == json.dumps(record, ensure_ascii=False)
    assert record["metric"] == "métrique\\x"
    assert record["method"] == '/a"b'


def accept_error(message: str = "socket.accept() out of system resource\nsocket: <...>") -> Any:
    return logging.LogRecord("asyncio", logging.ERROR, __file__, 1, message, None, None)


def test_accept_errors_pass_once_per_interval_saying_how_many_were_left_out() -> None:
    now = [100.0]
    limit = logs.AcceptErrorLimit(interval=10.0, clock=lambda: now[0])
    assert limit.filter(accept_error())
    assert [limit.filter(accept_error()) for _ in range(50)] == [False] * 50
    assert limit.filter(accept_error("Task was destroyed but it is pending!"))  # other lines
    now[0] = 109.9
    assert not limit.filter(accept_error())
    now[0] = 110.0
    record = accept_error()
    assert limit.filter(record)
    assert record.getMessage().endswith("\n(51 more since the last such line)")
    assert not limit.filter(accept_error())
