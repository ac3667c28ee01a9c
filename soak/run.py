"""The soak run: start the fake judge and an ``evald serve`` process, drive load, watch RSS.

RSS rule: samples from the first ``--warmup`` fraction of the run are dropped (pools, caches
and allocator arenas fill up then); the median of the last third of the remaining samples must
not exceed the median of their first third by more than ``--rss-margin`` (default 10 %). The
least-squares slope of the remaining samples is reported too (MiB per minute).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter, defaultdict
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import grpc
from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as m
from google.protobuf import json_format
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.fakes.judge_server import Call, FakeJudge, Reply, running

ROOT = Path(__file__).resolve().parents[1]
METHOD = "/google.cloud.aiplatform.v1beta1.EvaluationService/EvaluateInstances"
HTTP_PATH = "/v1beta1/projects/soak/locations/local:evaluateInstances"
WORDS = (
    "the", "a", "cat", "dog", "sat", "on", "mat", "quick", "brown", "fox", "jumps", "over",
    "lazy", "river", "bank",
)  # fmt: skip


class QuietJudge(FakeJudge):
    """The fake judge without its call log (it would grow for the whole run)."""

    def _next(self, call: Call) -> Reply:
        verdict = {"score": random.randint(1, 5), "explanation": "soak"}
        if "Response A" in call.prompt:
            verdict = {"pairwise_choice": random.choice("AB"), "explanation": "soak"}
        return Reply(text=json.dumps(verdict), delay=self.delay)

    delay: float = 0.005


def sentence(rng: random.Random, n: int = 12) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def tool(rng: random.Random) -> str:
    args = {rng.choice(WORDS): rng.choice([1, "x", True, None, 2.5]) for _ in range(3)}
    return json.dumps(
        {"content": "", "tool_calls": [{"name": rng.choice(WORDS), "arguments": args}]}
    )


def computed(rng: random.Random) -> tuple[str, dict[str, Any]]:
    kind = rng.choice(["exact_match", "bleu", "rouge", "tool_parameter_kv_match"])
    pairs = [(sentence(rng), sentence(rng)) for _ in range(rng.randint(1, 20))]
    if kind == "tool_parameter_kv_match":
        pairs = [(tool(rng), tool(rng)) for _ in range(rng.randint(1, 10))]
    spec: dict[str, Any] = {"rougeType": "rougeL"} if kind == "rouge" else {}
    key = (
        "toolParameterKvMatchInput"
        if kind.startswith("tool")
        else f"{kind}Input".replace("exact_match", "exactMatch")
    )
    instances = [{"prediction": p, "reference": r} for p, r in pairs]
    return kind, {key: {"metricSpec": spec, "instances": instances}}


def judged(rng: random.Random) -> tuple[str, dict[str, Any]]:
    if rng.random() < 0.5:
        return "pointwise", {
            "pointwiseMetricInput": {
                "metricSpec": {"metricPromptTemplate": "Rate {response} for {prompt} from 1 to 5"},
                "instance": {
                    "jsonInstance": json.dumps({"prompt": sentence(rng), "response": sentence(rng)})
                },
            }
        }
    return "pairwise", {
        "pairwiseMetricInput": {
            "metricSpec": {
                "metricPromptTemplate": "{prompt}\nResponse A: {baseline_model_response}\n"
                "Response B: {response}"
            },
            "instance": {
                "jsonInstance": json.dumps(
                    {
                        "prompt": sentence(rng),
                        "response": sentence(rng),
                        "baseline_model_response": sentence(rng),
                    }
                )
            },
        }
    }


@dataclass
class Stats:
    """What the load generator saw."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    codes: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)

    def record(self, kind: str, code: str, seconds: float, detail: str = "") -> None:
        self.codes[code] += 1
        self.latencies[kind].append(seconds)
        if code not in ("OK", "200") and len(self.failures) < 20:
            self.failures.append(f"{kind}: {code} {detail[:200]}")


def free_port() -> int:
    with closing(socket.socket()) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


