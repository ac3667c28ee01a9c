"""NeMo Evaluator's REST API: configs, targets, jobs and live evaluation."""
