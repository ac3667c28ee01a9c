"""Runs the google-genai based ``vertexai.Client().evals`` rubric flow against evald's gateway:
``generate_rubrics`` (a predefined spec, then a prompt template), then ``evaluate`` with the
generated ``rubric_groups`` and a rubric metric.

Its own process: the official SDK and ``evald_proto`` cannot be imported together. Prints one
JSON object on stdout: the generated rubrics of each row, and each evaluation's per-case score,
error and rubric verdicts. Usage: ``python genai_rubrics_client.py BASE_URL``.
"""

from __future__ import annotations

import importlib
import json
import sys
import warnings
from typing import Any

from tests.official.genai_evals_client import connect

ROWS = {
    "prompt": ["ROW-1 What is the capital of France?", "ROW-2 What is the capital of Japan?"],
    "response": ["Paris is the capital.", "Tokyo is the capital."],
}
GROUP = "general_quality_rubrics"
CUSTOM = "custom_rubrics"


def rubric_list(rubrics: Any) -> list[dict[str, Any]]:
    return [
        {
            "id": r.rubric_id,
            "text": r.content.property.description,
            "type": r.type,
            "importance": r.importance.value if r.importance is not None else None,
        }
        for r in rubrics or []
    ]


def cases(result: Any, metric: str) -> list[dict[str, Any]]:
    out = []
    for case in result.eval_case_results:
        found = case.response_candidate_results[0].metric_results[metric]
        verdicts = [
            {"text": v.evaluated_rubric.content.property.description, "verdict": v.verdict}
            for v in found.rubric_verdicts or []
        ]
        out.append({"score": found.score, "error": found.error_message, "verdicts": verdicts})
    return out


def main(base_url: str) -> None:
    warnings.simplefilter("ignore")
    from vertexai import types

    client = connect(base_url)
    pd: Any = importlib.import_module("pandas")
    with_rubrics = client.evals.generate_rubrics(
        src=pd.DataFrame(ROWS),
        rubric_group_name=GROUP,
        predefined_spec_name=types.RubricMetric.GENERAL_QUALITY,
    )
    custom = client.evals.generate_rubrics(
        src=pd.DataFrame(ROWS),
        rubric_group_name=CUSTOM,
        prompt_template="CUSTOM-TEMPLATE Write checks for: {prompt}",
        rubric_type_ontology=["CONTENT", "SOURCING", "TONE"],
    )
    frame = with_rubrics.eval_dataset_df
    generated = [rubric_list(groups[GROUP]) for groups in frame["rubric_groups"]]
    custom_generated = [rubric_list(g[CUSTOM]) for g in custom.eval_dataset_df["rubric_groups"]]
    predefined = client.evals.evaluate(
        dataset=with_rubrics,
        metrics=[types.RubricMetric.GENERAL_QUALITY(rubric_group_name=GROUP)],
    )
    (name,) = {m.metric_name for m in predefined.summary_metrics}
    llm = client.evals.evaluate(
        dataset=custom,
        metrics=[
            types.LLMMetric(
                name="custom_rubric_check",
                prompt_template="CUSTOM-CRITIQUE {prompt} / {response}:\n{rubrics}",
                rubric_group_name=CUSTOM,
            )
        ],
    )
    print(
        json.dumps(
            {
                "generated": generated,
                "custom_generated": custom_generated,
                "metric": name,
                "predefined": cases(predefined, name),
                "llm": cases(llm, "custom_rubric_check"),
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1])
