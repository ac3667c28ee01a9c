"""``evald evaluate -c``: eval files run end to end in this process, with computed metrics, a
judge rubric graded by the scripted judge, a model target (the scripted model endpoint) and a
server; the printed pass rate, the outputs and the exit codes 0, 1, 2 and 4."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from evald.cli import main

from tests.fakes import model_server
from tests.fakes.judge_config import configure
from tests.fakes.judge_server import FakeJudge, running
from tests.fakes.model_server import FakeModel, ModelRequest, running_in_thread
from tests.support import ServerThread

ROWS = [
    {"prompt": "Capital of France?", "response": "Paris, please note.", "reference": "Paris"},
    {"prompt": "Capital of Italy?", "response": "Milan", "reference": "Rome"},
]
ANSWERS = {"France": "It is Paris.", "Italy": "It is Rome.", "Spain": "It is Lisbon."}


def judged(prompt: str) -> str:
    """The scripted judge: a response meets the rubric when it says please."""
    response = prompt.split("# Response\n")[1].split("\n\nScore how well")[0]
    score = 1 if "please" in response else 0
    return json.dumps({"explanation": f"please: {bool(score)}", "score": score})


def answered(request: ModelRequest) -> model_server.Reply:
    """The scripted model: answers the capital of the country its prompt names."""
    text = request.messages[-1]["content"] if request.messages else request.prompt or ""
    country = text.split("Capital of ")[1].rstrip("?")
    return model_server.Reply(text=ANSWERS[country])


@pytest.fixture(scope="module")
def judge() -> Iterator[FakeJudge]:
    with running(FakeJudge(default=judged)) as fake:
        yield fake


@pytest.fixture(scope="module")
def model() -> Iterator[FakeModel]:
    with running_in_thread(FakeModel(reply=answered)) as fake:
        yield fake


def write(directory: Path, document: dict[str, Any], name: str = "evals.json") -> Path:
    (directory / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    path = directory / name
    path.write_text(json.dumps(document))
    return path


def evaluate(path: Path, *extra: str) -> int:
    return main(
        ["evaluate", "-c", str(path), "--output", str(path.parent / "out"), "--quiet", *extra]
    )


def results(path: Path) -> list[dict[str, Any]]:
    lines = (path.parent / "out" / "results.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_metrics_and_a_judge_rubric(
    judge: FakeJudge,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    configure(monkeypatch, tmp_path, judge.url, "openai")
    path = write(
        tmp_path,
        {
            "data": "rows.jsonl",
            "metrics": ["bleu"],
            "judge": {"model": "judge-llm", "sampling_count": 1},
            "defaultTest": {"assert": [{"icontains": "{{reference}}"}]},
            "tests": [
                {
                    "description": "polite",
                    "vars": {"response": "Rome, please.", "reference": "Rome"},
                    "assert": [
                        {"type": "rubric", "value": "Says please to {{reference}}"},
                        {"metric": "exact_match", "max": 0},
                    ],
                }
            ],
        },
    )
    judge.reset()
    assert evaluate(path) == 4
    out, err = capsys.readouterr()
    assert "pass rate: 66.7% (2/3 rows), required 100.0%" in out
    assert "defaultTest.assert[0]     2/3  icontains" in out
    assert 'tests[0].assert[0]        1/1  rubric "Says please to {{reference}}" >= 0.5' in out
    assert 'FAIL data[1] defaultTest.assert[0] icontains: "Rome" not found' in err
    assert [line.split()[0] for line in out.splitlines()[2:4]] == ["bleu", "exact_match"]
    (call,) = judge.calls  # one rubric, one row
    assert "Says please to Rome" in call.prompt
    assert call.model == "judge-llm"

    found = results(path)
    assert [(r["test"], r["passed"]) for r in found] == [
        ("data[0]", True),
        ("data[1]", False),
        ("tests[0]", True),
    ]
    rubric = found[2]["assertions"][1]
    assert rubric == {
        "assertion": "tests[0].assert[0]",
        "type": "rubric",
        "passed": True,
        "reason": "judge score 1 >= 0.5: please: True",
        "score": 1.0,
    }
    assert [r["metric"] for r in found[2]["results"]] == ["bleu", "exact_match"]
    aggregation = json.loads((tmp_path / "out" / "aggregation.json").read_text())
    assert aggregation["assertions"]["pass_rate"] == pytest.approx(2 / 3)
    assert [m["metric"] for m in aggregation["metrics"]] == ["bleu", "exact_match"]
    page = (tmp_path / "out" / "report.html").read_text()
    assert '<section id="assertions">' in page
    assert "&quot;Rome&quot; not found in the response" in page  # reasons are escaped

    assert evaluate(path, "--min-pass-rate", "0.6") == 0


def test_a_model_target(
    model: FakeModel, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [{"country": c, "capital": "Paris" if c == "France" else "Rome"} for c in ANSWERS]
    path = write(
        tmp_path,
        {
            "target": {
                "url": f"{model.url}/v1",
                "model_id": "m",
                "system": "Be brief.",
                "prompt": "Capital of {{country}}?",
                "params": {"max_tokens": 8},
            },
            "tests": [{"vars": row} for row in rows],
            "defaultTest": {"assert": [{"contains": "{{capital}}"}, {"starts-with": "It is"}]},
            "metrics": ["exact_match"],
            "threshold": 0.5,
        },
    )
    model.requests.clear()
    assert evaluate(path) == 0  # 2 of 3 rows pass: Spain's capital is not Rome
    assert "pass rate: 66.7% (2/3 rows), required 50.0%" in capsys.readouterr().out
    found = results(path)
    assert found[0]["input"] == {
        "prompt": "Capital of France?",
        "country": "France",
        "capital": "Paris",
        "response": "It is Paris.",
    }
    assert [r["passed"] for r in found] == [True, True, False]
    first = next(r for r in model.requests if "France" in json.dumps(r.body))
    assert first.messages[0] == {"role": "system", "content": "Be brief."}
    assert first.body["max_tokens"] == 8

    model.fail(1, status=400)  # a client error: not retried
    assert evaluate(path) == 4  # one row has no response, and Spain's is wrong
    found = results(path)
    failed = next(r for r in found if "target_error" in r)
    assert "400" in failed["target_error"]
    assert failed["results"][0]["error"]["code"] == "UNAVAILABLE"
    assert failed["assertions"][0]["reason"].startswith("target: ")

    model.fail(3, status=400)
    assert evaluate(path) == 1
    assert "the target failed on every row" in capsys.readouterr().err


def test_invalid_files_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "evals.yaml"
    path.write_text(
        "tests:\n  - vars: {response: a}\n  - vars: {response: b}\n"
        "    assert:\n      - type: containz\n        value: a\n"
    )
    assert evaluate(path) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{path}: tests[1].assert[0].type: unknown assertion 'containz'; ")
    assert err.count("\n") == 1
    assert evaluate(path, "--metric", "bleu") == 2
    assert "--metric: does not go with --eval-file" in capsys.readouterr().err
    assert main(["evaluate", "--min-pass-rate", "0.5"]) == 2
    valid = write(tmp_path, {"tests": [{"vars": {"response": "a"}}], "metrics": ["bleu"]})
    capsys.readouterr()
    assert evaluate(valid, "--aggregation", "NOPE") == 2
    assert capsys.readouterr().err.startswith("evald evaluate: unknown --aggregation")


def test_through_a_server(server: ServerThread, tmp_path: Path) -> None:
    document = {
        "data": "rows.jsonl",
        "server": server.address,
        "defaultTest": {"assert": [{"metric": "rouge:rougeL", "threshold": 0.5}]},
    }
    path = write(tmp_path, document)
    assert evaluate(path) == 4  # Milan is not Rome
    through_server = results(path)
    assert [r["passed"] for r in through_server] == [True, False]
    assert evaluate(path, "--local") == 4
    assert results(path) == through_server
