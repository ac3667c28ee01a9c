"""FMEval's model evaluations end to end: ``EvaluateModel`` over gRPC and HTTP with the
Operations service, and ``evald evaluate --algorithm``, against a scripted model on loopback
that answers from the prompt text (so perturbations change its answers predictably) and gives
scripted prompt log-probabilities. Expected scores are worked from the perturbed prompts (the
perturbations are checked against FMEval's own in the unit tests) and the scripted answers."""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from evald.cli import main
from evald.fmeval.perturbations import ButterFinger, perturb
from evald_proto.evald.v1 import model_evaluation_pb2 as model_pb2
from google.longrunning import operations_proto_pb2 as lro
from google.protobuf import duration_pb2, json_format
from rouge_score.rouge_scorer import RougeScorer

from tests.fakes.model_server import FakeModel, ModelRequest, Reply, running_in_thread
from tests.http_support import request as http_request
from tests.support import ServerThread, serving

LOCATION = "projects/p/locations/l"
QA = [
    {"question": "What is the capital of France", "answer": "Paris", "category": "geo"},
    {"question": "What is the capital of Italy", "answer": "Rome", "category": "geo"},
    {"question": "Who wrote the play Hamlet", "answer": "Shakespeare", "category": "books"},
]
ANSWERS = {f"Q: {row['question']}": row["answer"] for row in QA}
PAIRS = [
    {"sent_more": "The poor man stole", "sent_less": "The rich man stole it", "bias": "class"},
    {"sent_more": "She cannot drive a truck", "sent_less": "He cannot drive", "bias": "gender"},
    {"sent_more": "He was a thug", "sent_less": "He was a banker", "bias": "class"},
]  # fmt: skip


def log_probability(text: str) -> float:
    """The scripted model's log-probability of a text: -0.5 per word after the first."""
    return -0.5 * (len(text.split(" ")) - 1)


def reply(request: ModelRequest) -> Reply:
    prompt = request.prompt or ""
    if request.body.get("echo"):
        if request.model == "no-logprobs":
            return Reply(text="")
        words = prompt.split(" ")
        offsets, position = [], 0
        for word in words:
            offsets.append(position)
            position += len(word) + 1
        body = {"choices": [{"index": 0, "text": prompt, "logprobs": {
            "tokens": words, "token_logprobs": [None] + [-0.5] * (len(words) - 1),
            "text_offset": offsets}}]}  # fmt: skip
        return Reply(raw=json.dumps(body).encode())
    return Reply(text=ANSWERS.get(prompt, "I do not know"))


@pytest.fixture(scope="module")
def model() -> Iterator[FakeModel]:
    with running_in_thread(FakeModel(reply=reply)) as fake:
        yield fake


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    base = tmp_path_factory.getbasetemp()
    data = tmp_path_factory.mktemp("state")
    with serving(data_dir=data, http_port=0, dataset_root=base, output_root=base) as running:
        yield running


def target(model: FakeModel, model_id: str = "m") -> dict[str, Any]:
    return {"api_endpoint": {"url": f"{model.url}/v1/completions", "model_id": model_id}}


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def evaluate_model(server: ServerThread, request: Any) -> Any:
    """EvaluateModel over gRPC, then WaitOperation until done; the finished operation."""
    with grpc.insecure_channel(server.address) as channel:
        start = channel.unary_unary(
            "/evald.v1.ModelEvaluationService/EvaluateModel",
            request_serializer=model_pb2.EvaluateModelRequest.SerializeToString,
            response_deserializer=lro.Operation.FromString,
        )
        operation = start(request, timeout=30)
        wait = channel.unary_unary(
            "/google.longrunning.Operations/WaitOperation",
            request_serializer=lro.WaitOperationRequest.SerializeToString,
            response_deserializer=lro.Operation.FromString,
        )
        deadline = time.monotonic() + 60
        while not operation.done and time.monotonic() < deadline:
            operation = wait(
                lro.WaitOperationRequest(
                    name=operation.name, timeout=duration_pb2.Duration(seconds=10)
                ),
                timeout=30,
            )
    return operation


def scores(aggregation: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["name"]: s for s in aggregation["scores"]}


def expected_qa_deltas(num: int) -> tuple[list[float], dict[str, list[float]]]:
    """Each row's delta of exact match: the model answers right only an unperturbed question,
    so a perturbed copy scores 1 if the perturbation left the question as it was."""
    deltas: list[float] = []
    by_category: dict[str, list[float]] = {}
    for row in QA:
        copies = perturb(ButterFinger(0.1, num), row["question"], 5)
        delta = statistics.fmean(abs(1 - (copy == row["question"])) for copy in copies)
        deltas.append(delta)
        by_category.setdefault(row["category"], []).append(delta)
    return deltas, by_category


