"""Named metrics (``predefined_metric_spec.metric_spec_name``) by whose names they are: the Vertex
SDKs' (``vertex``), NeMo Evaluator's (``nemo``) and AWS FMEval's (``fmeval``)."""
