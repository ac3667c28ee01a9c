"""NVIDIA's official ``nemo-microservices`` client against ``evald serve --http-port``, with only
its base URL pointed at evald: configs and targets CRUD, jobs from the documentation's job
bodies verbatim (placeholders filled with local endpoints and files), status until done,
results, downloads, logs, cancel and delete, and live evaluation.

The model under test and the llm-judge are scripted endpoints on loopback (OpenAI completions
and chat completions); expected scores come from sacrebleu called directly and from the
scripted judge's answers.
"""

from __future__ import annotations

import io
import json
import re
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nemo_microservices
import pytest
import sacrebleu
from evald.metrics.named.nemo import llm_judge
from nemo_microservices import NeMoMicroservices
from nemo_microservices.types import MetricResult, Score
from sacrebleu.metrics.bleu import BLEU

from tests.fakes.judge_config import configure
from tests.fakes.model_server import (
    FakeModel,
    ModelRequest,
    Reply,
    ToolCall,
    running_in_thread,
)
from tests.http_support import http_serving, http_url
from tests.support import ServerThread

QUESTIONS = [
    ("What is the capital of France?", "Paris", "The capital of France is Paris."),
    ("How many legs does a spider have?", "8", "A spider has eight legs."),
    ("What colour is the sky on a clear day?", "blue", "The sky is blue."),
    ("Who wrote Hamlet?", "Shakespeare", "Hamlet was written by William Shakespeare."),
    ("What is 2 + 2?", "4", "Two plus two is four."),
    ("What is the boiling point of water in Celsius?", "100", "Water boils at 100 degrees."),
]
ANSWERS = {
    "What is the capital of France?": "Paris.",
    "How many legs does a spider have?": "Eight",
    "What colour is the sky on a clear day?": "It is blue",
    "Who wrote Hamlet?": "William Shakespeare",
    "What is 2 + 2?": "4",
    "What is the boiling point of water in Celsius?": "212 Fahrenheit",
}
PROMPT = re.compile(r"this question: (.*)\.\nAnswer: $", re.DOTALL)


AREA_TOOL = {
    "type": "function",
    "function": {
        "name": "calculate_triangle_area",
        "description": "Calculate the area of a triangle given its base and height.",
        "parameters": {
            "type": "object",
            "properties": {"base": {"type": "integer"}, "height": {"type": "integer"},
                           "unit": {"type": "string"}},
            "required": ["base", "height"],
        },
    },
}  # fmt: skip
TOOL_ROWS = [
    {
        "messages": [{"role": "user", "content": f"Find the area of a triangle with a base of "
                                                 f"{b} units and height of {h} units."}],
        "tools": [AREA_TOOL],
        "tool_calls": [{"function": {"name": "calculate_triangle_area",
                                     "arguments": {"base": b, "height": h, "unit": "units"}}}],
    }
    for b, h in ((10, 5), (3, 4), (7, 7))
]  # fmt: skip


def model_answer(prompt: str) -> str:
    match = PROMPT.search(prompt)
    assert match, prompt
    return ANSWERS[match.group(1) if match.group(1) in ANSWERS else match.group(1) + "?"]


def judge_score(reference: str, output: str) -> int:
    """The scripted judge's similarity: shared words, at most 9."""
    return min(9, len(set(reference.lower().split()) & set(output.lower().split())))


def reply(request: ModelRequest) -> Reply:
    if request.body.get("tools"):
        # Right for the first two triangles; the third gets its height wrong.
        numbers = [int(n) for n in re.findall(r"\d+", str(request.messages[-1]["content"]))]
        base, height = numbers[0], numbers[1] if numbers[0] != 7 else 1
        args = {"base": base, "height": height, "unit": "units"}
        return Reply(tool_calls=(ToolCall("calculate_triangle_area", args),))
    if request.kind == "completion":
        assert request.prompt is not None
        return Reply(text=model_answer(request.prompt))
    user = str(request.messages[-1]["content"])
    judged = re.search(r"RESPONSE 1: (.*)\n\nRESPONSE 2: (.*)\.\n\n$", user, re.DOTALL)
    if judged:
        return Reply(text=f"SIMILARITY: {judge_score(judged.group(1), judged.group(2))}")
    return Reply(text=f"echo: {user}")


