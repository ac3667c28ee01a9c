"""``evald evaluate --nemo-config``: NeMo Evaluator's documented job bodies run in-process on
local files, with the scripted model endpoint as the target and as the llm-judge."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from evald.cli import main
from sacrebleu.metrics.bleu import BLEU

from tests.fakes.model_server import FakeModel, ModelRequest, Reply, running_in_thread

ROWS = [
    {"question": "What is the capital of France", "answer": "Paris",
     "reference_answer": "The capital of France is Paris."},
    {"question": "Who wrote Hamlet", "answer": "Shakespeare",
     "reference_answer": "Hamlet was written by Shakespeare."},
    {"question": "What is 2 + 2", "answer": "4", "reference_answer": "Two plus two is 4."},
]  # fmt: skip
ANSWERS = {"What is the capital of France": "Paris", "Who wrote Hamlet": "Marlowe",
           "What is 2 + 2": "It is 4"}  # fmt: skip


def reply(request: ModelRequest) -> Reply:
    if request.kind == "completion":
        question = (request.prompt or "").split("this question: ")[1].split(".\n")[0]
        return Reply(text=ANSWERS[question])
    return Reply(text="SIMILARITY: 6")


@pytest.fixture(scope="module")
def model() -> Iterator[FakeModel]:
    with running_in_thread(FakeModel(reply=reply)) as fake:
        yield fake


def job(model_url: str) -> dict[str, Any]:
    """NeMo's documented custom job (string-check, bleu, llm-judge) on a local file."""
    return {
        "target": {"type": "model",
                   "model": {"api_endpoint": {"url": f"{model_url}/v1/completions",
                                              "model_id": "m"}}},
        "config": {"type": "custom", "tasks": {"qa": {
            "type": "completion",
            "params": {"template": {
                "prompt": "Answer very briefly (no explanation) this question: {{question}}."
                          "\nAnswer: ", "max_tokens": 30}},
            "metrics": {
                "accuracy": {"type": "string-check",
                             "params": {"check": ["{{sample.output_text}}", "contains",
                                                  "{{item.answer}}"]}},
                "bleu": {"type": "bleu", "params": {"references": ["{{reference_answer}}"]}},
                "accuracy-2": {"type": "llm-judge", "params": {
                    "model": {"api_endpoint": {"url": model_url, "model_id": "judge"}},
                    "template": {"messages": [
                        {"role": "system", "content": "Evaluate the similarity."},
                        {"role": "user", "content": "RESPONSE 1: {{item.reference_answer}}\n\n"
                                                    "RESPONSE 2: {{sample.output_text}}."}]},
                    "scores": {"similarity": {"type": "int", "parser": {
                        "type": "regex", "pattern": "SIMILARITY: (\\d)"}}}}},
            },
            "dataset": {"files_url": "data/qa.json"},
        }}},
    }  # fmt: skip


def evaluate(*argv: str) -> int:
    return main(["evaluate", "--quiet", *argv])


def test_documented_custom_job(
    tmp_path: Path, model: FakeModel, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data/qa.json").write_text(json.dumps(ROWS))
    (tmp_path / "job.json").write_text(json.dumps(job(model.url)))
    out = tmp_path / "out"
    code = evaluate("--nemo-config", str(tmp_path / "job.json"), "--output", str(out))
    assert code == 0, capsys.readouterr().err
    table = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in table[2:]] == [
        "accuracy/string-check",
        "bleu/sentence",
        "accuracy-2/similarity",
    ]
    result = json.loads((out / "results.json").read_text())
    scores = result["tasks"]["qa"]["metrics"]
    assert scores["accuracy"]["scores"]["string-check"]["value"] == pytest.approx(2 / 3)
    outputs = [ANSWERS[r["question"]] for r in ROWS]
    sentence = [
        BLEU(effective_order=True).sentence_score(o, [r["reference_answer"]]).score
        for o, r in zip(outputs, ROWS, strict=True)
    ]
    assert scores["bleu"]["scores"]["sentence"]["value"] == pytest.approx(sum(sentence) / 3)
    assert scores["accuracy-2"]["scores"]["similarity"]["value"] == 6.0
    assert len((out / "rows.jsonl").read_text().splitlines()) == 3
    aggregation = json.loads((out / "aggregation.json").read_text())
    assert aggregation["metrics"][1]["dataset_scores"]["corpus"] == pytest.approx(
        scores["bleu"]["scores"]["corpus"]["value"]
    )
    assert "accuracy-2/similarity" in (out / "report.html").read_text()


def test_similarity_seed_offline_with_a_target_override(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """NeMo's similarity_metrics example, its outputs given by a rows target."""
    config = {
        "type": "similarity_metrics",
        "name": "similarity-metrics-basic",
        "namespace": "my-organization",
        "params": {"max_tokens": 200, "temperature": 0.7, "extra": {"top_k": 20}},
        "tasks": {"my-similarity-metrics-task": {
            "type": "default",
            "metrics": {"accuracy": {"type": "accuracy"}, "bleu": {"type": "bleu"},
                        "rouge": {"type": "rouge"}, "em": {"type": "em"}, "f1": {"type": "f1"}},
        }},
    }  # fmt: skip
    (tmp_path / "job.json").write_text(
        json.dumps({"config": config, "target": {"type": "model", "model": "unused"}})
    )
    row = {"input": "What is the capital of France?", "reference": "Paris", "output": "Paris"}
    rows = {"type": "rows", "rows": [row]}
    out = tmp_path / "out"
    code = evaluate(
        "--nemo-config", str(tmp_path / "job.json"), "--target", json.dumps(rows),
        "--output", str(out),
    )  # fmt: skip
    assert code == 0, capsys.readouterr().err
    result = json.loads((out / "results.json").read_text())
    scores = result["groups"]["evaluation"]["metrics"]["evaluation"]["scores"]
    for name in ("accuracy", "bleu_score", "rouge_1_score", "em_score", "f1_score"):
        assert scores[name]["value"] == pytest.approx(1.0), name


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--metric", "bleu"], "takes its metrics and data from the job body"),
        (["--target", "{not json"], "--target"),
    ],
)
def test_usage_errors(
    tmp_path: Path, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "job.json").write_text(json.dumps(job("http://127.0.0.1:9")))
    assert evaluate("--nemo-config", str(tmp_path / "job.json"), *argv) == 2
    assert message in capsys.readouterr().err


def test_bad_config_names_the_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = job("http://127.0.0.1:9")
    body["config"]["tasks"]["qa"]["metrics"]["bleu"]["params"] = {"refs": ["x"]}
    (tmp_path / "job.json").write_text(json.dumps(body))
    assert evaluate("--nemo-config", str(tmp_path / "job.json")) == 2
    assert "config.tasks.qa.metrics.bleu.params.refs" in capsys.readouterr().err
