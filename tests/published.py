"""The Vertex SDK's published metric prompt templates, as the installed SDK hands them out
(``MetricPromptTemplateExamples.get_prompt_template``), for comparing evald's ``vertex-sdk``
prompt set against. Read in a subprocess: the SDK's protos clash with evald's in one process.
No template text is written in the tests themselves.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys

SDK_NAMES = {
    # evald's metric input -> MetricPromptTemplateExamples name of its published analogue
    "fluency_input": "fluency",
    "coherence_input": "coherence",
    "safety_input": "safety",
    "groundedness_input": "groundedness",
    "fulfillment_input": "instruction_following",
    "summarization_quality_input": "summarization_quality",
    "summarization_verbosity_input": "verbosity",
    "question_answering_quality_input": "question_answering_quality",
    "pairwise_summarization_quality_input": "pairwise_summarization_quality",
    "pairwise_question_answering_quality_input": "pairwise_question_answering_quality",
}

_READ = """
import json, sys
from vertexai.evaluation import MetricPromptTemplateExamples as examples
names = json.loads(sys.argv[1])
print(json.dumps({k: examples.get_prompt_template(v) for k, v in names.items()}))
"""


@functools.cache
def sdk_templates() -> dict[str, str]:
    """Each metric input of :data:`SDK_NAMES` -> the installed SDK's template of its analogue."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}
    done = subprocess.run(
        [sys.executable, "-c", _READ, json.dumps(SDK_NAMES)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env=env,
    )
    templates: dict[str, str] = json.loads(done.stdout)
    return templates
