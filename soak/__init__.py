"""``make soak``: a bounded load run against a real evald process on loopback.

Mixes computed metrics (exact match, BLEU, ROUGE, tool calls) with judge metrics answered by
the local fake judge (``tests.fakes.judge_server``), over gRPC and HTTP, for a fixed duration.
Passes when no request fails and the server's RSS, after warm-up, stays within a margin.
"""
