"""Records the reference package's COMET scores of the tiny checkpoints (``tiny_comet.py``)
into ``comet_cases.json``. Runs in an environment with unbabel-comet (which evald's cannot
hold), from the repository root::

    python tests/unit/metrics/computed/make_comet_cases.py [OUT.json]

(``make bench`` builds such an environment: ``.venv-bench-comet``.) Without OUT it rewrites
``comet_cases.json``; the tests run it with OUT to check that file against the package live.

The package loads the checkpoint with its own loader, strictly (every parameter present and
used), and scores the triples in batches of 4.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[3]))  # the repository root: the tests package

from comet import load_from_checkpoint  # type: ignore[import-not-found]  # noqa: E402

from tests.unit.metrics.computed import tiny_comet  # noqa: E402

TRIPLES = [
    ("the cat sat on the mat", "le chat est sur le tapis", "le chat est sur le tapis"),
    ("the cat sat on the mat", "le chien est sur le tapis", "le chat est sur le tapis"),
    ("the dog is not a cat", "der chien ist", "le chien est un chat"),
    ("a", "", "un"),
    ("", "le chat", ""),
    ("the cat", "le chat \u00e9tait l\u00e0 !", "le chat"),  # letters outside the vocabulary
    ("the cat sat on the mat " * 6, "le chat est sur le tapis " * 6, "le chat " * 9),  # truncated
    ("Der Hund", "THE DOG", "the dog"),
]


def main() -> None:
    cases: dict[str, object] = {
        "reference": f"unbabel-comet {metadata.version('unbabel-comet')}",
        "torch": metadata.version("torch"),
        "transformers": metadata.version("transformers"),
        "variants": {},
    }
    with tempfile.TemporaryDirectory() as models:
        os.chdir(models)  # the package finds the encoder by hparams' pretrained_model
        for variant in tiny_comet.VARIANTS:
            folder = tiny_comet.build(Path(models), variant)
            model = load_from_checkpoint(
                str(folder / "checkpoints" / "model.ckpt"), strict=True, local_files_only=True
            )
            data = [{"src": s, "mt": m, "ref": r} for s, m, r in TRIPLES]
            scores = model.predict(data, batch_size=4, gpus=0, progress_bar=False).scores
            cases["variants"][variant] = [  # type: ignore[index]
                {"source": s, "prediction": m, "reference": r, "score": score}
                for (s, m, r), score in zip(TRIPLES, scores, strict=True)
            ]
    out = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else HERE / "comet_cases.json"
    out.write_text(json.dumps(cases, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(out)


if __name__ == "__main__":
    main()
