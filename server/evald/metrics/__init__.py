"""Every metric evald serves, one module per metric.

:mod:`.base` says what a metric declares (the API entry points it serves) and
:mod:`.catalog` finds them all. Metrics live by kind: :mod:`.computed` (scored locally),
:mod:`.judged` (scored by an LLM judge) and :mod:`.named` (asked for by name, per family);
:mod:`.text` and :mod:`.tool_calls` hold helpers they share.
"""
