"""Work off the event loop: results and errors come back whole, in a scoring process or a
thread; a scoring process that dies mid-job is RESOURCE_EXHAUSTED, not tried again here."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator

import pytest
from evald import offload, scoring
from evald.errors import EvalError, FieldViolation, InvalidArgument, NotFound, ResourceExhausted


def square(x: int) -> int:
    return x * x


def invalid() -> None:
    raise InvalidArgument.of([FieldViolation("a.b", "bad"), FieldViolation("a.c", "worse")])


def missing() -> None:
    raise NotFound("metric 'm' is not registered")


def die(parent: int) -> None:
    """End the scoring process running it; in ``parent`` (the test process, were the job ever
    run in a thread) raise instead: ending it would take the test runner down."""
    if os.getpid() == parent:
        raise RuntimeError("the job ran in the test process, not in a scoring process")
    os._exit(9)


@pytest.fixture(params=[1, 0], ids=["process", "thread"])
def processes(request: pytest.FixtureRequest) -> Iterator[int]:
    scoring.configure_scoring(request.param)
    yield request.param
    scoring.configure_scoring(0)


def test_a_result_comes_back(processes: int) -> None:
    assert asyncio.run(offload.call(square, 7)) == 49


def test_an_invalid_argument_comes_back_with_its_fields(processes: int) -> None:
    with pytest.raises(InvalidArgument) as caught:
        asyncio.run(offload.call(invalid))
    assert [v.field for v in caught.value.violations] == ["a.b", "a.c"]
    assert caught.value.message == "a.b: bad (and 1 more field violation(s))"


def test_another_error_keeps_its_code_and_message(processes: int) -> None:
    with pytest.raises(EvalError) as caught:
        asyncio.run(offload.call(missing))
    assert caught.value.to_status().code == NotFound.code.value[0]
    assert caught.value.message == "metric 'm' is not registered"


def test_a_process_that_dies_is_not_tried_again_here() -> None:
    scoring.configure_scoring(1)
    scoring.warm_scoring_pool()  # the job must reach a process, never the thread fallback
    try:
        with pytest.raises(ResourceExhausted, match="ran out of memory or was killed"):
            asyncio.run(offload.call(die, os.getpid()))
    finally:
        scoring.shutdown_scoring()
        scoring.configure_scoring(0)
