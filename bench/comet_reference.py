"""The COMET reference for the "models" section: unbabel-comet, in its own environment.

unbabel-comet cannot be installed beside evald (it needs transformers 4 and huggingface_hub
below 1.0), so ``make bench`` installs it in ``.venv-bench-comet`` and the section runs this
script there. It imports nothing of evald's or the bench's: only the package under test.

Usage: ``python bench/comet_reference.py``. It imports the package at once (seconds: started
early, that overlaps the building of the models), then reads one JSON line per request on
stdin. The first names the checkpoint and the models directory (the package finds the encoder
there, by the ``pretrained_model`` of ``hparams.yaml``); it loads it and prints ``ready``::

    {"load": "/models/Unbabel/wmt22-comet-da/checkpoints/model.ckpt", "cwd": "/models"}

Each next one is answered with one JSON line::

    {"triples": [[src, mt, ref], ...], "per_call": 256, "batch": 32, "seconds": 4.0}
    -> {"items": N, "seconds": S, "cpu": C}

calling ``model.predict(..., batch_size=batch)`` on ``per_call`` triples at a time (cycled
through ``triples``) for ``seconds``: the package's own batched scoring, as a user calls it.
CPU counts this process and its children (the data loader's worker processes, if any).
"""

from __future__ import annotations

import json
import logging
import os
import resource
import sys
import time
import warnings


def _cpu() -> float:
    own = time.process_time()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own + children.ru_utime + children.ru_stime


def main() -> None:
    from comet import load_from_checkpoint  # type: ignore[import-not-found]

    logging.disable(logging.WARNING)  # Lightning's per-call banners
    warnings.filterwarnings("ignore")  # and its deprecation notices, on every call
    load = json.loads(sys.stdin.readline())
    os.chdir(load["cwd"])
    model = load_from_checkpoint(load["load"], strict=True, local_files_only=True)
    print("ready", flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        triples, per_call = request["triples"], request["per_call"]
        count = 0
        start, used = time.perf_counter(), _cpu()
        while time.perf_counter() - start < request["seconds"] or count == 0:
            offset = count % len(triples)
            chunk = [*triples[offset : offset + per_call]]
            chunk += triples[: per_call - len(chunk)]
            data = [{"src": s, "mt": m, "ref": r} for s, m, r in chunk]
            model.predict(data, batch_size=request["batch"], gpus=0, progress_bar=False)
            count += per_call
        answer = {"items": count, "seconds": time.perf_counter() - start, "cpu": _cpu() - used}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
