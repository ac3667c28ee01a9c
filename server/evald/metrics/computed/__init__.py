"""Metrics computed locally: exact match, BLEU, ROUGE, tool calls, trajectories, custom code."""
