"""Runs: one read model over every evaluation evald holds, for the web UI and its JSON API.

A run is a Vertex ``EvaluateDataset`` job or a NeMo evaluation job (both in the job store), or
an imported ``evald evaluate --output`` directory (:mod:`evald.runs.imports`). Each becomes a
list of :class:`evald.runs.model.Row` from which :mod:`evald.runs.stats` computes summaries,
histograms, category breakdowns, error groups and comparisons; :mod:`evald.runs.routes` serves
them under ``/v1/evald/runs``.
"""
