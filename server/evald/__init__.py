"""evald: a self-hostable evaluation server wire-compatible with Vertex AI EvaluationService."""

__version__ = "0.1.0"