def custom_job(model_url: str, judge_url: str) -> dict[str, Any]:
    """The custom evaluation job of NeMo's documentation, verbatim but for its placeholders."""
    return {
        "namespace": "my-organization",
        "target": {
            "type": "model",
            "model": {"api_endpoint": {"url": f"{model_url}/completions", "model_id": "m-1"}},
        },
        "config": {
            "type": "custom",
            "tasks": {
                "qa": {
                    "type": "completion",
                    "params": {
                        "template": {
                            "prompt": "Answer very briefly (no explanation) this question: "
                            "{{question}}.\nAnswer: ",
                            "max_tokens": 30,
                        }
                    },
                    "metrics": {
                        "accuracy": {
                            "type": "string-check",
                            "params": {
                                "check": ["{{sample.output_text}}", "contains", "{{item.answer}}"]
                            },
                        },
                        "bleu": {
                            "type": "bleu",
                            "params": {"references": ["{{reference_answer}}"]},
                        },
                        "accuracy-2": {
                            "type": "llm-judge",
                            "params": {
                                "model": {
                                    "api_endpoint": {"url": judge_url, "model_id": "judge-1"}
                                },
                                "template": {
                                    "messages": [
                                        {
                                            "role": "system",
                                            "content": "Your task is to evaluate the semantic "
                                            "similarity between two responses.",
                                        },
                                        {
                                            "role": "user",
                                            "content": "Respond in the following format "
                                            "SIMILARITY: 4. The similarity should be a score "
                                            "between 0 and 10. \n\nRESPONSE 1: "
                                            "{{item.reference_answer}}\n\nRESPONSE 2: "
                                            "{{sample.output_text}}.\n\n",
                                        },
                                    ]
                                },
                                "scores": {
                                    "similarity": {
                                        "type": "int",
                                        "parser": {
                                            "type": "regex",
                                            "pattern": "SIMILARITY: (\\d)",
                                        },
                                    }
                                },
                            },
                        },
                    },
                    "dataset": {"files_url": "hf://datasets/default/qa-dataset"},
                }
            },
        },
    }


@pytest.fixture(scope="module")
def model() -> Iterator[FakeModel]:
    with running_in_thread(FakeModel(reply=reply)) as fake:
        yield fake


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("nemo")
    repo = root / "hf" / "default" / "qa-dataset"
    repo.mkdir(parents=True)
    rows = [
        {"question": q.rstrip("?"), "answer": a, "reference_answer": r} for q, a, r in QUESTIONS
    ]
    # NeMo's documentation asks "...this question: {{question}}." with the question mark left
    # out of the row; the scripted model finds it either way.
    (repo / "questions.json").write_text(json.dumps(rows))
    (repo / "README.md").write_text("# not data\n")
    similarity = [
        {"prompt": q, "ideal_response": a, "category": "", "source": ""} for q, a, _ in QUESTIONS
    ]
    (root / "similarity.json").write_text(json.dumps(similarity))
    (root / "tools.json").write_text(json.dumps(TOOL_ROWS))
    return root


@pytest.fixture(scope="module")
def server(data: Path) -> Iterator[ServerThread]:
    with http_serving(
        data_dir=data / "state", dataset_root=data, output_root=data, hf_datasets_dir=data / "hf"
    ) as running:
        yield running


@pytest.fixture
def client(server: ServerThread) -> NeMoMicroservices:
    return NeMoMicroservices(base_url=http_url(server), max_retries=0)


def scores_of(metric: MetricResult | None) -> dict[str, Score]:
    """A metric result's scores (present in every result evald gives)."""
    assert metric is not None
    assert metric.scores is not None
    return metric.scores


def group_scores(result: Any) -> dict[str, Score]:
    """The ``groups.evaluation.metrics.evaluation`` scores of similarity_metrics results."""
    assert result.groups is not None
    return scores_of(result.groups["evaluation"].metrics["evaluation"])


def wait(client: NeMoMicroservices, job_id: str, timeout: float = 60) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        job = client.evaluation.jobs.retrieve(job_id)
        if job.status in ("completed", "failed", "cancelled") or time.monotonic() > deadline:
            return job
        time.sleep(0.1)


