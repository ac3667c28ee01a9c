"""Judge-backed handlers against the local fake endpoint, through the real SDK clients.

Both backends (google-genai -> Gemini REST, openai -> chat completions) run every case.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import os
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from evald import api
from evald.call import Call, Services
from evald.errors import DeadlineExceeded, FailedPrecondition, InvalidArgument, Unavailable
from evald.judges import runtime
from evald.judges.config import JudgeSpec
from evald.judges.http import MAX_ANSWER_BYTES
from evald.judges.runtime import Judges
from evald.metrics.catalog import builtin
from evald.metrics.judged.fluency import Fluency
from evald.metrics.judged.pairwise import Pairwise
from evald.metrics.judged.pairwise_question_answering_quality import (
    PairwiseQuestionAnsweringQuality,
)
from evald.metrics.judged.pointwise import Pointwise
from evald.sandbox import Sandbox
from evald_proto.aiplatform.v1beta1 import content_pb2

from tests.fakes.judge_config import API_KEY, CONFIG, MODELS, configure
from tests.fakes.judge_server import FakeJudge, Reply, running

m: Any = api.messages
BACKENDS = ["gemini", "openai"]
TEMPLATE = "Rate this response: {response}\nto the prompt: {prompt}"
INSTANCE = json.dumps({"prompt": "Say hi", "response": "Hello!"})


def verdict(score: float, explanation: str = "because") -> str:
    return json.dumps({"explanation": explanation, "score": score})


def choice(letter: str, explanation: str = "because") -> str:
    return json.dumps({"explanation": explanation, "pairwise_choice": letter})


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeJudge]:
    with running() as judge:
        yield judge


SERVICES = Services(Judges(CONFIG, None, os.environ), Sandbox(enabled=False), builtin())
"""A server's services: the judges watch the tests' judge config file."""
CALL = Call(SERVICES)
"""A request's Call: no deadline, the judge cache allowed, no autorater config."""


@pytest.fixture(autouse=True)
async def judge_connections() -> AsyncIterator[None]:
    """Close the pooled judge connections in the test's own loop, as server shutdown does."""
    yield
    await SERVICES.judges.aclose()


