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

from tests.official.eval_task_client import connect, outcome

DATASET = {
    "prompt": ["Say hello.", "Name a colour."],
    "response": ["CANDIDATE says hello.", "CANDIDATE says blue."],
    "baseline_model_response": ["BASELINE says hi.", "BASELINE says red."],
}


def main(address: str) -> dict[str, Any]:
    from vertexai.evaluation import EvalTask, MetricPromptTemplateExamples

    connect(address)
    pd: Any = importlib.import_module("pandas")  # no type stubs installed
    metrics: list[Any] = [
        MetricPromptTemplateExamples.Pointwise.FLUENCY,
        MetricPromptTemplateExamples.Pairwise.FLUENCY,
    ]
    return outcome(EvalTask(dataset=pd.DataFrame(DATASET), metrics=metrics).evaluate())


if __name__ == "__main__":
    logging.disable(logging.WARNING)
    warnings.simplefilter("ignore")
    json.dump(main(sys.argv[1]), sys.stdout, indent=1)
