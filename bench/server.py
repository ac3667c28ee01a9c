"""Section "server": evald end to end over loopback gRPC (and HTTP), against a bare echo server.

In one run, side by side in alternating rounds: a bare echo gRPC server (:mod:`bench.echo`, the
same ``grpc.aio`` stack doing no work) and ``evald serve`` (real subprocesses, as users run
them), driven by :mod:`bench.load` (multi-process, bounded, loopback only). Measured:

- single-instance exact_match calls: requests/s and p50/p99, ratio to echo's requests/s;
- 100-instance BLEU and ROUGE-L (with stemmer) calls of medium (60-word) pairs: the server's CPU
  per scored pair (its process tree, from ``/proc``) against the same kernel's CPU per pair
  in-process on the same kind of pairs (``time.process_time``); pairs/s and its ratio to the
  kernel's in-process pairs/s are kept in the row's note;
- the same 100-instance gRPC calls answered by a bare ``grpc.aio`` server that scores them with
  the kernel on its event loop (:mod:`bench.echo`, no evald), its CPU per pair measured alike:
  the floor of evald's ratio on this machine under this load, so evald's own cost is the gap
  between the two;
- the same 100-instance calls through the JSON/HTTP gateway, ratio to the gRPC figure;
- (2 cores or more) the same single and gRPC batch calls with evald, echo, the bare kernel
  servers and the kernel alone on the first core and the load on the others: the server's own
  efficiency;
- (full run only) how the batch work is taken off the event loop: server processes vs scoring
  processes vs threads, and single-call latency while large requests are being scored.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import grpc
from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as messages
from google.protobuf import json_format

from bench import cpu, load
from bench.load import Load
from bench.report import Row, Section
from bench.texts import TextSource

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
METHOD = "/google.cloud.aiplatform.v1beta1.EvaluationService/EvaluateInstances"
HTTP_PATH = "/v1beta1/projects/p/locations/l:evaluateInstances"
BATCH = 100
"""Instances per batch request."""
WORDS = 60
"""Words per text in batch requests (the metrics section's "medium")."""
SEED = 4242
METRICS = {"bleu": "BLEU", "rouge": "ROUGE-L, stemmer"}
"""The batch metrics measured, and their names in the rows."""


@dataclass(frozen=True)
class ServerRow(Row):
    """A row with the latencies behind it (kept in the JSON; the note repeats them)."""

    requests_per_second: float = 0.0
    p50_ms: float = 0.0
    p99_ms: float = 0.0
    errors: int = 0


@dataclass(frozen=True)
class Plan:
    """Budgets of one run."""

    rounds: int
    load: Load
    batch_load: Load
    pairs: int
    """Distinct (reference, prediction) pairs per load process, cycled through."""
    baseline_seconds: float
    """Length of the one-off in-process measurement of the offload comparison."""
    compare: bool
    """Also compare offload strategies (full run only)."""
    cores: int
    """Server workers, echo and bare-kernel processes and in-process kernels of the main
    measurement: one per core, or one in the quick run (which only checks that it all runs)."""
    warm_connections: int = 12
    """New connections that send the covering requests before the ROUGE rounds (enough to
    reach every worker; the quick run only checks that warming works)."""


def plan(quick: bool) -> Plan:
    """Tiny budgets with ``quick`` (a smoke test), else 5 alternating rounds of 2 s each."""
    cores = available_cores()
    if quick:
        tiny = Load(processes=1, connections=2, concurrency=4, seconds=0.2, warmup=1)
        return Plan(
            1,
            tiny,
            tiny,
            pairs=100,
            baseline_seconds=0.05,
            compare=False,
            cores=1,
            warm_connections=1,
        )
    # Short rounds, many of them: this machine's speed drifts by +-20% within seconds, and
    # alternating short rounds spreads that drift over everything measured.
    return Plan(
        rounds=5,
        load=Load(processes=cores, connections=4, concurrency=32, seconds=2.0),
        batch_load=Load(processes=cores, connections=4, concurrency=4, seconds=2.0, warmup=2),
        pairs=3000,
        baseline_seconds=3.0,
        compare=True,
        cores=cores,
    )


# Requests ------------------------------------------------------------------------------------
# Module-level functions (with functools.partial), so spawned load processes can build them.


def exact_match_requests(index: int) -> list[bytes]:
    """1,000 distinct single-instance exact_match requests."""
    return [
        messages.EvaluateInstancesRequest(
            location="projects/p/locations/l",
            exact_match_input=messages.ExactMatchInput(
                metric_spec=messages.ExactMatchSpec(),
                instances=[
                    messages.ExactMatchInstance(
                        prediction=f"answer {i}", reference=f"answer {i % 3}"
                    )
                ],
            ),
        ).SerializeToString()
        for i in range(1000)
    ]


def _pairs(index: int, count: int) -> list[tuple[str, str]]:
    return TextSource(seed=SEED + index).pairs(count, WORDS)


def batch_request(
    metric: str, pairs: Sequence[tuple[str, str]]
) -> messages.EvaluateInstancesRequest:
    """One ``bleu`` or ``rouge`` (rougeL, stemmer) request scoring ``pairs``."""
    request = messages.EvaluateInstancesRequest(location="projects/p/locations/l")
    if metric == "bleu":
        request.bleu_input.metric_spec.use_effective_order = True
        for reference, prediction in pairs:
            request.bleu_input.instances.add(prediction=prediction, reference=reference)
    else:
        request.rouge_input.metric_spec.rouge_type = "rougeL"
        request.rouge_input.metric_spec.use_stemmer = True
        for reference, prediction in pairs:
            request.rouge_input.instances.add(prediction=prediction, reference=reference)
    return request


def batch_requests(metric: str, pairs: int, http: bool, index: int) -> list[bytes]:
    """Batch requests over ``pairs`` new pairs for load process ``index``."""
    texts = _pairs(index, pairs)
    chunks = [texts[i : i + BATCH] for i in range(0, len(texts), BATCH)]
    requests = [batch_request(metric, chunk) for chunk in chunks]
    if http:
        return [json_format.MessageToJson(r, indent=None).encode() for r in requests]
    return [r.SerializeToString() for r in requests]


def covering_requests(index: int) -> list[bytes]:
    """ROUGE requests whose texts hold every word load process ``index`` draws from. A server
    scores the start of a batch itself and, if the rest is estimated to take more than 10 ms,
    sends it to a scoring process: small requests (scored whole by the worker) warm the
    worker, large ones forward and reversed warm its scoring process."""
    words = list(TextSource(seed=SEED + index).words)
    vocabulary = [" ".join(words[i : i + WORDS]) for i in range(0, len(words), WORDS)]
    covering = list(zip(vocabulary[::2], vocabulary[1::2], strict=False))
    small = BATCH // 5
    chunks = [covering[i : i + small] for i in range(0, len(covering), small)]
    large = [covering[i : i + BATCH] for i in range(0, len(covering), BATCH)]
    chunks += large + [chunk[::-1] for chunk in large]
    return [batch_request("rouge", chunk).SerializeToString() for chunk in chunks]


def warm_stem_caches(port: int, processes: int, connections: int = 12) -> None:
    """Send the covering requests of every load process over ``connections`` new connections,
    so every server worker (the kernel picks one per connection) and its scoring process have
    the benchmark vocabulary's stems cached, as the in-process baseline has (and a
    long-running server would)."""
    bodies = [body for index in range(processes) for body in covering_requests(index)]
    for _ in range(connections):
        with grpc.insecure_channel(
            f"{HOST}:{port}", options=[("grpc.use_local_subchannel_pool", 1)]
        ) as channel:
            call = channel.unary_unary(METHOD, None, None)
            for body in bodies:
                call(body, timeout=60)


def _kernel(
    metric: str, index: int, pairs: int
) -> tuple[Callable[[str, str], object], list[tuple[str, str]]]:
    """The kernel call the server makes per pair, and the pairs of in-process run ``index``."""
    # Imported here: the kernels bring nltk (~2.5 s of start-up), which load processes (they
    # import this module for their request builders) do not need.
    from evald.kernels import Rouge, sentence_bleu
    from evald.kernels.rouge import tokenize

    if metric == "bleu":

        def score(reference: str, prediction: str) -> object:
            return sentence_bleu(prediction, reference, effective_order=True)

    else:
        scorer = Rouge(["rougeL"], use_stemmer=True)
        for word in TextSource(seed=SEED + 1000 + index).words:  # the vocabulary of these texts
            tokenize(word, True)

        def score(reference: str, prediction: str) -> object:
            return scorer.score(reference, prediction)

    return score, _pairs(1000 + index, pairs)


def _score_for(
    score: Callable[[str, str], object], texts: Sequence[tuple[str, str]], seconds: float
) -> tuple[int, float]:
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds or count < 8:
        for reference, prediction in texts[count % len(texts) : count % len(texts) + 8]:
            score(reference, prediction)
        count += 8
    return count, time.perf_counter() - start


@dataclass(frozen=True)
class KernelJob:
    """In-process baseline for a :class:`bench.load.Crew`: the kernel scoring pairs in a loop,
    one process per core measured at once, as the server uses the cores."""

    metric: str
    pairs: int

    def __call__(self, index: int) -> Callable[[float], load.Part]:
        score, texts = _kernel(self.metric, index, self.pairs)
        _score_for(score, texts, 0.05)

        def measure(seconds: float) -> load.Part:
            used = time.process_time()
            count, elapsed = _score_for(score, texts, seconds)
            return count, 0, elapsed, [], time.process_time() - used

        return measure


# Servers -------------------------------------------------------------------------------------


def available_cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def free_port() -> int:
    """A port free on the loopback address right now."""
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def _wait_for(log: Path, marker: str, processes: Sequence[subprocess.Popen[bytes]]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if marker in log.read_text(errors="replace"):
            return
        if any(p.poll() is not None for p in processes):
            break
        time.sleep(0.05)
    raise RuntimeError(f"server did not start: {log.read_text(errors='replace')[-2000:]}")


def _stop(processes: Sequence[subprocess.Popen[bytes]]) -> None:
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    for process in processes:
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextlib.contextmanager
def echo_server(processes: int, work: str = "echo") -> Iterator[tuple[int, list[int]]]:
    """``processes`` bare servers doing ``work`` (:mod:`bench.echo`) sharing one port, each
    pinned to its own core; yields the port and their process ids."""
    port = free_port()
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "echo.log"
        started = []
        try:
            for i in range(processes):
                core = str(cores[i % len(cores)]) if cores and processes > 1 else "-"
                with log.open("ab") as out:
                    started.append(
                        subprocess.Popen(
                            [sys.executable, "-m", "bench.echo", str(port), core, work],
                            cwd=ROOT,
                            stdout=out,
                            stderr=subprocess.STDOUT,
                        )
                    )
            deadline = time.monotonic() + 60
            while log.read_text().count("ready") < processes:
                if time.monotonic() > deadline or any(p.poll() is not None for p in started):
                    raise RuntimeError(f"echo did not start: {log.read_text()[-2000:]}")
                time.sleep(0.05)
            yield port, [process.pid for process in started]
        finally:
            _stop(started)


@contextlib.contextmanager
def evald_server(*flags: str, workers: int = 0) -> Iterator[tuple[int, int, int]]:
    """``evald serve --workers N`` (plus ``flags``) with an HTTP port; yields the gRPC and HTTP
    ports and the server's process id (its workers and scoring processes descend from it)."""
    port, http_port = free_port(), free_port()
    command = [
        *(sys.executable, "-m", "evald.cli", "serve"),
        *("--port", str(port), "--http-port", str(http_port), "--workers", str(workers)),
        *flags,
    ]
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "evald.log"
        with log.open("wb") as out:
            process = subprocess.Popen(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
        try:
            marker = '"msg": "serving"' if workers == 1 else '"msg": "workers serving"'
            _wait_for(log, marker, [process])
            time.sleep(0.5)  # scoring processes start in the background after "serving"
            yield port, http_port, process.pid
        finally:
            _stop([process])


# Measurements --------------------------------------------------------------------------------


def _grpc(port: int) -> load.Target:
    return load.Target("grpc", HOST, port, METHOD)


def _http(port: int) -> load.Target:
    return load.Target("http", HOST, port, HTTP_PATH)


def _merge(results: Sequence[load.Result]) -> load.Result:
    merged = load.Result()
    for result in results:
        merged.requests += result.requests
        merged.errors += result.errors
        merged.seconds += result.seconds
        merged.latencies += result.latencies
        merged.process_cpu += result.process_cpu
        for who, used in result.cpu.items():
            merged.cpu[who] = merged.cpu.get(who, 0.0) + used
    return merged


def _accounted(crew: load.Crew, seconds: float, server: int | list[int] | None) -> load.Result:
    """``crew.measure(seconds)`` with the CPU seconds the crew (``load``) and the server
    (``server``: the process tree of a pid, or a list of processes) used meanwhile."""
    pids: list[int] = []
    if isinstance(server, int):
        pids = cpu.tree(server)
    elif server is not None:
        pids = server
    before = cpu.seconds(crew.pids), cpu.seconds(pids)
    result = crew.measure(seconds)
    result.cpu["load"] = cpu.seconds(crew.pids) - before[0]
    if server is not None:
        result.cpu["server"] = cpu.seconds(pids) - before[1]
    return result


def _progress(message: str) -> None:
    print(f"bench server: {message}", file=sys.stderr, flush=True)


def _latency(result: load.Result) -> str:
    return f"p50 {result.percentile(50):.2f} ms, p99 {result.percentile(99):.2f} ms"


def _row(
    case: str,
    size: str,
    ours: load.Result,
    baseline: float,
    baseline_name: str,
    *,
    unit: str,
    scale: int = 1,
    note: str = "",
) -> ServerRow:
    return ServerRow(
        case=case,
        size=size,
        ours=ours.per_second * scale,
        baseline=baseline,
        baseline_name=baseline_name,
        unit=unit,
        note="; ".join(part for part in (_latency(ours), note) if part),
        requests_per_second=ours.per_second,
        p50_ms=ours.percentile(50),
        p99_ms=ours.percentile(99),
        errors=ours.errors,
    )


def _cpu_note(ours: load.Result) -> str:
    """Cores the server and the load kept busy."""
    if not ours.seconds or "server" not in ours.cpu:
        return ""
    server, used = ours.cpu["server"], ours.cpu["load"]
    return f"CPU: server {server / ours.seconds:.2f} cores, load {used / ours.seconds:.2f} cores"


CPU_UNIT = "µs CPU/pair"


def _cpu_row(
    case: str, size: str, ours: load.Result, kernel: load.Result, baseline_name: str, note: str
) -> ServerRow:
    """Server CPU per scored pair (its process tree, from ``/proc``) against the kernel's own
    CPU per pair in-process (``time.process_time``): the load shares the machine, so CPU per
    pair, not throughput, is what the server's cost is fairly measured by."""
    pairs = ours.requests * BATCH
    server = ours.cpu.get("server", 0.0) / pairs * 1e6 if pairs else float("nan")
    alone = kernel.process_cpu / kernel.requests * 1e6 if kernel.requests else float("nan")
    return ServerRow(
        case=case,
        size=size,
        ours=server,
        baseline=alone,
        baseline_name=f"{baseline_name}, CPU per pair",
        unit=CPU_UNIT,
        note="; ".join(part for part in (_latency(ours), _cpu_note(ours), note) if part),
        requests_per_second=ours.per_second,
        p50_ms=ours.percentile(50),
        p99_ms=ours.percentile(99),
        errors=ours.errors,
    )


def _measured_server(
    name: str, evald_pid: int, bare: dict[str, tuple[int, list[int]]]
) -> int | list[int] | None:
    """Whose CPU measurement ``name`` accounts as the server's: evald's process tree, a bare
    kernel server's processes, or none (in-process and echo measurements)."""
    if name.startswith("bare "):
        return bare[name.removeprefix("bare ")][1]
    if name.startswith("in-") or name == "echo":
        return None
    return evald_pid


def _alternate(rounds: int, runs: dict[str, Callable[[], load.Result]]) -> dict[str, load.Result]:
    """Run each measurement once per round, in turn, and merge each one's rounds."""
    results: dict[str, list[load.Result]] = {name: [] for name in runs}
    for index in range(rounds):
        for name, measure in runs.items():
            results[name].append(measure())
            _progress(f"round {index + 1}: {name}: {results[name][-1].per_second:,.1f} req/s")
    return {name: _merge(parts) for name, parts in results.items()}


def measure_main(p: Plan, cores: int) -> tuple[list[Row], list[str]]:
    """Echo vs single calls, batches vs in-process, HTTP vs gRPC; one evald, one echo, every
    measurement by processes started once and measured in alternating rounds."""
    em = exact_match_requests
    seconds = p.load.seconds
    with contextlib.ExitStack() as stack:
        echo_port, _ = stack.enter_context(echo_server(cores))
        bare_servers = {m: stack.enter_context(echo_server(cores, m)) for m in METRICS}
        bare_ports = {metric: port for metric, (port, _) in bare_servers.items()}
        port, http_port, server_pid = stack.enter_context(evald_server(workers=cores))
        for warmed in (port, bare_ports["rouge"]):
            warm_stem_caches(warmed, p.batch_load.processes, p.warm_connections)

        def crew(job: Callable[[int], Callable[[float], load.Part]], processes: int) -> load.Crew:
            return stack.enter_context(load.Crew(job, processes))

        # Started together, waited for once: spawning and building bodies is not measured.
        crews = {
            "in-process bleu": crew(KernelJob("bleu", p.pairs), cores),
            "in-process rouge": crew(KernelJob("rouge", p.pairs), cores),
            "in-process bleu, 1 process": crew(KernelJob("bleu", p.pairs), 1),
            "in-process rouge, 1 process": crew(KernelJob("rouge", p.pairs), 1),
            "echo": crew(load.LoadJob(_grpc(echo_port), em, p.load), p.load.processes),
            "exact_match": crew(load.LoadJob(_grpc(port), em, p.load), p.load.processes),
            **{
                f"{metric} {'http' if http else 'grpc'}": crew(
                    load.LoadJob(
                        _http(http_port) if http else _grpc(port),
                        functools.partial(batch_requests, metric, p.pairs, http),
                        p.batch_load,
                    ),
                    p.batch_load.processes,
                )
                for metric in METRICS
                for http in (False, True)
            },
            **{
                f"bare {metric}": crew(
                    load.LoadJob(
                        _grpc(bare_ports[metric]),
                        functools.partial(batch_requests, metric, p.pairs, False),
                        p.batch_load,
                    ),
                    p.batch_load.processes,
                )
                for metric in METRICS
            },
        }
        for each in crews.values():
            each.wait_ready()
        measured = _alternate(
            p.rounds,
            {
                name: functools.partial(
                    _accounted,
                    each,
                    seconds,
                    _measured_server(name, server_pid, bare_servers),
                )
                for name, each in crews.items()
            },
        )
    echo = measured["echo"]
    size = f"{BATCH} x medium ({WORDS} words)"
    rows: list[Row] = [
        _row(
            "exact_match, 1 instance, gRPC",
            "1 instance",
            measured["exact_match"],
            echo.per_second,
            f"bare echo gRPC server ({_latency(echo)})",
            unit="req/s",
            note=_cpu_note(measured["exact_match"]),
        )
    ]
    for metric, name in METRICS.items():
        kernel = measured[f"in-process {metric}"]
        every, one = kernel.per_second, measured[f"in-process {metric}, 1 process"].per_second
        ours, bare = measured[f"{metric} grpc"], measured[f"bare {metric}"]
        rows.append(
            _cpu_row(
                f"{name}, gRPC",
                size,
                ours,
                kernel,
                f"kernel in-process, {cores} processes at once",
                note=f"throughput {ours.per_second * BATCH:,.0f} pairs/s, kernel in-process "
                f"{every:,.0f} (ratio {ours.per_second * BATCH / every:.2f}; 1 process alone "
                f"{one:,.0f} x {cores}: ratio {ours.per_second * BATCH / (one * cores):.2f}); "
                f"the bare server below: {bare.per_second * BATCH:,.0f} pairs/s, ratio to it "
                f"{ours.per_second / bare.per_second if bare.per_second else float('nan'):.2f}",
            )
        )
        rows.append(
            _cpu_row(
                f"{name}, bare grpc.aio server + kernel (no evald)",
                size,
                bare,
                kernel,
                f"kernel in-process, {cores} processes at once",
                note=f"throughput {bare.per_second * BATCH:,.0f} pairs/s; what any grpc.aio "
                "server scoring with this kernel costs here, under this load: the floor of the "
                "row above",
            )
        )
    for metric, name in METRICS.items():
        grpc_rate = measured[f"{metric} grpc"].per_second * BATCH
        rows.append(
            _row(
                f"{name}, JSON/HTTP gateway",
                size,
                measured[f"{metric} http"],
                grpc_rate,
                "the same requests over gRPC",
                unit="pairs/s",
                scale=BATCH,
            )
        )
    notes = [
        f"evald: `evald serve --workers {cores}` (each worker pinned to a core, with "
        f"{available_cores()} unpinned scoring processes each); echo: as many echo processes "
        "on the same port, pinned alike. "
        f"Load: {p.load.processes} Python load processes x {p.load.connections} connections, "
        f"{p.load.concurrency} (batches: {p.batch_load.concurrency}) calls in flight each; the "
        "load shares the machine. Every measurement (in-process ones included) is made by "
        "processes started before the first round and measured in turn: "
        f"{p.rounds} alternating round(s) of {seconds:g} s each, summed.",
        f"In-process baseline: the kernel in {cores} processes at once, one per core, as the "
        "server uses them (on a shared machine this differs from one process alone x cores; "
        "that figure and its ratio are in the row).",
        "Batches: ROUGE is rougeL with use_stemmer (one rouge_type per request, as the API "
        "has it); BLEU uses effective order. Every load process cycles through "
        f"{p.pairs:,} distinct pairs (more texts than the BLEU token cache holds).",
    ]
    errors = sum(result.errors for result in measured.values())
    if errors:
        notes.append(f"{errors} call(s) failed during the run.")
    return rows, notes


def measure_offload(p: Plan, cores: int) -> tuple[list[Row], list[str]]:
    """BLEU batches under each way of using the cores, and single-call latency while large
    ROUGE requests are scored (scoring processes vs a thread)."""
    rows: list[Row] = []
    bleu = functools.partial(batch_requests, "bleu", p.pairs, False)
    with load.Crew(KernelJob("bleu", p.pairs), cores) as kernels:
        baseline = kernels.measure(p.baseline_seconds).per_second
    configs = {
        "1 process, thread offload (before)": (1, ("--scoring-processes", "0")),
        f"1 process + {cores} scoring processes": (1, ()),
        f"{cores} pinned workers, thread offload": (0, ("--scoring-processes", "0")),
        f"{cores} pinned workers + 1 scoring process each": (0, ("--scoring-processes", "1")),
        f"{cores} pinned workers + {cores} scoring processes each (default of --workers 0)": (
            0,
            (),
        ),
    }
    for name, (workers, flags) in configs.items():
        with evald_server(*flags, workers=workers) as (port, _, _):
            result = load.run(_grpc(port), bleu, p.batch_load)
        _progress(f"{name}: {result.per_second * BATCH:,.0f} pairs/s")
        rows.append(
            _row(
                f"BLEU, gRPC: {name}",
                f"{BATCH} x medium",
                result,
                baseline,
                f"kernel in-process, {cores} processes at once",
                unit="pairs/s",
                scale=BATCH,
            )
        )
    for name, flags in {"thread": ("--scoring-processes", "0"), "scoring processes": ()}.items():
        with evald_server(*flags, workers=1) as (port, _, _):
            background = subprocess.Popen(
                [sys.executable, "-c", _BIG_LOAD.format(port=port, pairs=p.pairs)], cwd=ROOT
            )
            try:
                time.sleep(1.0)
                small = Load(processes=1, connections=1, concurrency=1, seconds=3.0)
                result = load.run(_grpc(port), exact_match_requests, small)
                quiet = None
            finally:
                background.terminate()
                background.wait()
            with contextlib.suppress(Exception):
                quiet = load.run(_grpc(port), exact_match_requests, small)
        rows.append(
            _row(
                f"exact_match, 1 call in flight, while 1,000-instance ROUGE runs: {name}",
                "1 instance",
                result,
                quiet.per_second if quiet else float("nan"),
                f"same, idle server ({_latency(quiet) if quiet else '-'})",
                unit="req/s",
            )
        )
    notes = [
        "Offload comparison (`--workers 1` single process, `--workers 0` one per core; "
        "`--scoring-processes 0` scores large batches in a thread instead of processes).",
        "Latency rows: one client calling exact_match one call at a time while another process "
        "keeps two 1,000-instance ROUGE-L requests in flight against a 1-worker server.",
    ]
    return rows, notes


@contextlib.contextmanager
def _pinned(cpus: set[int]) -> Iterator[None]:
    """Processes started inside inherit ``cpus`` as their CPU affinity."""
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cpus)
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def measure_isolated(p: Plan) -> tuple[list[Row], list[str]]:
    """The server's own efficiency, with nothing else on its core: evald (one worker, its
    scoring process included) and echo on the first core, the load on the other cores, the
    kernel baseline on the first core too; alternating rounds, as in the main rows."""
    cpus = sorted(os.sched_getaffinity(0))
    server_cpu, load_cpus = {cpus[0]}, set(cpus[1:])
    processes = len(load_cpus)
    calls = dataclasses.replace(p.load, processes=processes)
    batches = dataclasses.replace(p.batch_load, processes=processes)
    with contextlib.ExitStack() as stack:
        with _pinned(server_cpu):
            echo_port, _ = stack.enter_context(echo_server(1))
            bare_servers = {m: stack.enter_context(echo_server(1, m)) for m in METRICS}
            bare_ports = {metric: port for metric, (port, _) in bare_servers.items()}
            port, _, server_pid = stack.enter_context(evald_server(workers=1))
            kernels = {
                metric: stack.enter_context(load.Crew(KernelJob(metric, p.pairs), 1))
                for metric in METRICS
            }
        for warmed in (port, bare_ports["rouge"]):
            warm_stem_caches(warmed, processes, min(2, p.warm_connections))
        with _pinned(load_cpus):
            crews = {
                "echo": load.LoadJob(_grpc(echo_port), exact_match_requests, calls),
                "exact_match": load.LoadJob(_grpc(port), exact_match_requests, calls),
                **{
                    f"{who} {metric}": load.LoadJob(
                        _grpc(port if who == "evald" else bare_ports[metric]),
                        functools.partial(batch_requests, metric, p.pairs, False),
                        batches,
                    )
                    for metric in METRICS
                    for who in ("evald", "bare")
                },
            }
            started = {
                name: stack.enter_context(load.Crew(job, processes)) for name, job in crews.items()
            }
        runs: dict[str, Callable[[], load.Result]] = {
            f"alone: in-process {metric}": functools.partial(_accounted, crew, p.load.seconds, None)
            for metric, crew in kernels.items()
        }
        for name, crew in started.items():
            pids = _measured_server(name, server_pid, bare_servers)
            runs[f"alone: {name}"] = functools.partial(_accounted, crew, p.load.seconds, pids)
        for crew in [*kernels.values(), *started.values()]:
            crew.wait_ready()
        measured = _alternate(p.rounds, runs)
    where = f"core {cpus[0]}"
    rows: list[Row] = [
        _row(
            f"exact_match, 1 instance, gRPC, server alone on {where}",
            "1 instance",
            measured["alone: exact_match"],
            measured["alone: echo"].per_second,
            f"bare echo gRPC server alone on {where} ({_latency(measured['alone: echo'])})",
            unit="req/s",
            note=_cpu_note(measured["alone: exact_match"]),
        )
    ]
    for metric, name in METRICS.items():
        kernel = measured[f"alone: in-process {metric}"]
        ours, bare = measured[f"alone: evald {metric}"], measured[f"alone: bare {metric}"]
        size = f"{BATCH} x medium ({WORDS} words)"
        baseline = f"kernel in-process, 1 process on {where}"
        rows.append(
            _cpu_row(
                f"{name}, gRPC, server alone on {where}",
                size,
                ours,
                kernel,
                baseline,
                note=f"throughput {ours.per_second * BATCH:,.0f} pairs/s, kernel "
                f"{kernel.per_second:,.0f} (ratio {ours.per_second * BATCH / kernel.per_second:.2f}"
                f"); ratio to the bare server below: "
                f"{ours.per_second / bare.per_second if bare.per_second else float('nan'):.2f}",
            )
        )
        rows.append(
            _cpu_row(
                f"{name}, bare grpc.aio server + kernel (no evald), alone on {where}",
                size,
                bare,
                kernel,
                baseline,
                note=f"throughput {bare.per_second * BATCH:,.0f} pairs/s",
            )
        )
    notes = [
        f'Rows "alone on {where}": `evald serve --workers 1` (its scoring process too), one '
        f"echo process and one bare kernel server per metric on {where}, the load "
        f"({processes} Python process(es)) on the other core(s), the kernel baseline in one "
        f"process on {where}: the server's own efficiency, without the load's CPU and cache "
        "use on its core."
    ]
    return rows, notes


def _big_rouge(pairs: int, index: int) -> list[bytes]:
    texts = _pairs(500 + index, min(pairs, 1000))
    return [batch_request("rouge", texts).SerializeToString()]


_BIG_LOAD = """
import asyncio, grpc
from bench.server import _big_rouge, METHOD
body = _big_rouge({pairs}, 0)[0]
async def main():
    async with grpc.aio.insecure_channel("127.0.0.1:{port}") as channel:
        call = channel.unary_unary(METHOD)
        async def loop():
            while True:
                await call(body)
        await asyncio.gather(loop(), loop())
asyncio.run(main())
"""


def run(quick: bool) -> Section:
    """Measure; ``quick`` only checks that it all runs (tiny budgets)."""
    p = plan(quick)
    cores = p.cores
    rows, notes = measure_main(p, cores)
    if available_cores() > 1 and hasattr(os, "sched_setaffinity"):
        more_rows, more_notes = measure_isolated(p)
        rows += more_rows
        notes += more_notes
    if p.compare:
        more_rows, more_notes = measure_offload(p, cores)
        rows += more_rows
        notes += more_notes
    notes.append(
        "Ratios: exact_match vs echo req/s (target >= 0.8); BLEU and ROUGE-L gRPC batches "
        f"({CPU_UNIT}): the server's CPU per scored pair (its processes and their scoring "
        "processes, from /proc) over the same kernel's CPU per pair in-process on the same "
        "pairs (time.process_time), lower is better (target <= 1.25); the load shares the "
        "machine, so CPU per pair, not throughput, measures the server's own cost (throughput "
        "and its ratio to the kernel are in the row's note); gateway vs gRPC (target >= 0.85). "
        "Request log at INFO, written to a file, as shipped."
    )
    return Section("server", "End to end: evald server vs echo server and in-process", rows, notes)