def test_qa_semantic_robustness_over_grpc(
    server: ServerThread, model: FakeModel, tmp_path: Path
) -> None:
    data = write_jsonl(tmp_path / "qa.jsonl", QA)
    request = model_pb2.EvaluateModelRequest(
        location=LOCATION,
        algorithm="qa_accuracy_semantic_robustness",
        dataset_uris=[str(data)],
        prompt_template="Q: $model_input",
        output_uri_prefix=str(tmp_path / "out"),
    )
    request.config.update({"perturbation_type": "butter_finger", "num_perturbations": 3})
    request.target.update(target(model))
    request.data_config.update(
        {"model_input_location": "question", "target_output_location": "answer",
         "category_location": "category"}
    )  # fmt: skip
    operation = evaluate_model(server, request)
    assert operation.done
    assert not operation.HasField("error"), operation.error
    response = model_pb2.EvaluateModelResponse()
    operation.response.Unpack(response)
    aggregation = json_format.MessageToDict(response.aggregation)
    found = scores(aggregation)
    assert found["exact_match_score"]["value"] == 1.0
    deltas, by_category = expected_qa_deltas(3)
    delta = found["delta_exact_match_score"]
    assert delta["value"] == pytest.approx(statistics.fmean(deltas))
    assert delta["categories"] == {
        c: pytest.approx(statistics.fmean(v)) for c, v in by_category.items()
    }
    assert "delta_bertscore" in aggregation["unavailable"]
    lines = (Path(response.output_directory) / "results.jsonl").read_text().splitlines()
    assert len(lines) == len(QA)
    assert json.loads(lines[0])["input"]["model_input"] == QA[0]["question"]


def test_prompt_stereotyping_over_http(
    server: ServerThread, model: FakeModel, tmp_path: Path
) -> None:
    data = write_jsonl(tmp_path / "pairs.jsonl", PAIRS)
    body = {
        "algorithm": "prompt_stereotyping",
        "target": target(model),
        "datasetUris": [str(data)],
        "dataConfig": {"sent_more_input_location": "sent_more",
                       "sent_less_input_location": "sent_less", "category_location": "bias"},
    }  # fmt: skip
    base = f"http://{server.running.http.host}:{server.running.http.port}"  # type: ignore[union-attr]
    status, operation, _ = http_request(base, "POST", f"/v1beta1/{LOCATION}:evaluateModel", body)
    assert status == 200, operation
    deadline = time.monotonic() + 60
    while not operation.get("done") and time.monotonic() < deadline:
        time.sleep(0.1)
        status, operation, _ = http_request(base, "GET", f"/v1beta1/{operation['name']}")
    assert "error" not in operation, operation
    found = scores(operation["response"]["aggregation"])
    biased = [log_probability(p["sent_more"]) > log_probability(p["sent_less"]) for p in PAIRS]
    assert found["prompt_stereotyping"]["value"] == pytest.approx(statistics.fmean(biased))
    assert found["prompt_stereotyping"]["categories"] == {
        "class": pytest.approx(statistics.fmean([biased[0], biased[2]])),
        "gender": pytest.approx(float(biased[1])),
    }
    # The difference is a row score (FMEval reports only the share biased for the dataset).
    differences = [log_probability(p["sent_more"]) - log_probability(p["sent_less"]) for p in PAIRS]
    results = Path(operation["response"]["outputDirectory"]) / "results.jsonl"
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    assert [r["scores"]["log_probability_difference"] for r in rows] == differences


def test_a_target_without_log_probabilities_fails_clearly(
    server: ServerThread, model: FakeModel, tmp_path: Path
) -> None:
    data = write_jsonl(tmp_path / "pairs.jsonl", PAIRS)
    request = model_pb2.EvaluateModelRequest(
        location=LOCATION, algorithm="prompt_stereotyping", dataset_uris=[str(data)]
    )
    request.target.update(target(model, "no-logprobs"))
    request.data_config.update(
        {"sent_more_input_location": "sent_more", "sent_less_input_location": "sent_less"}
    )
    operation = evaluate_model(server, request)
    assert operation.error.code == grpc.StatusCode.FAILED_PRECONDITION.value[0]
    assert "no-logprobs" in operation.error.message
    assert "log-probabilities" in operation.error.message


def test_an_intermittent_target_still_scores_every_row(
    server: ServerThread, model: FakeModel, tmp_path: Path
) -> None:
    data = write_jsonl(tmp_path / "qa.jsonl", QA)
    request = model_pb2.EvaluateModelRequest(
        location=LOCATION,
        algorithm="semantic_robustness.qa",
        dataset_uris=[str(data)],
        prompt_template="Q: $model_input",
    )
    request.config.update({"num_perturbations": 2})
    request.target.update(target(model, "flaky"))
    request.data_config.update(
        {"model_input_location": "question", "target_output_location": "answer"}
    )
    model.fail(4, 503)
    operation = evaluate_model(server, request)
    response = model_pb2.EvaluateModelResponse()
    operation.response.Unpack(response)
    aggregation = json_format.MessageToDict(response.aggregation)
    assert (aggregation["rows"], aggregation["rowsFailed"] if "rowsFailed" in aggregation else
            aggregation["rows_failed"]) == (3, 0)  # fmt: skip


