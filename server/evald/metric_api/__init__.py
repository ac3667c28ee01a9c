"""The Metric API of EvaluateInstances: ``metrics`` / ``metric_sources`` with one ``instance``.

- :mod:`.dispatch`: :class:`~.dispatch.MetricApi`, per-metric results and errors.
- :mod:`.instance`: the EvaluationInstance as texts, other data and JSON.
- One module per spec kind: :mod:`.computed`, :mod:`.predefined`, :mod:`.custom_code`,
  :mod:`.llm_based`.
"""
