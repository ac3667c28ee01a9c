"""Judge usage in dataset results: each row stores what it cost, so a job resumed after a restart
sums exactly what all its rows cost."""

from __future__ import annotations

import asyncio
import json
import os
import socket
from pathlib import Path
from typing import Any

from evald import api
from evald.jobs import judge_usage
from evald.jobs.runner import JobRunner
from evald.jobs.store import DB_FILE, RUNNING, SUCCEEDED, JobStore
from evald.judges import usage
from evald.judges.base import Tokens
from evald.judges.usage import Tally, Usage
from evald.orphans import process_start

JOB = "projects/p/locations/l/operations/resumed"
ROWS = 6
STORED = 2
ROW_COST = Usage(calls=2, input_tokens=30, output_tokens=4)
"""What one row's request costs: two judge calls for metric 0, none for metric 1."""


def test_a_row_records_its_usage_and_each_metrics_share() -> None:
    tally = Tally()
    tally.add(Usage.of_call(Tokens(5, 1)), "j", "metrics[1]")
    tally.add(usage.UNKNOWN, "j", None)  # e.g. a server that reports no breakdown
    record: dict[str, Any] = {"row": 0, "results": [{"metric": "a"}, {"metric": "b"}]}
    judge_usage.annotate(record, tally)
    assert record["judge_usage"] == (Usage.of_call(Tokens(5, 1)) + usage.UNKNOWN).to_json()
    assert "judge_usage" not in record["results"][0]
    assert record["results"][1]["judge_usage"] == Usage.of_call(Tokens(5, 1)).to_json()
    untouched: dict[str, Any] = {"row": 1, "results": [{"metric": "a"}]}
    judge_usage.annotate(untouched, Tally())
    assert untouched == {"row": 1, "results": [{"metric": "a"}]}
    assert judge_usage.section([untouched]) == {}
    assert judge_usage.total([record, record]) == {
        "total": (
            Usage(calls=4, input_tokens=10, output_tokens=2, calls_without_usage=2)
        ).to_json(),
        "metrics": {"b": Usage(calls=2, input_tokens=10, output_tokens=2).to_json()},
    }


def test_a_record_of_several_requests_costs_the_sum_of_its_results() -> None:
    alone = Tally()
    alone.add(Usage.of_call(Tokens(4, 2)), "j")
    results: list[dict[str, Any]] = [{"metric": "a"}, {"metric": "b"}]
    judge_usage.annotate_result(results[1], alone)
    judge_usage.annotate_result(results[0], Tally())  # a computed metric
    assert judge_usage.total([{"row": 0, "results": results}]) == {
        "total": Usage.of_call(Tokens(4, 2)).to_json(),
        "metrics": {"b": Usage.of_call(Tokens(4, 2)).to_json()},
    }


def test_a_resumed_job_sums_the_rows_scored_before_and_after_the_restart(
    tmp_path: Path,
) -> None:
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps({"response": "a"}) + "\n" for _ in range(ROWS)))
    request = api.messages.EvaluateDatasetRequest(location="projects/p/locations/l")
    request.dataset.gcs_source.uris.append(str(data))
    request.metrics.add(pointwise_metric_spec={"metric_prompt_template": "{response}"})
    request.metrics.add(exact_match_spec={})
    boot, _, ticks = process_start(os.getpid()).partition("/")
    earlier = f"{socket.gethostname()}:{os.getpid()}:{boot}/{int(ticks) - 1}:0123456789abcdef"
    scored: list[int] = []

    async def evaluate(instances: Any) -> Any:  # two judge calls for metric 0
        scored.append(1)
        with usage.part("metrics[0]"):
            for _ in range(2):
                usage.record("j", Usage.of_call(Tokens(15, 2)))
        response = api.messages.EvaluateInstancesResponse()
        response.metric_results.add(score=1.0)
        response.metric_results.add(score=1.0)
        return response

    def stored_row(index: int) -> tuple[int, bool, str]:
        results = [
            {"metric": label, "score": 1.0, "explanation": None, "error": None}
            for label in ("pointwise", "exact_match")
        ]
        record = {"row": index, "input": {"response": "a"}, "results": results}
        tally = Tally()
        tally.add(ROW_COST, "j", "metrics[0]")
        judge_usage.annotate(record, tally)
        return index, False, json.dumps(record)

    async def scenario() -> None:
        previous = JobStore(tmp_path / "data" / DB_FILE, earlier)  # the killed process
        await previous.create(JOB, request.SerializeToString(), str(tmp_path / "out"))
        await previous.update(JOB, state=RUNNING, rows_total=ROWS)
        await previous.add_rows(JOB, [stored_row(i) for i in range(STORED)])
        runner = JobRunner(tmp_path / "data", evaluate, dataset_root=tmp_path, output_root=tmp_path)
        await runner.start()
        try:
            assert (await runner.wait(JOB, 10)).state == SUCCEEDED
        finally:
            await runner.stop()

    asyncio.run(scenario())
    assert len(scored) == ROWS - STORED
    aggregation = json.loads((tmp_path / "out/aggregation.json").read_text())
    total = Usage(calls=2 * ROWS, input_tokens=30 * ROWS, output_tokens=4 * ROWS).to_json()
    assert aggregation["judge_usage"] == {"total": total, "metrics": {"pointwise": total}}
