"""NeMo Evaluator's named metrics (``nemo/...``; ``nemo/rouge`` is served by the ``rouge``
metric, :mod:`evald.metrics.computed.rouge`)."""