def test_configs_and_targets_crud(client: NeMoMicroservices, model: FakeModel) -> None:
    config = client.evaluation.configs.create(
        type="similarity_metrics",
        name="sim-basic",
        namespace="crud",
        tasks={
            "t": {
                "type": "default",
                "dataset": {"files_url": "similarity.json"},
                "metrics": {"bleu": {"type": "bleu"}},
            }
        },
    )
    assert config.id
    assert config.id.startswith("eval-config-")
    assert (config.namespace, config.name) == ("crud", "sim-basic")
    got = client.evaluation.configs.retrieve("sim-basic", namespace="crud")
    assert got.tasks is not None
    assert got.tasks["t"].metrics is not None
    updated = client.evaluation.configs.update(
        "sim-basic", path_namespace="crud", description="edited"
    )
    assert updated.description == "edited"
    assert updated.id == config.id
    with pytest.raises(nemo_microservices.ConflictError):
        client.evaluation.configs.create(
            type="similarity_metrics", name="sim-basic", namespace="crud",
            tasks=config.model_dump(exclude_none=True)["tasks"],
        )  # fmt: skip
    names = [c.name for c in client.evaluation.configs.list(filter={"namespace": "crud"})]
    assert names == ["sim-basic"]

    target = client.evaluation.targets.create(
        type="model",
        name="m1",
        namespace="crud",
        model={
            "api_endpoint": {
                "url": f"{model.url}/v1/completions",
                "model_id": "m-1",
                "api_key": "sk-target-SECRET",
            }
        },
    )
    assert target.id
    assert target.id.startswith("eval-target-")
    shown = client.evaluation.targets.retrieve("m1", namespace="crud")
    assert "sk-target-SECRET" not in shown.model_dump_json()
    deleted = client.evaluation.targets.delete("m1", namespace="crud")
    assert deleted.id == target.id
    with pytest.raises(nemo_microservices.NotFoundError):
        client.evaluation.targets.retrieve("m1", namespace="crud")
    client.evaluation.configs.delete("sim-basic", namespace="crud")
    assert list(client.evaluation.configs.list(filter={"namespace": "crud"})) == []


def test_documented_custom_job(client: NeMoMicroservices, model: FakeModel) -> None:
    body = custom_job(f"{model.url}/v1", model.url)
    job = client.evaluation.jobs.create(**body)
    assert job.id
    assert job.id.startswith("eval-")
    assert job.status in ("pending", "running", "completed")
    done = wait(client, job.id)
    assert done.status == "completed", done.status_details
    status = client.evaluation.jobs.status(job.id)
    assert status.progress == 100.0
    assert status.samples_processed == len(QUESTIONS)
    assert status.task_status == {"qa": "completed"}

    results = client.evaluation.jobs.results(job.id)
    assert results.job == job.id
    assert results.tasks is not None
    metrics = results.tasks["qa"].metrics
    assert metrics is not None
    outputs = [ANSWERS[q] for q, _, _ in QUESTIONS]
    contains = [1.0 if a in o else 0.0 for o, (_, a, _) in zip(outputs, QUESTIONS, strict=True)]
    check = scores_of(metrics["accuracy"])["string-check"]
    assert check.value == pytest.approx(sum(contains) / len(contains))
    assert check.stats is not None
    assert check.stats.count == len(QUESTIONS)
    assert check.stats.sum == sum(contains)

    sentences = [
        BLEU(effective_order=True).sentence_score(o, [r]).score
        for o, (_, _, r) in zip(outputs, QUESTIONS, strict=True)
    ]
    bleu = scores_of(metrics["bleu"])
    assert bleu["sentence"].value == pytest.approx(sum(sentences) / len(sentences))
    corpus = sacrebleu.corpus_bleu(outputs, [[r for _, _, r in QUESTIONS]]).score
    assert bleu["corpus"].value == pytest.approx(corpus)

    similarity = [judge_score(r, o) for o, (_, _, r) in zip(outputs, QUESTIONS, strict=True)]
    judged = scores_of(metrics["accuracy-2"])["similarity"]
    assert judged.value == pytest.approx(sum(similarity) / len(similarity))
    assert judged.stats is not None
    assert judged.stats.max == max(similarity)

    # What the model and the judge were sent.
    completions = [r for r in model.requests if r.kind == "completion"]
    assert {r.body["max_tokens"] for r in completions} == {30}
    assert all(r.path == "/v1/completions" for r in completions)
    judge_calls = [r for r in model.requests if r.kind == "chat" and r.model == "judge-1"]
    assert judge_calls
    assert all(r.path == "/v1/chat/completions" for r in judge_calls)
    assert judge_calls[0].messages[0]["role"] == "system"

    archive = client.evaluation.jobs.download_results(job.id)
    with zipfile.ZipFile(io.BytesIO(archive.read())) as files:
        assert json.loads(files.read("results.json"))["job"] == job.id
        assert len(files.read("rows.jsonl").decode().splitlines()) == len(QUESTIONS)
    logs = client.evaluation.jobs.download_logs(job.id)
    assert "completed" in json.dumps(logs)
    listed = [j.id for j in client.evaluation.jobs.list()]
    assert job.id in listed
    assert client.evaluation.results.retrieve(results.id or "").job == job.id

    client.evaluation.jobs.delete(job.id)
    with pytest.raises(nemo_microservices.NotFoundError):
        client.evaluation.jobs.retrieve(job.id)


