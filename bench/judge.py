"""Section "judge": what evald spends around each LLM judge call.

``evald serve`` (one worker, no scoring processes, judge cache off) is pointed at a scripted
judge on loopback that speaks both wire protocols evald's judges use (Gemini
``generateContent`` and OpenAI ``/chat/completions``) and answers after a fixed delay. The
scripted judge runs in a process of its own (its CPU is not the server's), and so does the load:
a ``grpc.aio`` client sending a burst of calls at once and waiting for all of them. Measured,
side by side in alternating rounds:

- server CPU per judge call (the server's process tree, from ``/proc``), Gemini and
  OpenAI-compatible backends: 1,000 concurrent single-sample ``pointwise_metric_input`` calls;
- the wall time of those 1,000 calls against a judge answering in 1 s;
- 250 ``pairwise_metric_input`` rows with Vertex's default 4 samples, half flipped (1,000 judge
  calls): wall time and CPU per judge call;
- the server's resident memory while 5,000 judge calls are in flight, burst after burst (the
  calls of a burst start over 15 s, the judge answering in 20 s).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from bench import cpu, load
from bench.report import Row, Section
from bench.server import HOST, METHOD, ROOT, available_cores, evald_server, free_port

MODELS = {"gemini": "gemini-bench", "openai": "openai-bench"}
"""The judge model each backend's judge serves (a request picks its judge by model)."""
POINTWISE = "Rate this response from 1 to 5.\nQuestion: {prompt}\nResponse: {response}"
PAIRWISE = (
    "Which response answers better?\nQuestion: {prompt}\n"
    "Response A: {baseline_model_response}\nResponse B: {response}"
)
CHANNELS = 8
"""gRPC connections of the load process (calls spread over them)."""


@dataclass(frozen=True)
class Plan:
    """Budgets of one run."""

    rounds: int
    warmup_rounds: int
    """Rounds run first and not counted: the servers open their judge connections in them,
    so the counted rounds measure calls on kept connections, as a server in use makes them."""
    delay: float
    """Seconds the scripted judge takes to answer."""
    calls: int
    """Concurrent single-sample calls per burst."""
    rows: int
    """Concurrent pairwise rows (4 samples each, half flipped)."""
    in_flight: int
    """Judge calls in flight in the memory bursts."""
    memory_delay: float
    """The judge's delay in the memory bursts (long enough to reach ``in_flight``)."""
    memory_spread: float
    """Seconds over which a memory burst's calls start."""
    memory_bursts: int


def plan(quick: bool) -> Plan:
    """Tiny bursts with ``quick`` (a smoke test), else the targets' sizes: one warm-up round,
    then three counted rounds."""
    if quick:
        return Plan(  # enough calls that the server's CPU shows in /proc's 10 ms ticks
            1,
            0,
            delay=0.05,
            calls=200,
            rows=50,
            in_flight=40,
            memory_delay=0.1,
            memory_spread=0.05,
            memory_bursts=2,
        )
    return Plan(
        3,
        1,
        delay=1.0,
        calls=1000,
        rows=250,
        in_flight=5000,
        memory_delay=20.0,
        memory_spread=15.0,
        memory_bursts=3,
    )


# The scripted judge ----------------------------------------------------------------------------
# Run as ``python -m bench.judge fake PORT DELAY``: aiohttp, answers prepared once, so its own
# work per call is as small as can be (it shares the machine with the server).


def _answers() -> dict[tuple[str, bool], bytes]:
    """Response bodies by (protocol, pairwise), with usage as the real endpoints report it."""
    point = json.dumps({"explanation": "scripted verdict", "score": 4})
    pair = json.dumps({"explanation": "scripted verdict", "pairwise_choice": "B"})
    bodies = {}
    for pairwise, text in ((False, point), (True, pair)):
        bodies["gemini", pairwise] = json.dumps(
            {
                "candidates": [
                    {
                        "content": {"role": "model", "parts": [{"text": text}]},
                        "finishReason": "STOP",
                    }
                ],
                "usageMetadata": {
                    "promptTokenCount": 50,
                    "candidatesTokenCount": 12,
                    "totalTokenCount": 62,
                },
                "modelVersion": "scripted",
            }
        ).encode()
        bodies["openai", pairwise] = json.dumps(
            {
                "id": "chatcmpl-scripted",
                "object": "chat.completion",
                "created": 0,
                "model": MODELS["openai"],
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": text},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 50, "completion_tokens": 12, "total_tokens": 62},
            }
        ).encode()
    return bodies


