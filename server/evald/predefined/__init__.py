"""Named metrics for ``predefined_metric_spec``: the NeMo Evaluator and AWS FMEval families
(and judge-backed ones when a judge is configured). One module per family or metric."""