def test_job_with_stored_config_and_target(
    client: NeMoMicroservices, model: FakeModel, data: Path
) -> None:
    client.evaluation.configs.create(
        type="similarity_metrics",
        name="similarity-metrics-basic",
        namespace="my-organization",
        params={"max_tokens": 200, "temperature": 0.7, "extra": {"top_k": 20}},
        tasks={
            "my-similarity-metrics-task": {
                "type": "default",
                "dataset": {"files_url": (data / "similarity.json").as_uri()},
                "metrics": {
                    "accuracy": {"type": "accuracy"},
                    "bleu": {"type": "bleu"},
                    "rouge": {"type": "rouge"},
                    "em": {"type": "em"},
                    "f1": {"type": "f1"},
                },
            }
        },
    )
    client.evaluation.targets.create(
        type="model",
        name="chat-model",
        namespace="my-organization",
        model={"api_endpoint": {"url": f"{model.url}/v1/chat/completions", "model_id": "chat-1"}},
    )
    before = model.calls
    job = client.evaluation.jobs.create(
        config="my-organization/similarity-metrics-basic", target="my-organization/chat-model"
    )
    done = wait(client, job.id or "")
    assert done.status == "completed", done.status_details
    sent = [r for r in model.requests[before:] if r.model == "chat-1"]
    assert len(sent) == len(QUESTIONS)
    assert all(
        (r.body["max_tokens"], r.body["temperature"], r.body["top_k"]) == (200, 0.7, 20)
        for r in sent
    )
    results = client.evaluation.jobs.results(job.id or "")
    assert results.groups is not None
    scores = group_scores(results)
    assert {"accuracy", "bleu_score", "rouge_1_score", "em_score", "f1_score"} <= set(scores)
    # The model echoes the prompt: nothing matches the ideal responses exactly.
    assert scores["em_score"].value == 0.0


def test_live_similarity_metrics_with_outputs(client: NeMoMicroservices) -> None:
    live = client.evaluation.live(
        config={
            "type": "similarity_metrics",
            "tasks": {
                "t": {
                    "type": "default",
                    "metrics": {
                        "accuracy": {"type": "accuracy"},
                        "bleu": {"type": "bleu"},
                        "rouge": {"type": "rouge"},
                        "em": {"type": "em"},
                        "f1": {"type": "f1"},
                    },
                }
            },
        },
        target={
            "type": "rows",
            "rows": [
                {"input": "What is the capital of France?", "reference": "Paris", "output": "Paris"}
            ],
        },
    )
    assert live.status == "completed"
    assert live.result is not None
    assert live.result.groups is not None
    scores = group_scores(live.result)
    for name in ("accuracy", "bleu_score", "rouge_1_score", "em_score", "f1_score"):
        assert scores[name].value == pytest.approx(1.0), name


