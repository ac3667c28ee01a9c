"""The bare gRPC servers the benchmark compares evald with.

The same stack as evald (``grpc.aio`` server, a generic handler taking and returning raw bytes,
the same channel options), and no evald: ``echo`` does no work (every call gets the same
ready-made ``EvaluateInstancesResponse``, one exact-match score); ``bleu`` and ``rouge`` parse
the request and score its instances with evald's kernel on the event loop, as the benchmark's
batches ask (BLEU with effective order, ROUGE-L with the stemmer), the least any server must
do to answer them. Run ``python -m bench.echo PORT CORE [WORK]`` (CORE ``-`` for no pinning,
WORK ``echo`` by default); it listens with SO_REUSEPORT so several share a port, as evald's
workers do, and prints ``ready`` once it listens; SIGTERM stops it.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Callable
from typing import Any

import grpc
from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as messages

METHOD = "EvaluateInstances"
SERVICE = "google.cloud.aiplatform.v1beta1.EvaluationService"

RESPONSE = messages.EvaluateInstancesResponse(
    exact_match_results=messages.ExactMatchResults(
        exact_match_metric_values=[messages.ExactMatchMetricValue(score=1.0)]
    )
).SerializeToString()


def kernel(work: str) -> Callable[[bytes], bytes]:
    """The request body -> response body of ``work`` (``echo``, ``bleu`` or ``rouge``)."""
    if work == "echo":
        return lambda raw: RESPONSE
    # Imported only here: the kernels bring nltk (~2.5 s), which a plain echo does not need.
    from evald.kernels import Rouge, sentence_bleu

    scorer = Rouge(["rougeL"], use_stemmer=True)

    def scored(raw: bytes) -> bytes:
        request = messages.EvaluateInstancesRequest.FromString(raw)
        response = messages.EvaluateInstancesResponse()
        if work == "bleu":
            bleu = response.bleu_results.bleu_metric_values
            for pair in request.bleu_input.instances:
                score = sentence_bleu(pair.prediction, pair.reference, effective_order=True)
                bleu.add(score=score / 100)
        else:
            rouge = response.rouge_results.rouge_metric_values
            for instance in request.rouge_input.instances:
                scores = scorer.score(instance.reference, instance.prediction)
                rouge.add(score=scores["rougeL"].fmeasure)
        return response.SerializeToString()

    return scored


async def serve(port: int, work: str = "echo") -> None:
    """Serve ``work`` (see :func:`kernel`) on 127.0.0.1:``port`` until SIGTERM or SIGINT."""
    answer = kernel(work)
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", 64 * 1024 * 1024),
            ("grpc.max_send_message_length", 64 * 1024 * 1024),
            ("grpc.so_reuseport", 1),
        ]
    )

    async def echo(raw: bytes, context: Any) -> bytes:
        return answer(raw)

    handler = grpc.unary_unary_rpc_method_handler(
        echo, request_deserializer=None, response_serializer=None
    )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(SERVICE, {METHOD: handler}),)
    )
    if server.add_insecure_port(f"127.0.0.1:{port}") == 0:
        raise OSError(f"echo cannot listen on 127.0.0.1:{port}")
    await server.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    print("ready", flush=True)
    await stop.wait()
    await server.stop(1)


def main(argv: list[str]) -> int:
    """``PORT CORE [WORK]``: listen on PORT, pinned to CORE (``-``: not pinned)."""
    port, core = int(argv[0]), argv[1]
    work = argv[2] if len(argv) > 2 else "echo"
    if work not in ("echo", "bleu", "rouge"):
        raise SystemExit(f"unknown work {work!r}: echo, bleu or rouge")
    if core != "-":
        os.sched_setaffinity(0, {int(core)})
    asyncio.run(serve(port, work))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
