"""AWS FMEval's named metrics (``fmeval/...``)."""