def serve_fake(port: int, delay: float, slow: float) -> None:
    """Serve the scripted judge on loopback ``port`` until killed: it answers after ``delay``
    seconds, or ``slow`` seconds for a model whose name ends in ``-slow``."""
    from aiohttp import web

    bodies = _answers()

    async def answer(request: web.Request) -> web.Response:
        body = await request.read()
        protocol = "gemini" if request.path.endswith(":generateContent") else "openai"
        await asyncio.sleep(slow if "-slow" in request.path or b"-slow" in body else delay)
        pairwise = b"Response A:" in body
        return web.Response(body=bodies[protocol, pairwise], content_type="application/json")

    app = web.Application(client_max_size=16 * 1024 * 1024)
    app.router.add_post("/{tail:.*}", answer)
    print("ready", flush=True)
    web.run_app(app, host=HOST, port=port, print=None, backlog=8192, access_log=None)


@contextlib.contextmanager
def fake_judge(delay: float, slow: float) -> Iterator[str]:
    """The scripted judge in its own process; yields its base URL."""
    import subprocess

    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "bench.judge", "fake", str(port), str(delay), str(slow)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
    )
    try:
        assert process.stdout is not None
        if process.stdout.readline().strip() != b"ready":
            raise RuntimeError("the scripted judge did not start")
        _wait_port(port)
        yield f"http://{HOST}:{port}"
    finally:
        process.terminate()
        process.wait(10)
        if process.stdout is not None:
            process.stdout.close()


def _wait_port(port: int) -> None:
    import socket

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection((HOST, port), 1):
            return
        time.sleep(0.02)
    raise RuntimeError(f"nothing listens on port {port}")


def judge_config(folder: Path, url: str, concurrency: int) -> Path:
    """A judge config file: one judge per backend at ``url``, no retries, the answer cache on
    (in ``folder``; calls that should not use it say so in their metadata)."""
    key = folder / "key"
    key.write_text("bench-key")
    judges = {
        backend: {
            "backend": backend,
            "model": model,
            "base_url": url + ("/v1" if backend == "openai" else ""),
            "api_key_file": str(key),
            "models": [f"{model}-*"],  # -slow: the same judge, answering later
            "max_concurrency": concurrency,
        }
        for backend, model in MODELS.items()
    }
    config = {
        "default_judge": "gemini",
        "timeout_seconds": 60,
        "retry": {"max_attempts": 1},
        "cache": {"enabled": True, "path": str(folder / "judge-cache.sqlite3")},
        "judges": judges,
    }
    path = folder / "judges.json"
    path.write_text(json.dumps(config))
    return path


# Requests and the load process -----------------------------------------------------------------


def pointwise_request(model: str, i: int) -> bytes:
    """One single-sample ``pointwise_metric_input`` call to the judge serving ``model``."""
    from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as messages

    request = messages.EvaluateInstancesRequest(location="projects/p/locations/l")
    spec = request.pointwise_metric_input.metric_spec
    spec.metric_prompt_template = POINTWISE
    request.pointwise_metric_input.instance.json_instance = json.dumps(
        {"prompt": f"What is {i} + {i}?", "response": f"It is {2 * i}."}
    )
    request.autorater_config.autorater_model = model
    request.autorater_config.sampling_count = 1
    return request.SerializeToString()


def pairwise_request(model: str, i: int) -> bytes:
    """One ``pairwise_metric_input`` row with Vertex's defaults (4 samples, flip)."""
    from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as messages

    request = messages.EvaluateInstancesRequest(location="projects/p/locations/l")
    spec = request.pairwise_metric_input.metric_spec
    spec.metric_prompt_template = PAIRWISE
    request.pairwise_metric_input.instance.json_instance = json.dumps(
        {
            "prompt": f"What is {i} + {i}?",
            "baseline_model_response": f"Maybe {2 * i + 1}.",
            "response": f"It is {2 * i}.",
        }
    )
    request.autorater_config.autorater_model = model
    return request.SerializeToString()