@pytest.fixture(params=BACKENDS)
def backend(
    request: pytest.FixtureRequest,
    fake: FakeJudge,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> str:
    """A judge config of the given backend pointing at the fake (cache off, fast retries)."""
    fake.reset()
    configure(monkeypatch, tmp_path, fake.url, request.param)
    return str(request.param)


def pointwise_input(template: str = TEMPLATE, instance: str = INSTANCE, **spec: Any) -> Any:
    return m.PointwiseMetricInput(
        metric_spec=m.PointwiseMetricSpec(metric_prompt_template=template, **spec),
        instance=m.PointwiseMetricInstance(json_instance=instance),
    )


def autorater(**fields: Any) -> Call:
    """A request's Call with the autorater config ``fields``."""
    return Call(SERVICES, autorater_config=m.AutoraterConfig(**fields))


async def test_pointwise_score_and_request_shape(fake: FakeJudge, backend: str) -> None:
    fake.script(verdict(4, "polite and short"))
    spec = {"system_instruction": "You are a strict grader."}
    result: Any = await Pointwise().evaluate_input(
        pointwise_input(**spec), "pointwise_metric_input", CALL
    )
    assert result.HasField("score")
    assert (result.score, result.explanation) == (4.0, "polite and short")
    (sent,) = fake.calls
    assert sent.protocol == backend
    assert sent.model == MODELS[backend]
    assert sent.prompt == "Rate this response: Hello!\nto the prompt: Say hi"
    assert sent.system == "You are a strict grader."
    if backend == "gemini":
        assert sent.headers["x-goog-api-key"] == API_KEY
        schema = sent.body["generationConfig"]["responseJsonSchema"]
    else:
        assert sent.headers["authorization"] == f"Bearer {API_KEY}"
        schema = sent.body["response_format"]["json_schema"]["schema"]
    assert set(schema["properties"]) == {"explanation", "score"}


async def test_score_zero_is_set(fake: FakeJudge, backend: str) -> None:
    fake.script(verdict(0))
    result: Any = await Pointwise().evaluate_input(
        pointwise_input(), "pointwise_metric_input", CALL
    )
    assert result.HasField("score")
    assert result.score == 0.0


async def test_raw_output_is_returned_without_schema(fake: FakeJudge, backend: str) -> None:
    fake.script("Rating: 3\nFree-form verdict the caller parses itself")
    spec = {"custom_output_format_config": m.CustomOutputFormatConfig(return_raw_output=True)}
    result: Any = await Pointwise().evaluate_input(
        pointwise_input(**spec), "pointwise_metric_input", CALL
    )
    assert list(result.custom_output.raw_outputs.raw_output) == [
        "Rating: 3\nFree-form verdict the caller parses itself"
    ]
    # The caller parses the raw output: score and explanation stay empty.
    assert not result.HasField("score")
    assert result.explanation == ""
    body = fake.calls[0].body
    assert "responseJsonSchema" not in body.get("generationConfig", {})
    assert "response_format" not in body


async def test_missing_template_variable_is_invalid_argument(fake: FakeJudge, backend: str) -> None:
    with pytest.raises(InvalidArgument) as err:
        await Pointwise().evaluate_input(
            pointwise_input(instance='{"response": "x"}'), "pointwise_metric_input", CALL
        )
    assert err.value.violations[0].field == "pointwise_metric_input.instance.json_instance"
    assert "'prompt'" in err.value.message
    assert fake.calls == []


@pytest.mark.parametrize(
    ("replies", "calls"),
    [
        ([Reply(status=429), verdict(5)], 2),
        ([Reply(status=503), Reply(status=500), verdict(5)], 3),
        (["I like it a lot.", verdict(5)], 2),  # garbage text, then a verdict
        ([Reply(raw=b'{"candidates": [{"content": {"parts": [{"te'), verdict(5)], 2),
        ([Reply(raw=b'{"choices": [{"message": {"content": "x'), verdict(5)], 2),
        (['{"score": 5, "expl', verdict(5)], 2),  # truncated JSON in the answer
    ],
)
async def test_transient_failures_are_retried(
    fake: FakeJudge, backend: str, replies: list[Reply | str], calls: int
) -> None:
    fake.script(*replies)
    result: Any = await Pointwise().evaluate_input(
        pointwise_input(), "pointwise_metric_input", CALL
    )
    assert result.score == 5.0
    assert len(fake.calls) == calls


@pytest.mark.parametrize(
    "reply", [Reply(status=500), Reply(status=429), Reply(text="no verdict here")]
)
async def test_retries_run_out_unavailable(fake: FakeJudge, backend: str, reply: Reply) -> None:
    fake.script(*[reply] * 3)
    with pytest.raises(Unavailable) as err:
        await Pointwise().evaluate_input(pointwise_input(), "pointwise_metric_input", CALL)
    assert len(fake.calls) == 3  # max_attempts in the test config
    assert "judge 'fake'" in err.value.message
    assert backend in err.value.message


GARBAGE = [
    Reply(raw=b"<html>502 Bad Gateway</html>", content_type="text/html"),
    Reply(raw=b"not json at all", content_type="text/plain"),
    Reply(raw=b"not json at all"),
    Reply(raw=b"[]"),
    Reply(raw=b'"a string"'),
    Reply(raw=b"{}"),
    Reply(raw=b'{"choices": null, "candidates": null}'),
    Reply(raw=b'{"choices": [{}], "candidates": [{}]}'),
    Reply(raw=b'{"choices": [{"message": null}], "candidates": [{"content": null}]}'),
    Reply(
        raw=b'{"choices": [{"message": {"content": 7}}], "candidates": [{"content": {"parts": 7}}]}'
    ),
]


@pytest.mark.parametrize("garbage", GARBAGE, ids=[r.raw.decode()[:30] for r in GARBAGE if r.raw])
async def test_a_200_with_an_unreadable_body_is_retried_then_unavailable(
    fake: FakeJudge, backend: str, garbage: Reply
) -> None:
    fake.script(*[garbage] * 3)
    with pytest.raises(Unavailable) as err:
        await Pointwise().evaluate_input(pointwise_input(), "pointwise_metric_input", CALL)
    assert len(fake.calls) == 3
    assert "judge 'fake'" in err.value.message
    fake.script(garbage, verdict(4))
    result: Any = await Pointwise().evaluate_input(
        pointwise_input(), "pointwise_metric_input", CALL
    )
    assert result.score == 4.0


async def test_an_answer_over_the_cap_is_refused(fake: FakeJudge, backend: str) -> None:
    huge = verdict(5, "x" * (MAX_ANSWER_BYTES + 10))
    fake.script(*[huge] * 3)
    with pytest.raises(Unavailable) as err:
        await Pointwise().evaluate_input(pointwise_input(), "pointwise_metric_input", CALL)
    assert f"larger than {MAX_ANSWER_BYTES // 1024} KiB" in err.value.message
    fake.script(verdict(2))  # the next answer is read as usual
    result: Any = await Pointwise().evaluate_input(
        pointwise_input(), "pointwise_metric_input", CALL
    )
    assert result.score == 2.0


async def test_rejected_call_is_not_retried(fake: FakeJudge, backend: str) -> None:
    fake.script(Reply(status=401, text=f"API key {API_KEY} not valid"))  # echoes the key back
    with pytest.raises(FailedPrecondition) as err:
        await Pointwise().evaluate_input(pointwise_input(), "pointwise_metric_input", CALL)
    assert len(fake.calls) == 1
    assert "401" in err.value.message
    assert API_KEY not in err.value.message


async def test_request_deadline_is_honoured(fake: FakeJudge, backend: str) -> None:
    fake.script(Reply(text=verdict(5), delay=30.0))
    start = time.monotonic()
    with pytest.raises(DeadlineExceeded) as err:
        await Pointwise().evaluate_input(
            pointwise_input(), "pointwise_metric_input", Call(SERVICES, time.monotonic() + 0.5)
        )
    assert time.monotonic() - start < 15  # the 0.5 s deadline, not the 30 s answer
    assert "judge 'fake'" in err.value.message


async def test_per_call_timeout_then_unavailable(
    fake: FakeJudge, backend: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    configure(monkeypatch, tmp_path, fake.url, backend, timeout=0.3, attempts=2)
    fake.script(Reply(text=verdict(5), delay=1.5), Reply(text=verdict(5), delay=1.5))
    with pytest.raises(Unavailable, match="no answer within"):
        await Pointwise().evaluate_input(pointwise_input(), "pointwise_metric_input", CALL)
    assert len(fake.calls) == 2


@pytest.mark.parametrize(
    ("answers", "score"),
    [
        ([3, 3, 3], 3.0),
        ([1, 2, 6], 3.0),  # open scale: the mean
        ([0.5, 1.0], 0.75),
    ],
)
async def test_sampling_mean_for_custom_pointwise(
    fake: FakeJudge, backend: str, answers: list[float], score: float
) -> None:
    fake.script(*[verdict(a) for a in answers])
    result: Any = await Pointwise().evaluate_input(
        pointwise_input(), "pointwise_metric_input", autorater(sampling_count=len(answers))
    )
    assert result.score == pytest.approx(score)
    assert len(fake.calls) == len(answers)


@pytest.mark.parametrize(
    ("answers", "score", "confidence"),
    [
        ([4, 2, 4], 4.0, 2 / 3),
        ([2, 4], 3.0, 0.5),  # an even split: the midpoint
        ([2, 3, 3, 1], 2.5, 0.375),
        ([5, 5, 5, 5], 5.0, 1.0),
    ],
)
async def test_sampling_majority_for_predefined(
    fake: FakeJudge, backend: str, answers: list[int], score: float, confidence: float
) -> None:
    fake.script(*[verdict(a) for a in answers])
    metric_input = m.FluencyInput(instance=m.FluencyInstance(prediction="Hello there."))
    result: Any = await Fluency().evaluate_input(
        metric_input, "fluency_input", autorater(sampling_count=len(answers))
    )
    assert result.score == score
    assert result.confidence == pytest.approx(confidence, rel=1e-6)


@pytest.mark.parametrize("count", [0, 33, -1])
async def test_sampling_count_out_of_range(fake: FakeJudge, backend: str, count: int) -> None:
    with pytest.raises(InvalidArgument) as err:
        await Pointwise().evaluate_input(
            pointwise_input(), "pointwise_metric_input", autorater(sampling_count=count)
        )
    assert err.value.violations[0].field == "autorater_config.sampling_count"
    assert fake.calls == []


def pairwise_input(**spec: Any) -> Any:
    instance = {
        "prompt": "2+2?",
        "response": "CANDIDATE-TEXT",
        "baseline_model_response": "BASE-TEXT",
    }
    template = "Prompt: {prompt}\nResponse A: {baseline_model_response}\nResponse B: {response}"
    return m.PairwiseMetricInput(
        metric_spec=m.PairwiseMetricSpec(metric_prompt_template=template, **spec),
        instance=m.PairwiseMetricInstance(json_instance=json.dumps(instance)),
    )


@pytest.mark.parametrize(
    ("letter", "expected"), [("A", "BASELINE"), ("B", "CANDIDATE"), ("SAME", "TIE")]
)
async def test_pairwise_choice_mapping(
    fake: FakeJudge, backend: str, letter: str, expected: str
) -> None:
    fake.script(choice(letter, "reasons"))
    result: Any = await Pairwise().evaluate_input(pairwise_input(), "pairwise_metric_input", CALL)
    assert m.PairwiseChoice.Name(result.pairwise_choice) == expected
    assert result.explanation == "reasons"


def prefers(text: str) -> Any:
    """A judge that picks whichever position holds ``text`` (an unbiased judge)."""

    def answer(prompt: str) -> str:
        a_line = next(line for line in prompt.splitlines() if line.startswith("Response A"))
        return choice("A" if text in a_line else "B")

    return answer


def always_a(prompt: str) -> str:
    """A judge with total position bias."""
    return choice("A")


@pytest.mark.parametrize(
    ("judge", "flip", "expected"),
    [
        (prefers("CANDIDATE-TEXT"), False, "CANDIDATE"),
        (prefers("CANDIDATE-TEXT"), True, "CANDIDATE"),  # flipped sample maps back
        (always_a, False, "BASELINE"),
        (always_a, True, "TIE"),  # the bias shows up as a split
    ],
)
async def test_flip(
    fake: FakeJudge,
    backend: str,
    monkeypatch: pytest.MonkeyPatch,
    judge: Any,
    flip: bool,
    expected: str,
) -> None:
    monkeypatch.setattr(fake, "default", judge)
    spec = {
        "candidate_response_field_name": "response",
        "baseline_response_field_name": "baseline_model_response",
    }
    result: Any = await Pairwise().evaluate_input(
        pairwise_input(**spec),
        "pairwise_metric_input",
        autorater(sampling_count=2, flip_enabled=flip),
    )
    assert m.PairwiseChoice.Name(result.pairwise_choice) == expected
    prompts = sorted(c.prompt for c in fake.calls)
    swapped = (
        "Response A: CANDIDATE-TEXT" in prompts[0] or "Response A: CANDIDATE-TEXT" in prompts[1]
    )
    assert swapped == flip


async def test_predefined_pairwise_flip_confidence(
    fake: FakeJudge, backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fake, "default", always_a)
    metric_input = m.PairwiseQuestionAnsweringQualityInput(
        instance=m.PairwiseQuestionAnsweringQualityInstance(
            prediction="4", baseline_prediction="5", instruction="2+2?", context="arithmetic"
        )
    )
    result: Any = await PairwiseQuestionAnsweringQuality().evaluate_input(
        metric_input,
        "pairwise_question_answering_quality_input",
        autorater(sampling_count=4, flip_enabled=True),
    )
    assert m.PairwiseChoice.Name(result.pairwise_choice) == "TIE"
    assert result.confidence == 0.5  # an even split: 2 BASELINE, 2 CANDIDATE
    assert len(fake.calls) == 4


@pytest.mark.parametrize(
    "model",
    [
        "projects/p/locations/us-central1/publishers/google/models/{model}",
        "{model}",
        "fake",
    ],
)
async def test_model_names_resolve(fake: FakeJudge, backend: str, model: str) -> None:
    fake.script(verdict(2))
    result: Any = await Pointwise().evaluate_input(
        pointwise_input(),
        "pointwise_metric_input",
        autorater(autorater_model=model.format(model=MODELS[backend])),
    )
    assert result.score == 2.0
    assert fake.calls[0].model == MODELS[backend]


async def test_unknown_model_is_invalid_argument(fake: FakeJudge, backend: str) -> None:
    with pytest.raises(InvalidArgument) as err:
        await Pointwise().evaluate_input(
            pointwise_input(), "pointwise_metric_input", autorater(autorater_model="gpt-7")
        )
    assert err.value.violations[0].field == "autorater_config.autorater_model"
    assert fake.calls == []


async def test_generation_params_are_sent(fake: FakeJudge, backend: str) -> None:
    fake.script(verdict(3))
    config = content_pb2.GenerationConfig(temperature=0.25, max_output_tokens=256, seed=7)
    await Pointwise().evaluate_input(
        pointwise_input(), "pointwise_metric_input", autorater(generation_config=config)
    )
    body = fake.calls[0].body
    if backend == "gemini":
        sent = body["generationConfig"]
        assert (sent["temperature"], sent["maxOutputTokens"], sent["seed"]) == (0.25, 256, 7)
    else:
        assert (body["temperature"], body["max_tokens"], body["seed"]) == (0.25, 256, 7)


async def test_no_judge_configured(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("EVALD_JUDGE_CONFIG", "EVALD_JUDGE_BACKEND"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(FailedPrecondition, match="EVALD_JUDGE_CONFIG"):
        await Pointwise().evaluate_input(pointwise_input(), "pointwise_metric_input", CALL)


async def test_cache_hit_makes_no_call(
    fake: FakeJudge, backend: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    configure(monkeypatch, tmp_path, fake.url, backend, cache=True)
    fake.script(verdict(4), verdict(1), verdict(2), verdict(5))
    twice = autorater(sampling_count=2)
    first: Any = await Pointwise().evaluate_input(
        pointwise_input(), "pointwise_metric_input", twice
    )
    assert len(fake.calls) == 2  # one call per sample: the sample index is in the key
    again: Any = await Pointwise().evaluate_input(
        pointwise_input(), "pointwise_metric_input", twice
    )
    assert len(fake.calls) == 2
    assert again.score == first.score == 2.5
    other: Any = await Pointwise().evaluate_input(
        pointwise_input(instance=json.dumps({"prompt": "x", "response": "y"})),
        "pointwise_metric_input",
        CALL,
    )
    assert len(fake.calls) == 3  # a different prompt is a miss
    assert other.score == 2.0
    await Pointwise().evaluate_input(
        pointwise_input(), "pointwise_metric_input", Call(SERVICES, use_cache=False)
    )
    assert len(fake.calls) == 4  # per-request opt-out


async def test_unparsed_answers_are_not_cached(
    fake: FakeJudge, backend: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    configure(monkeypatch, tmp_path, fake.url, backend, cache=True, attempts=1)
    fake.script("garbage", verdict(3))
    with pytest.raises(Unavailable):
        await Pointwise().evaluate_input(pointwise_input(), "pointwise_metric_input", CALL)
    result: Any = await Pointwise().evaluate_input(
        pointwise_input(), "pointwise_metric_input", CALL
    )
    assert result.score == 3.0
    assert len(fake.calls) == 2


async def test_key_never_logged(
    fake: FakeJudge, backend: str, caplog: pytest.LogCaptureFixture
) -> None:
    fake.script(Reply(status=500), verdict(4), Reply(status=403, text=f"bad key {API_KEY}"))
    with caplog.at_level(logging.DEBUG):
        await Pointwise().evaluate_input(pointwise_input(), "pointwise_metric_input", CALL)
        with pytest.raises(FailedPrecondition):
            await Pointwise().evaluate_input(pointwise_input(), "pointwise_metric_input", CALL)
    assert any(r.name == "evald.judges" for r in caplog.records)  # logging did happen
    assert API_KEY in fake.calls[0].headers.get("x-goog-api-key", "") + fake.calls[0].headers.get(
        "authorization", ""
    )
    logged = caplog.text + "".join(str(getattr(r, "fields", "")) for r in caplog.records)
    assert API_KEY not in logged


async def test_vertex_express_mode(
    fake: FakeJudge, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake.reset()
    configure(monkeypatch, tmp_path, fake.url, "gemini", vertex=True)
    fake.script(verdict(5))
    result: Any = await Pointwise().evaluate_input(
        pointwise_input(), "pointwise_metric_input", CALL
    )
    assert result.score == 5.0
    assert (
        fake.calls[0].path == "/v1beta1/publishers/google/models/gemini-2.5-flash:generateContent"
    )


async def evaluate_pointwise() -> float:
    result: Any = await Pointwise().evaluate_input(
        pointwise_input(), "pointwise_metric_input", CALL
    )
    return float(result.score)


async def test_requests_share_one_pooled_connection(fake: FakeJudge, backend: str) -> None:
    assert [await evaluate_pointwise() for _ in range(4)] == [3.0] * 4
    assert len(fake.calls) == 4
    assert len({c.peer for c in fake.calls}) == 1  # no new TCP (or TLS) connection per request


async def test_judge_client_is_built_once_off_the_event_loop(
    fake: FakeJudge, backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    built_on: list[threading.Thread] = []
    build = runtime._Client.__init__

    def recording(self: runtime._Client, spec: JudgeSpec) -> None:
        built_on.append(threading.current_thread())
        build(self, spec)

    monkeypatch.setattr(runtime._Client, "__init__", recording)
    assert await asyncio.gather(*(evaluate_pointwise() for _ in range(3))) == [3.0] * 3
    assert len(built_on) == 1  # three concurrent first requests wait for one client
    assert built_on[0] is not threading.current_thread()  # not on the event loop's thread


async def test_replaced_config_closes_its_connections(
    fake: FakeJudge, backend: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    await evaluate_pointwise()
    old = SERVICES.judges.runtime()
    clients = [made.result().http for made in old._clients[asyncio.get_running_loop()].values()]
    assert clients
    assert not any(c.is_closed for c in clients)
    (tmp_path / "new").mkdir()
    configure(monkeypatch, tmp_path / "new", fake.url, backend)
    await evaluate_pointwise()
    assert SERVICES.judges.runtime() is not old
    assert all(c.is_closed for c in clients)


PNG = b"\x89PNG\r\n\x1a\n-a-cat-"


def media_input(*parts: dict[str, Any]) -> Any:
    """A pointwise input whose ``response`` entry holds ``parts`` after a text part."""
    content = content_pb2.Content(role="model")
    content.parts.add(text="Here is the cat:")
    for part in parts:
        added = content.parts.add()
        if "data" in part:
            added.inline_data.mime_type, added.inline_data.data = part["mime"], part["data"]
        else:
            added.file_data.mime_type, added.file_data.file_uri = part["mime"], part["uri"]
    instance = m.PointwiseMetricInstance()
    instance.content_map_instance.values["response"].contents.append(content)
    instance.content_map_instance.values["prompt"].contents.add().parts.add(text="Draw a cat")
    return m.PointwiseMetricInput(
        metric_spec=m.PointwiseMetricSpec(metric_prompt_template=TEMPLATE), instance=instance
    )


async def test_an_image_reaches_the_judge_as_an_image(fake: FakeJudge, backend: str) -> None:
    fake.script(verdict(5))
    result: Any = await Pointwise().evaluate_input(
        media_input({"mime": "image/png", "data": PNG}), "pointwise_metric_input", CALL
    )
    assert result.score == 5.0
    (call,) = fake.calls
    assert "Here is the cat:\n[media 1: image/png]" in call.prompt
    encoded = base64.b64encode(PNG).decode()
    if backend == "gemini":
        parts = call.body["contents"][0]["parts"]
        assert parts[-2] == {"text": "[media 1: image/png]"}
        assert sent_media(parts[-1]) == ("inlineData", "image/png", encoded)
    else:
        content = call.body["messages"][-1]["content"]
        assert content[-2] == {"type": "text", "text": "[media 1: image/png]"}
        assert content[-1] == {
            "type": "image_url",
            "image_url": {"url": f"data:image/png;base64,{encoded}"},
        }


async def test_gemini_takes_audio_and_file_uris(fake: FakeJudge, backend: str) -> None:
    fake.script(verdict(3))
    parts = (
        {"mime": "audio/wav", "data": b"RIFF"},
        {"mime": "application/pdf", "uri": "gs://bucket/report.pdf"},
    )
    metric_input = media_input(*parts)
    if backend == "openai":  # carries images only: the metric fails, naming the part
        with pytest.raises(InvalidArgument) as err:
            await Pointwise().evaluate_input(metric_input, "pointwise_metric_input", CALL)
        (violation,) = err.value.violations
        assert violation.field == (
            "pointwise_metric_input.instance.content_map_instance.values['response']"
            ".contents[0].parts[1].inline_data"
        )
        assert "audio/wav" in violation.description
        assert fake.calls == []
        return
    result: Any = await Pointwise().evaluate_input(metric_input, "pointwise_metric_input", CALL)
    assert result.score == 3.0
    sent = [sent_media(p) for p in fake.calls[0].body["contents"][0]["parts"]]
    assert ("fileData", "application/pdf", "gs://bucket/report.pdf") in sent
    assert ("inlineData", "audio/wav", base64.b64encode(b"RIFF").decode()) in sent


def sent_media(part: dict[str, Any]) -> tuple[str, str, str] | None:
    """(kind, MIME type, data or URI) of a Gemini REST part (the SDK's key spelling varies)."""
    for kind in ("inlineData", "fileData"):
        if kind in part:
            fields = part[kind]
            mime = fields.get("mimeType", fields.get("mime_type", ""))
            value = fields.get("data", fields.get("fileUri", fields.get("file_uri", "")))
            return kind, mime, value
    return None


async def test_a_text_only_judge_refuses_media(
    fake: FakeJudge, backend: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    configure(monkeypatch, tmp_path, fake.url, backend, media_types=[])
    with pytest.raises(InvalidArgument) as err:
        await Pointwise().evaluate_input(
            media_input({"mime": "image/png", "data": PNG}), "pointwise_metric_input", CALL
        )
    assert "reads text only" in err.value.message
    assert "image/png" in err.value.message
    assert fake.calls == []


def picks(winner: str) -> Callable[[str], str]:
    """A judge that picks the response holding ``winner`` ("CAND", "BASE"), "A" for A-bias."""

    def answer(prompt: str) -> str:
        if winner == "A":
            return choice("A")
        first = "A" if prompt.index(winner) < prompt.index(OTHER[winner]) else "B"
        return choice(first)

    return answer


OTHER = {"CAND": "BASE", "BASE": "CAND"}


@pytest.mark.parametrize(
    ("judge", "expected"),
    [
        ("A", "TIE"),  # position bias: A is the baseline twice, then the candidate twice
        ("CAND", "CANDIDATE"),
        ("BASE", "BASELINE"),
    ],
)
async def test_vertex_defaults_flip_half_of_four_samples(
    fake: FakeJudge,
    backend: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    judge: str,
    expected: str,
) -> None:
    configure(monkeypatch, tmp_path, fake.url, backend, sampling=None)
    monkeypatch.setattr(fake, "default", picks(judge))
    metric_input = m.PairwiseQuestionAnsweringQualityInput(
        instance=m.PairwiseQuestionAnsweringQualityInstance(
            prediction="CAND", baseline_prediction="BASE", instruction="Q?", context="C"
        )
    )
    result: Any = await PairwiseQuestionAnsweringQuality().evaluate_input(
        metric_input, "pairwise_question_answering_quality_input", CALL
    )
    assert m.PairwiseChoice.Name(result.pairwise_choice) == expected
    assert result.confidence == (0.5 if expected == "TIE" else 1.0)
    orders = [c.prompt.index("CAND") < c.prompt.index("BASE") for c in fake.calls]
    assert sorted(orders) == [False, False, True, True]  # two samples flipped


async def test_vertex_defaults_sample_four_times(
    fake: FakeJudge, backend: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    configure(monkeypatch, tmp_path, fake.url, backend, sampling=None)
    fake.script(verdict(4), verdict(4), verdict(2), verdict(4))
    result: Any = await Fluency().evaluate_input(
        m.FluencyInput(instance=m.FluencyInstance(prediction="Hello there.")), "fluency_input", CALL
    )
    assert len(fake.calls) == 4
    assert (result.score, result.confidence) == (4.0, 0.75)
    # The request's own autorater_config still wins.
    fake.reset()
    fake.script(verdict(2))
    result = await Fluency().evaluate_input(
        m.FluencyInput(instance=m.FluencyInstance(prediction="Hello there.")),
        "fluency_input",
        autorater(sampling_count=1),
    )
    assert (len(fake.calls), result.score, result.confidence) == (1, 2.0, 1.0)


async def test_without_structured_output_the_prompt_carries_the_format(
    fake: FakeJudge, backend: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    configure(monkeypatch, tmp_path, fake.url, backend, structured_output=False)
    fake.script("The response is polite.\nscore: 4")
    result: Any = await Pointwise().evaluate_input(
        pointwise_input(), "pointwise_metric_input", CALL
    )
    assert result.score == 4.0
    (call,) = fake.calls
    assert "responseJsonSchema" not in call.body.get("generationConfig", {})
    assert "response_format" not in call.body
    assert call.prompt.endswith(
        'matching this JSON schema:\n{"type":"object","properties":{"explanation":'
        '{"type":"string"},"score":{"type":"number"}},"required":["explanation","score"]}'
    )