def test_malformed_bodies_are_422_naming_the_field(client: NeMoMicroservices) -> None:
    cases = [
        ({"type": "custom", "tasks": {"qa": {"type": "completions"}}},
         ["body", "config", "tasks", "qa", "type"]),
        ({"type": "custom", "tasks": {"qa": {"type": "data", "metrics": {
            "m": {"type": "bleu", "params": {"refs": ["x"]}}}}}},
         ["body", "config", "tasks", "qa", "metrics", "m", "params", "refs"]),
        ({"type": "custom", "tasks": {"qa": {"type": "completion",
                                             "params": {"template": "{{ x"}, "metrics": {}}}},
         ["body", "config", "tasks", "qa", "params", "template"]),
    ]  # fmt: skip
    for config, loc in cases:
        with pytest.raises(nemo_microservices.UnprocessableEntityError) as caught:
            client.evaluation.live(
                config=config,  # type: ignore[arg-type]
                target={"type": "rows", "rows": [{"a": 1}]},
            )
        detail = caught.value.body["detail"]  # type: ignore[index]
        assert detail[0]["loc"] == loc, detail
    with pytest.raises(nemo_microservices.UnprocessableEntityError) as caught:
        client.evaluation.jobs.create(
            config={"type": "custom", "tasks": {"t": {"type": "data",
                    "metrics": {"m": {"type": "em", "params": {"ground_truth": "x"}}}}}},
            target={"type": "model",
                    "model": {"api_endpoint": {"url": "ftp://x", "model_id": "m"}}},
        )  # fmt: skip
    assert caught.value.body["detail"][0]["loc"] == [  # type: ignore[index]
        "body", "target", "model", "api_endpoint", "url"
    ]  # fmt: skip


def test_unreachable_target_fails_rows_not_the_job(client: NeMoMicroservices, data: Path) -> None:
    body = custom_job("http://127.0.0.1:9/v1", "http://127.0.0.1:9")
    body["config"]["params"] = {"max_retries": 1, "request_timeout": 2}
    job = client.evaluation.jobs.create(**body)
    done = wait(client, job.id or "")
    assert done.status == "completed"
    assert done.status_details is not None
    assert "had errors" in (done.status_details.message or "")
    results = client.evaluation.jobs.results(job.id or "")
    assert results.tasks is not None
    assert results.tasks["qa"].data == {"rows": len(QUESTIONS), "rows_with_errors": len(QUESTIONS)}


def test_failing_target_is_retried_and_every_row_scored(
    client: NeMoMicroservices, model: FakeModel
) -> None:
    body = custom_job(f"{model.url}/v1", model.url)
    # Another prompt, so no row comes from the cache of the documented job.
    task = body["config"]["tasks"]["qa"]
    task["params"]["template"]["prompt"] = "Q. this question: {{question}}.\nAnswer: "
    del task["metrics"]["accuracy-2"]
    model.fail(3, 503, path="/v1/completions")
    job = client.evaluation.jobs.create(**body)
    done = wait(client, job.id or "")
    assert done.status == "completed"
    results = client.evaluation.jobs.results(job.id or "")
    assert results.tasks is not None
    assert results.tasks["qa"].data == {"rows": len(QUESTIONS), "rows_with_errors": 0}


def test_tool_calling_chat_completion_job(
    client: NeMoMicroservices, model: FakeModel, data: Path
) -> None:
    """NeMo's documented tool-calling evaluation: tools rendered from the row, the model's
    chat completion scored against the row's calls."""
    live = client.evaluation.live(
        target={"type": "model", "model": {"api_endpoint": {
            "url": f"{model.url}/v1/chat/completions", "model_id": "tools-1"}}},
        config={"type": "custom", "tasks": {"custom-tool-calling": {
            "type": "chat-completion",
            "dataset": {"files_url": str(data / "tools.json")},
            "params": {"template": {
                "messages": "{{ item.messages | tojson }}",
                "tools": "{{ item.tools | tojson }}",
                "tool_choice": "auto",
                "max_tokens": 64,
            }},
            "metrics": {"tool-calling-accuracy": {"type": "tool-calling", "params": {
                "tool_calls_ground_truth": "{{ item.tool_calls | tojson }}"}}},
        }}},
    )  # fmt: skip
    assert live.result is not None
    assert live.result.tasks is not None
    found = scores_of(live.result.tasks["custom-tool-calling"].metrics["tool-calling-accuracy"])  # type: ignore[index]
    assert found["function_name_accuracy"].value == 1.0
    assert found["function_name_and_args_accuracy"].value == pytest.approx(2 / 3)
    sent = [r for r in model.requests if r.model == "tools-1"]
    assert len(sent) == len(TOOL_ROWS)
    assert sent[0].body["tools"] == [AREA_TOOL]
    assert sent[0].body["tool_choice"] == "auto"
    sent_messages = sorted(json.dumps(r.body["messages"], sort_keys=True) for r in sent)
    assert sent_messages == sorted(json.dumps(t["messages"], sort_keys=True) for t in TOOL_ROWS)


