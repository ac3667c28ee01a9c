"""Run the stable ``EvalTask`` with its judge metrics (``MetricPromptTemplateExamples``) against
a TLS evald; print JSON results.

    GRPC_DEFAULT_SSL_ROOTS_FILE_PATH=cert.pem \
        python -m tests.official.eval_task_judge_client HOST:PORT

Prints ``{"rows": [...], "summary": {...}}`` as :mod:`tests.official.eval_task_client` does.
"""

from __future__ import annotations

import importlib
import json
import logging
import sys
import warnings
from typing import Any

from tests.official.cases import LOCATION
from tests.official.eval_task_client import jsonable

DATASET = {
    "prompt": ["Say hello.", "Name a colour."],
    "response": ["CANDIDATE says hello.", "CANDIDATE says blue."],
    "baseline_model_response": ["BASELINE says hi.", "BASELINE says red."],
}


def main(address: str) -> dict[str, Any]:
    import vertexai
    from google.auth.credentials import AnonymousCredentials
    from vertexai.evaluation import EvalTask, MetricPromptTemplateExamples

    project, location = LOCATION.split("/")[1], LOCATION.split("/")[3]
    vertexai.init(
        project=project,
        location=location,
        api_endpoint=address,
        credentials=AnonymousCredentials(),  # type: ignore[no-untyped-call]
    )
    pd: Any = importlib.import_module("pandas")  # no type stubs installed
    metrics: list[Any] = [
        MetricPromptTemplateExamples.Pointwise.FLUENCY,
        MetricPromptTemplateExamples.Pairwise.FLUENCY,
    ]
    result = EvalTask(dataset=pd.DataFrame(DATASET), metrics=metrics).evaluate()
    table = result.metrics_table
    assert table is not None
    rows = [{col: jsonable(row[col]) for col in table.columns} for _, row in table.iterrows()]
    summary = {key: jsonable(value) for key, value in result.summary_metrics.items()}
    return {"rows": rows, "summary": summary}


if __name__ == "__main__":
    logging.disable(logging.WARNING)
    warnings.simplefilter("ignore")
    json.dump(main(sys.argv[1]), sys.stdout, indent=1)
