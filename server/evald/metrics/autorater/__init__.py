"""Judge-backed ("autorater") metrics: an LLM judge reads the instance and gives a verdict.

- :mod:`.custom`: ``pointwise_metric_input`` / ``pairwise_metric_input`` (caller's template).
- :mod:`.predefined`: the 14 predefined metrics (fluency, safety, ...) with evald's templates.
- :mod:`.engine`: autorater config, sampling and flipping; :mod:`.verdicts`: scales and parsing.
"""