@dataclass(frozen=True)
class Burst:
    """A burst of calls sent at once: what they are and how many."""

    kind: str
    """``pointwise`` (one sample) or ``pairwise`` (4 samples, flip)."""
    model: str
    count: int
    spread: float = 0.0
    """Seconds over which the calls start (0: all at once)."""
    cached: bool = False
    """Through the judge cache, each measurement with texts of its own (a lookup that misses,
    the judge call, a write); other bursts ask the server to leave the cache out."""

    @property
    def judge_calls(self) -> int:
        """Judge calls the burst makes."""
        return self.count * (4 if self.kind == "pairwise" else 1)

    def bodies(self, measurement: int = 0) -> list[bytes]:
        """The burst's request bodies, each with its own text (new for each measurement of a
        cached burst)."""
        build = pointwise_request if self.kind == "pointwise" else pairwise_request
        first = measurement * self.count if self.cached else 0
        return [build(self.model, i) for i in range(first, first + self.count)]


@dataclass(frozen=True)
class BurstJob:
    """The load process: each measurement sends one burst (chosen by its index in ``bursts``)
    and returns when its last call has ended. Calls spread over :data:`CHANNELS` connections."""

    port: int
    bursts: tuple[Burst, ...]

    def __call__(self, index: int) -> Callable[[float], load.Part]:
        return _Bursts(self)


class _Bursts:
    def __init__(self, job: BurstJob) -> None:
        import grpc

        self.loop = asyncio.new_event_loop()
        self.bursts = job.bursts
        self.bodies = [burst.bodies() for burst in job.bursts]
        self.measured = [0] * len(job.bursts)

        async def connect() -> list[grpc.aio.Channel]:  # a channel belongs to the running loop
            return [
                grpc.aio.insecure_channel(
                    f"{HOST}:{job.port}",
                    options=[("grpc.use_local_subchannel_pool", 1), ("grpc.enable_retries", 0)],
                )
                for _ in range(CHANNELS)
            ]

        self.channels = self.loop.run_until_complete(connect())
        self.calls = [channel.unary_unary(METHOD, None, None) for channel in self.channels]
        for burst, bodies in zip(job.bursts, self.bodies, strict=True):
            # Connects, and builds the judge clients (a warm server).
            self.loop.run_until_complete(self._send(burst, bodies[: 2 * CHANNELS]))

    async def _send(self, burst: Burst, bodies: list[bytes]) -> load.Part:
        latencies: list[float] = []
        errors: list[str] = []
        spread = burst.spread
        metadata = () if burst.cached else (("x-evald-judge-cache", "off"),)
        start, used = time.perf_counter(), time.process_time()

        async def one(i: int, body: bytes) -> None:
            if spread:
                await asyncio.sleep(spread * i / len(bodies))
            began = time.perf_counter()
            try:
                await self.calls[i % len(self.calls)](body, timeout=120, metadata=metadata)
            except Exception as exc:
                errors.append(str(exc)[:300])
                return
            latencies.append(time.perf_counter() - began)

        await asyncio.gather(*(one(i, body) for i, body in enumerate(bodies)))
        if errors and not latencies:
            raise RuntimeError(f"every call failed, e.g. {errors[0]}")
        if errors:
            print(f"bench judge: {len(errors)} calls failed, e.g. {errors[0]}", file=sys.stderr)
        window, cpu = time.perf_counter() - start, time.process_time() - used
        return len(latencies), len(errors), window, latencies, cpu

    def __call__(self, which: float) -> load.Part:
        index = int(which)
        burst = self.bursts[index]
        bodies = self.bodies[index]
        if burst.cached:  # texts no measurement has sent: every call misses, then writes
            self.measured[index] += 1
            bodies = burst.bodies(self.measured[index])
        return self.loop.run_until_complete(self._send(burst, bodies))

    def close(self) -> None:
        for channel in self.channels:
            self.loop.run_until_complete(channel.close(None))
        self.loop.close()


# Measurements ----------------------------------------------------------------------------------


@dataclass
class Measured:
    """One burst measured: wall seconds, the server's CPU seconds, calls answered and failed,
    the server's peak resident memory (KiB)."""

    wall: float
    cpu: float
    ok: int
    errors: int
    peak_kib: int = 0


