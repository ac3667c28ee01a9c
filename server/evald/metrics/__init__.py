"""Metric handlers: one module per metric family; see ``base`` and ``registry``."""
