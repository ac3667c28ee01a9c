"""Run the stable ``vertexai.evaluation.EvalTask`` SDK against a TLS evald; print JSON results.

    GRPC_DEFAULT_SSL_ROOTS_FILE_PATH=cert.pem python -m tests.official.eval_task_client HOST:PORT

The SDK has no plaintext option: it opens TLS to ``api_endpoint`` and trusts the roots named by
``GRPC_DEFAULT_SSL_ROOTS_FILE_PATH`` (the server's self-signed certificate). Anonymous credentials
stand in for Google auth. Prints ``{"rows": [...], "summary": {...}}``.
"""

from __future__ import annotations

import importlib
import json
import logging
import math
import sys
import warnings
from typing import Any

from tests.official.cases import LOCATION

DATASET = {
    "response": ["Paris", "the cat is on the mat", "The cat sat.\nThe dog ran."],
    "reference": ["Paris", "there is a cat on the mat", "The dog ran.\nThe cat sat."],
}
METRICS: list[Any] = ["exact_match", "bleu", "rouge_l_sum"]


def jsonable(value: Any) -> Any:
    """A pandas cell as JSON (NaN becomes None so the test sees a missing score)."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def connect(address: str) -> None:
    """Point the SDK at evald at ``address`` (anonymous credentials: no auth configured)."""
    import vertexai
    from google.auth.credentials import AnonymousCredentials

    project, location = LOCATION.split("/")[1], LOCATION.split("/")[3]
    vertexai.init(
        project=project,
        location=location,
        api_endpoint=address,
        credentials=AnonymousCredentials(),  # type: ignore[no-untyped-call]
    )


def outcome(result: Any) -> dict[str, Any]:
    """An EvalResult as JSON: its rows and its summary."""
    table = result.metrics_table
    assert table is not None
    rows = [{col: jsonable(row[col]) for col in table.columns} for _, row in table.iterrows()]
    summary = {key: jsonable(value) for key, value in result.summary_metrics.items()}
    return {"rows": rows, "summary": summary}


def main(address: str) -> dict[str, Any]:
    from vertexai.evaluation import EvalTask

    connect(address)
    pd: Any = importlib.import_module("pandas")  # no type stubs installed
    result = EvalTask(dataset=pd.DataFrame(DATASET), metrics=METRICS).evaluate()
    return outcome(result)


if __name__ == "__main__":
    logging.disable(logging.WARNING)
    warnings.simplefilter("ignore")
    json.dump(main(sys.argv[1]), sys.stdout, indent=1)