def _measure(crew: load.Crew, which: int, server: list[int]) -> Measured:
    """Burst ``which`` (``Crew.measure`` passes its index as the "seconds" it is given), with
    the server's CPU and peak RSS (sampled every 50 ms) meanwhile."""
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, rss_kib(server))
            done.wait(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    before = cpu.seconds(server)
    result = crew.measure(float(which))
    used = cpu.seconds(server) - before
    done.set()
    sampler.join()
    return Measured(result.seconds, used, result.requests, result.errors, peak)


def rss_kib(pids: list[int]) -> int:
    """Resident memory of ``pids`` now (KiB, from ``/proc/PID/status``)."""
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError, ValueError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
                    break
    return total


def _progress(message: str) -> None:
    print(f"bench judge: {message}", file=sys.stderr, flush=True)


def _span(values: list[float], digits: int = 2) -> str:
    low, high = min(values), max(values)
    return f"{low:.{digits}f}" if len(values) == 1 else f"{low:.{digits}f}-{high:.{digits}f}"


SETUPS = {1: "one process", 0: "--workers 0"}
"""The servers measured, by ``--workers``: one process (every call on one event loop), and one
process per core, the setting docs/performance.md recommends."""


def measure(p: Plan) -> Section:
    """Every row, from one scripted judge and two servers (:data:`SETUPS`), each with its own
    load process; the single-sample bursts run on both, the rest on the single process."""
    pointwise = [Burst("pointwise", MODELS[backend], p.calls) for backend in ("gemini", "openai")]
    pairwise = [Burst("pairwise", MODELS[backend], p.rows) for backend in ("gemini", "openai")]
    cached = Burst("pointwise", MODELS["gemini"], p.calls, cached=True)
    memory = Burst("pointwise", MODELS["gemini"] + "-slow", p.in_flight, p.memory_spread)
    concurrency = max(2000, p.in_flight)
    timed = {1: [*pointwise, *pairwise, cached], 0: pointwise}
    found: dict[tuple[int, Burst], list[Measured]] = {
        (workers, burst): [] for workers, bursts in timed.items() for burst in bursts
    }
    peaks: list[Measured] = []
    with contextlib.ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        url = stack.enter_context(fake_judge(p.delay, p.memory_delay))
        config = str(judge_config(folder, url, concurrency))
        crews: dict[int, load.Crew] = {}
        pids: dict[int, int] = {}
        for workers, bursts in timed.items():
            port, _, pids[workers] = stack.enter_context(
                evald_server("--judge-config", config, "--scoring-processes", "0", workers=workers)
            )
            extra = (memory,) if workers == 1 else ()
            crews[workers] = stack.enter_context(load.Crew(BurstJob(port, (*bursts, *extra)), 1))
        for crew in crews.values():
            crew.wait_ready()
        # Read once every crew is ready: the workers have started by then.
        trees = {workers: cpu.tree(pid) for workers, pid in pids.items()}
        for round_ in range(-p.warmup_rounds, p.rounds):
            for workers, bursts in timed.items():
                for which, burst in enumerate(bursts):
                    got = _measure(crews[workers], which, trees[workers])
                    if round_ >= 0:
                        found[workers, burst].append(got)
                    _progress(
                        f"round {round_ + 1 if round_ >= 0 else 'warm-up'} {SETUPS[workers]} "
                        f"{burst.kind} {burst.model}: "
                        f"{got.wall:.2f} s, {got.cpu:.2f} CPU s, {got.ok} ok, {got.errors} failed"
                    )
        for number in range(p.memory_bursts):
            peaks.append(got := _measure(crews[1], len(timed[1]), trees[1]))
            _progress(
                f"memory burst {number + 1}: peak {got.peak_kib / 1024:.0f} MiB, "
                f"{got.ok} ok, {got.errors} failed"
            )
    section = Section("judge", "Judge path: evald around each LLM judge call")
    for (workers, burst), measured in found.items():
        if burst.cached:
            continue
        backend = "gemini" if burst.model == MODELS["gemini"] else "openai"
        per_call = [m.cpu / burst.judge_calls * 1000 for m in measured]
        walls = [m.wall for m in measured]
        what = (
            f"{burst.count:,} concurrent single-sample pointwise calls"
            if burst.kind == "pointwise"
            else f"{burst.count} pairwise rows x 4 samples, flip"
        )
        what += f", {SETUPS[workers]}"
        judged = f"judge answers in {p.delay:g} s; {sum(m.errors for m in measured)} calls failed"
        section.rows.append(
            Row(
                f"server CPU per judge call, {backend}",
                what,
                sum(per_call) / len(per_call),
                1.0,
                "target",
                unit="ms",
                note=f"target <= 1.0 ms; rounds {_span(per_call)} ms; {judged}",
            )
        )
        target = 1.5 * p.delay
        section.rows.append(
            Row(
                f"wall time, {backend}",
                what,
                sum(walls) / len(walls),
                target,
                "target",
                unit="s",
                note=f"target <= {target:g} s (the judge's {p.delay:g} s + 50%); "
                f"rounds {_span(walls)} s; {judged}",
            )
        )
    section.rows += _cache_rows(found[1, cached], found[1, pointwise[0]], cached, p)
    warm, last = peaks[1].peak_kib, peaks[-1].peak_kib
    section.rows.append(
        Row(
            "server RSS, peak of the last burst vs the first after warm-up",
            f"{p.in_flight:,} judge calls in flight, {p.memory_bursts} bursts, one process",
            last / 1024,
            warm / 1024,
            "after warm-up",
            unit="MiB",
            note=f"target: ratio <= 1.10; peaks "
            f"{', '.join(f'{m.peak_kib / 1024:.0f}' for m in peaks)} MiB (burst 1 warms up); "
            f"judge answers in {p.memory_delay:g} s; {sum(m.errors for m in peaks)} calls failed",
        )
    )
    section.notes.append(
        "`evald serve --scoring-processes 0` with `--workers 1` (one process) and `--workers 0` "
        f"(one process per core, {available_cores()} here); judge cache off, max_concurrency "
        f"{concurrency} per process, one judge per backend; the scripted judge (aiohttp) and "
        f"each server's load (grpc.aio, {CHANNELS} connections, spread over the workers by the "
        "kernel) run in processes of their own; CPU is the server's process tree from /proc, "
        f"divided by the judge calls made; bursts alternate, {p.rounds} round(s) after "
        f"{p.warmup_rounds} uncounted warm-up round(s) that open the judge connections; the "
        "judge cache (SQLite) is on, and every call but those of the cache rows asks to leave "
        "it out (x-evald-judge-cache: off)"
    )
    return section


def _cache_rows(cached: list[Measured], plain: list[Measured], burst: Burst, p: Plan) -> list[Row]:
    """What the judge cache (on by default) adds to the same burst: each call new, so each
    one looks up, misses, calls the judge and writes its answer."""
    per_call = [m.cpu / burst.judge_calls * 1000 for m in cached]
    without = [m.cpu / burst.judge_calls * 1000 for m in plain]
    walls, plain_walls = [m.wall for m in cached], [m.wall for m in plain]
    what = f"{burst.count:,} concurrent single-sample pointwise calls, judge cache on, one process"
    judged = f"judge answers in {p.delay:g} s; {sum(m.errors for m in cached)} calls failed"
    return [
        Row(
            "server CPU per judge call, gemini",
            what,
            sum(per_call) / len(per_call),
            sum(without) / len(without),
            "the same burst, cache left out",
            unit="ms",
            note=f"each call new: a lookup that misses, the judge call, a write; rounds "
            f"{_span(per_call)} ms (cache left out: {_span(without)} ms); {judged}",
        ),
        Row(
            "wall time, gemini",
            what,
            sum(walls) / len(walls),
            sum(plain_walls) / len(plain_walls),
            "the same burst, cache left out",
            unit="s",
            note=f"rounds {_span(walls)} s (cache left out: {_span(plain_walls)} s); {judged}",
        ),
    ]


def run(quick: bool) -> Section:
    """The judge section (``quick``: a smoke test of a few seconds)."""
    return measure(plan(quick))


def main(argv: list[str]) -> None:
    """``fake PORT DELAY SLOW_DELAY``: serve the scripted judge."""
    if len(argv) == 4 and argv[0] == "fake":
        serve_fake(int(argv[1]), float(argv[2]), float(argv[3]))
        return
    raise SystemExit("usage: python -m bench.judge fake PORT DELAY SLOW_DELAY")


if __name__ == "__main__":
    main(sys.argv[1:])