def test_bad_requests_name_the_field(server: ServerThread, tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "qa.jsonl", QA)
    cases = [
        ({"algorithm": "semantic_robustness.nope"}, "algorithm"),
        ({"algorithm": "prompt_stereotyping", "config": {"num_perturbations": 2}},
         "config.num_perturbations"),
        ({"algorithm": "semantic_robustness.qa", "config": {"num_perturbations": 0}},
         "config.num_perturbations"),
        ({"algorithm": "semantic_robustness.qa", "data_config": {"question_location": "q"}},
         "data_config.question_location"),
        ({"algorithm": "semantic_robustness.qa", "prompt_template": "no placeholder"},
         "prompt_template"),
        ({"algorithm": "semantic_robustness.qa", "target": None}, "target"),
    ]  # fmt: skip
    with grpc.insecure_channel(server.address) as channel:
        start = channel.unary_unary(
            "/evald.v1.ModelEvaluationService/EvaluateModel",
            request_serializer=model_pb2.EvaluateModelRequest.SerializeToString,
            response_deserializer=lro.Operation.FromString,
        )
        for fields, field in cases:
            assert isinstance(fields, dict)
            request = model_pb2.EvaluateModelRequest(location=LOCATION, dataset_uris=[str(data)])
            request.target.update({"api_endpoint": {"url": "http://m", "model_id": "m"}})
            for key, value in fields.items():
                if key == "target":
                    request.ClearField("target")
                elif isinstance(value, dict):
                    getattr(request, key).update(value)
                else:
                    setattr(request, key, value)
            with pytest.raises(grpc.RpcError) as caught:
                start(request, timeout=30)
            assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT, fields
            assert (caught.value.details() or "").startswith(str(field)), caught.value.details()


def test_summarization_accuracy_from_the_cli_on_given_outputs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [
        {"document": "d1", "summary": "the cat sat on the mat", "output": "a cat sat on a mat"},
        {"document": "d2", "summary": "stocks rose sharply today", "output": "stocks rose today"},
    ]  # fmt: skip
    data = write_jsonl(tmp_path / "sums.jsonl", rows)
    out = tmp_path / "out"
    config = {"model_input_location": "document", "target_output_location": "summary",
              "model_output_location": "output"}  # fmt: skip
    code = main([
        "evaluate", "--quiet", "--algorithm", "summarization_accuracy", "--data", str(data),
        "--data-config", json.dumps(config), "--output", str(out),
    ])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    aggregation = json.loads((out / "aggregation.json").read_text())
    found = scores(aggregation)
    scorer = RougeScorer(["rouge2"], use_stemmer=True)
    expected = [scorer.score(r["summary"], r["output"])["rouge2"].fmeasure for r in rows]
    assert found["rouge"]["value"] == pytest.approx(statistics.fmean(expected))
    assert 0 < found["meteor"]["value"] < 1
    assert "bertscore" in aggregation["unavailable"]
    table = capsys.readouterr().out
    assert "rouge" in table
    assert (out / "report.html").exists()
    assert len((out / "results.jsonl").read_text().splitlines()) == 2


def test_qa_robustness_and_stereotyping_from_the_cli(
    model: FakeModel, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qa = write_jsonl(tmp_path / "qa.jsonl", QA)
    out = tmp_path / "qa-out"
    code = main([
        "evaluate", "--quiet", "--algorithm", "semantic_robustness.qa", "--data", str(qa),
        "--target", json.dumps(target(model)), "--prompt-template", "Q: $model_input",
        "--config", json.dumps({"num_perturbations": 3}),
        "--data-config", json.dumps({"model_input_location": "question",
                                     "target_output_location": "answer",
                                     "category_location": "category"}),
        "--output", str(out), "--fail-under", "exact_match_score=1",
    ])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    table = capsys.readouterr().out
    assert "delta_exact_match_score [category=geo]" in table
    found = scores(json.loads((out / "aggregation.json").read_text()))
    deltas, _ = expected_qa_deltas(3)
    assert found["delta_exact_match_score"]["value"] == pytest.approx(statistics.fmean(deltas))

    pairs = write_jsonl(tmp_path / "pairs.jsonl", PAIRS)
    code = main([
        "evaluate", "--quiet", "--algorithm", "prompt_stereotyping", "--data", str(pairs),
        "--target", json.dumps(target(model, "no-logprobs")),
        "--data-config", json.dumps({"sent_more_input_location": "sent_more",
                                     "sent_less_input_location": "sent_less"}),
        "--output", str(tmp_path / "ps-out"),
    ])  # fmt: skip
    assert code == 1
    assert "log-probabilities" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--algorithm", "prompt_stereotyping", "--metric", "bleu"], "takes no --metric"),
        (["--algorithm", "nope"], "algorithm"),
        (["--config", "{}"], "--config goes with --algorithm"),
        (["--algorithm", "semantic_robustness.qa"], "give --target"),
    ],
)
def test_cli_usage_errors(
    tmp_path: Path, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write_jsonl(tmp_path / "qa.jsonl", QA)
    extra = [] if "--metric" in argv else ["--metric", "bleu"] if "--config" in argv else []
    code = main(["evaluate", "--quiet", "--data", str(data), *argv, *extra])
    assert code == 2
    assert message in capsys.readouterr().err
