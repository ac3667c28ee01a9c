"""The judging library: what judge-backed metrics share, apart from the judge backends.

- :mod:`~evald.judging.templates`: filling prompt templates from instance fields.
- :mod:`~evald.judging.transcript`: the instance's texts, contents and agent traces as prompt
  sections.
- :mod:`~evald.judging.verdicts`: reading scores and choices from a judge's answer; scales.
- :mod:`~evald.judging.rubrics`: generating rubrics, critiquing a response against them.
- :mod:`~evald.judging.engine`: sampling, flipping and combining a judge's answers, through the
  request's :class:`evald.call.Call`.

The judges themselves (configuration, backends, retries, cache) are :mod:`evald.judges`.
"""
