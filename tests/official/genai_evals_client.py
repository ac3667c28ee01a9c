"""Runs the google-genai based ``vertexai.Client().evals.evaluate`` against evald's HTTP gateway.

Its own process: the official SDK and ``evald_proto`` cannot be imported together. Prints the
summary of each metric as JSON on stdout. Usage: ``python genai_evals_client.py BASE_URL``.
"""

from __future__ import annotations

import importlib
import json
import sys
import warnings
from typing import Any

ROWS = {
    "prompt": ["Capital of France?", "2+2?", "Colour of the sky?"],
    "response": ["Paris", "four is the answer", "The sky is blue."],
    "reference": ["Paris", "the answer is four", "Blue, mostly."],
}
METRICS = ["exact_match", "bleu", "rouge_1", "rouge_l_sum"]


def connect(base_url: str) -> Any:
    """A ``vertexai.Client`` on evald's gateway at ``base_url`` (a static token: no auth)."""
    import vertexai
    from google.auth import credentials

    class StaticToken(credentials.Credentials):
        """A bearer token that never expires: evald has no auth configured here."""

        def refresh(self, request: Any) -> None:
            self.token = "test-token"

    token = StaticToken()  # type: ignore[no-untyped-call]  # google-auth's __init__ is unannotated
    token.token = "test-token"
    return vertexai.Client(
        project="p", location="us-central1", credentials=token, http_options={"base_url": base_url}
    )


def main(base_url: str) -> None:
    warnings.simplefilter("ignore")
    from vertexai import types

    client = connect(base_url)
    pd: Any = importlib.import_module("pandas")
    result = client.evals.evaluate(
        dataset=pd.DataFrame(ROWS), metrics=[types.Metric(name=name) for name in METRICS]
    )
    summary = {
        m.metric_name: {"mean": m.mean_score, "errors": m.num_cases_error}
        for m in result.summary_metrics
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main(sys.argv[1])
