"""Metrics an LLM judge scores: the caller's templates (pointwise, pairwise, LLM-based specs),
rubric-based instruction following, and the judge metrics evald defines (fluency, safety, ...)."""