async def wait_serving(address: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    async with grpc.aio.insecure_channel(address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        while True:
            try:
                reply = await health.Check(health_pb2.HealthCheckRequest(), timeout=2)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.aio.AioRpcError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"evald at {address} did not start")
            await asyncio.sleep(0.2)


async def worker(
    index: int,
    stop_at: float,
    judge_share: float,
    http_share: float,
    channel: grpc.aio.Channel,
    session: aiohttp.ClientSession,
    http_url: str,
    stats: Stats,
) -> None:
    rng = random.Random(index)
    call = channel.unary_unary(METHOD, request_serializer=None, response_deserializer=None)
    while time.monotonic() < stop_at:
        kind, body = judged(rng) if rng.random() < judge_share else computed(rng)
        start = time.perf_counter()
        if rng.random() < http_share:
            kind = f"{kind}/http"
            async with session.post(http_url + HTTP_PATH, json=body) as reply:
                text = await reply.text()
                stats.record(kind, str(reply.status), time.perf_counter() - start, text)
            continue
        kind = f"{kind}/grpc"
        raw = json_format.ParseDict(body, m.EvaluateInstancesRequest()).SerializeToString()
        try:
            await call(raw, timeout=30)
        except grpc.aio.AioRpcError as err:
            stats.record(kind, err.code().name, time.perf_counter() - start, err.details() or "")
        else:
            stats.record(kind, "OK", time.perf_counter() - start)


async def sample_rss(
    pid: int, stop_at: float, every: float, samples: list[tuple[float, int]]
) -> None:
    start = time.monotonic()
    while time.monotonic() < stop_at:
        samples.append((time.monotonic() - start, rss_bytes(pid)))
        await asyncio.sleep(every)
    samples.append((time.monotonic() - start, rss_bytes(pid)))


def rss_verdict(
    samples: list[tuple[float, int]], duration: float, warmup: float, margin: float
) -> dict[str, Any]:
    """Median RSS of the last third of the post-warm-up samples against the first third's
    (medians: RSS breathes with garbage collection and allocator arenas), plus the slope."""
    kept = [(t, r) for t, r in samples if t >= duration * warmup] or samples
    third = max(1, len(kept) // 3)
    first = statistics.median(r for _, r in kept[:third])
    last = statistics.median(r for _, r in kept[-third:])
    growth = (last - first) / first
    ts, rs = [t for t, _ in kept], [r for _, r in kept]
    slope = statistics.linear_regression(ts, rs).slope if len(kept) > 1 else 0.0
    return {
        "samples": len(samples),
        "rss_start_mib": round(samples[0][1] / 2**20, 1),
        "rss_after_warmup_mib": round(first / 2**20, 1),
        "rss_end_mib": round(last / 2**20, 1),
        "rss_peak_mib": round(max(r for _, r in samples) / 2**20, 1),
        "growth_after_warmup": round(growth, 4),
        "slope_mib_per_min": round(slope * 60 / 2**20, 3),
        "margin": margin,
        "flat": growth <= margin,
        "series_mib": [(round(t, 1), round(r / 2**20, 1)) for t, r in samples],
    }


def scrape_total(url: str) -> float:
    with urllib.request.urlopen(url, timeout=10) as reply:
        text = reply.read().decode()
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith("evald_requests_total{")
    )


async def drive(args: argparse.Namespace) -> dict[str, Any]:
    ports = {name: free_port() for name in ("grpc", "http", "metrics")}
    suffix = "/v1" if args.judge_backend == "openai" else ""
    with running(QuietJudge()) as judge, tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "judges.json"
        config.write_text(
            json.dumps(
                {
                    "default_judge": "fake",
                    "timeout_seconds": 10,
                    "cache": {"enabled": False},
                    "judges": {
                        "fake": {
                            "backend": args.judge_backend,
                            "model": "soak-judge",
                            "base_url": judge.url + suffix,
                            "api_key_env": "SOAK_JUDGE_KEY",
                            "max_concurrency": 16,
                        }
                    },
                }
            )
        )
        env = {
            **os.environ,
            "EVALD_JUDGE_CONFIG": str(config),
            "SOAK_JUDGE_KEY": "soak-key",
            "XDG_DATA_HOME": tmp,
            "XDG_CACHE_HOME": tmp,
        }
        command = [
            sys.executable, "-m", "evald.cli", "serve",
            "--port", str(ports["grpc"]), "--http-port", str(ports["http"]),
            "--metrics-port", str(ports["metrics"]), "--log-level", "WARNING",
            "--scoring-processes", "0",
        ]  # fmt: skip
        server = subprocess.Popen(command, env=env, cwd=ROOT, stderr=subprocess.PIPE)
        try:
            address = f"127.0.0.1:{ports['grpc']}"
            await wait_serving(address)
            stats = Stats()
            samples: list[tuple[float, int]] = []
            start = time.monotonic()
            stop_at = start + args.duration
            async with (
                grpc.aio.insecure_channel(address) as channel,
                aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as session,
            ):
                http_url = f"http://127.0.0.1:{ports['http']}"
                await asyncio.gather(
                    sample_rss(server.pid, stop_at, args.sample_seconds, samples),
                    *(
                        worker(
                            i,
                            stop_at,
                            args.judge_share,
                            args.http_share,
                            channel,
                            session,
                            http_url,
                            stats,
                        )
                        for i in range(args.concurrency)
                    ),
                )
            elapsed = time.monotonic() - start
            served = scrape_total(f"http://127.0.0.1:{ports['metrics']}/metrics")
            alive = server.poll() is None
        finally:
            server.terminate()
            try:
                _, stderr = server.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                _, stderr = server.communicate()
    total = sum(stats.codes.values())
    errors = total - stats.codes["OK"] - stats.codes["200"]
    return {
        "duration_s": round(elapsed, 1),
        "concurrency": args.concurrency,
        "requests": total,
        "requests_per_s": round(total / elapsed, 1),
        "errors": errors,
        "codes": dict(stats.codes),
        "failures": stats.failures,
        "server_counted": served,
        "server_alive_at_end": alive,
        "server_exit_code": server.returncode,
        "server_stderr_tail": stderr.decode(errors="replace")[-2000:],
        "latency_ms": {
            kind: {
                "n": len(values),
                "p50": round(statistics.median(values) * 1000, 2),
                "p99": round(sorted(values)[int(len(values) * 0.99) - 1] * 1000, 2),
            }
            for kind, values in sorted(stats.latencies.items())
        },
        "rss": rss_verdict(samples, elapsed, args.warmup, args.rss_margin),
    }


def markdown(report: dict[str, Any]) -> str:
    rss = report["rss"]
    lines = [
        "## Soak run",
        "",
        f"- duration {report['duration_s']} s, {report['concurrency']} concurrent callers, "
        f"{report['requests']} requests ({report['requests_per_s']}/s), "
        f"**{report['errors']} errors**; server counted {report['server_counted']:.0f}",
        f"- RSS: start {rss['rss_start_mib']} MiB, after warm-up {rss['rss_after_warmup_mib']} "
        f"MiB, end {rss['rss_end_mib']} MiB, peak {rss['rss_peak_mib']} MiB; growth after "
        f"warm-up {rss['growth_after_warmup']:.2%} (margin {rss['margin']:.0%}), slope "
        f"{rss['slope_mib_per_min']} MiB/min -> {'flat' if rss['flat'] else 'NOT flat'}",
        "",
        "| kind | n | p50 ms | p99 ms |",
        "|---|---:|---:|---:|",
    ]
    for kind, row in report["latency_ms"].items():
        lines.append(f"| {kind} | {row['n']} | {row['p50']} | {row['p99']} |")
    if report["failures"]:
        lines += ["", "Failures (first 20):", *(f"- {f}" for f in report["failures"])]
    return "\n".join(lines)


def passed(report: dict[str, Any]) -> bool:
    """Zero errors, every request counted by the server, RSS flat, server still up."""
    return bool(
        report["errors"] == 0
        and report["server_alive_at_end"]
        and report["server_counted"] >= report["requests"]
        and report["rss"]["flat"]
    )


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m soak", description=__doc__)
    p.add_argument("--duration", type=float, default=300.0, help="seconds of load (default 300)")
    p.add_argument("--concurrency", type=int, default=8, help="concurrent callers (default 8)")
    p.add_argument("--judge-share", type=float, default=0.3, help="share of judge requests")
    p.add_argument("--http-share", type=float, default=0.3, help="share sent over HTTP")
    p.add_argument("--judge-backend", choices=("gemini", "openai"), default="openai")
    p.add_argument("--warmup", type=float, default=0.25, help="fraction of the run ignored for RSS")
    p.add_argument("--rss-margin", type=float, default=0.10, help="allowed RSS growth (0.10)")
    p.add_argument("--sample-seconds", type=float, default=2.0, help="RSS sampling period")
    p.add_argument("--report", type=Path, help="also write the report as JSON here")
    return p


def main(argv: list[str] | None = None, run: Callable[..., Any] = asyncio.run) -> int:
    """Run the soak; exit status 0 when it passed."""
    args = parser().parse_args(argv)
    report = run(drive(args))
    print(markdown(report))
    if args.report is not None:
        args.report.write_text(json.dumps(report, indent=2))
    ok = passed(report)
    print(f"\nsoak {'PASSED' if ok else 'FAILED'}")
    return 0 if ok else 1