def test_a_backtracking_judge_regex_fails_its_row_not_the_server(
    client: NeMoMicroservices, model: FakeModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(llm_judge, "PARSE_SECONDS", 0.5)
    started = time.monotonic()
    live = client.evaluation.live(
        target={"type": "rows", "rows": [{"output": "x"}]},
        config={"type": "custom", "tasks": {"t": {"type": "data", "metrics": {"j": {
            "type": "llm-judge", "params": {
                "model": {"api_endpoint": {"url": model.url, "model_id": "judge-slow"}},
                "template": {"messages": [{"role": "user", "content": "a" * 40 + "!"}]},
                "scores": {"s": {"type": "int",
                                 "parser": {"type": "regex", "pattern": "^echo: (a+)+$"}}},
            }}}}}},
    )  # fmt: skip
    assert time.monotonic() - started < 10
    assert live.result is not None
    assert live.result.tasks is not None
    assert live.result.tasks["t"].data == {"rows": 1, "rows_with_errors": 1}
    assert "DEADLINE_EXCEEDED" in json.dumps(live.logs)


def test_llm_judge_by_the_name_of_a_configured_judge(
    client: NeMoMicroservices,
    model: FakeModel,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """``model`` names a judge of evald's judge config (here the scripted endpoint behind the
    OpenAI-compatible backend)."""
    configure(monkeypatch, tmp_path, model.url, "openai")
    rows: list[dict[str, object]] = [
        {"output": "Paris is the capital", "reference_answer": "The capital is Paris"}
    ]
    live = client.evaluation.live(
        target={"type": "rows", "rows": rows},
        config={"type": "custom", "tasks": {"t": {"type": "data", "metrics": {"j": {
            "type": "llm-judge", "params": {
                "model": "fake",
                "template": {"messages": [
                    {"role": "system", "content": "Rate the similarity."},
                    {"role": "user", "content": "RESPONSE 1: {{item.reference_answer}}\n\n"
                                                "RESPONSE 2: {{sample.output_text}}.\n\n"}]},
                "scores": {"similarity": {"type": "int", "parser": {
                    "type": "regex", "pattern": "SIMILARITY: (\\d)"}}},
            }}}}}},
    )  # fmt: skip
    assert live.result is not None
    assert live.result.tasks is not None
    found = scores_of(live.result.tasks["t"].metrics["j"])  # type: ignore[index]
    assert found["similarity"].value == judge_score("The capital is Paris", "Paris is the capital")
    (sent,) = [r for r in model.requests if r.model == "judge-llm"]
    assert sent.messages[0] == {"role": "system", "content": "Rate the similarity."}


def test_gemini_target_through_google_genai(client: NeMoMicroservices, model: FakeModel) -> None:
    before = model.calls
    target: Any = {"type": "model", "model": {"api_endpoint": {
        "url": model.url, "model_id": "gemini-under-test", "format": "gemini",
        "api_key": "gm-SECRET"}}}  # fmt: skip
    live = client.evaluation.live(
        target=target,
        config={"type": "custom", "params": {"max_tokens": 50, "temperature": 0.2}, "tasks": {
            "t": {"type": "chat-completion",
                  "dataset": {"files_url": "similarity.json"},
                  "params": {"template": {"messages": [
                      {"role": "system", "content": "Answer briefly."},
                      {"role": "user", "content": "{{item.prompt}}"}]}},
                  "metrics": {"m": {"type": "string-check", "params": {
                      "check": ["{{sample.output_text}}", "contains", "{{item.prompt}}"]}}}}}},
    )  # fmt: skip
    assert live.result is not None
    assert live.result.tasks is not None
    found = scores_of(live.result.tasks["t"].metrics["m"])  # type: ignore[index]
    assert found["string-check"].value == 1.0  # the scripted model echoes the question
    sent = [r for r in model.requests[before:] if r.protocol == "gemini"]
    assert len(sent) == len(QUESTIONS)
    assert sent[0].body["generationConfig"]["maxOutputTokens"] == 50
    assert sent[0].headers.get("x-goog-api-key") == "gm-SECRET"
