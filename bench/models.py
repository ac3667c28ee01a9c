"""Section "models": model-backed metrics on CPU, evald's server against the reference packages.

At start-up the section builds, in a temporary models directory, two encoders with seeded random
weights (no downloads): a BERT encoder with a WordPiece vocabulary for ``fmeval/bertscore``, and
a RoBERTa classifier with 16 outputs saved as Detoxify's checkpoint (plus its byte-level BPE
tokenizer, trained here on the bench's texts) for ``fmeval/toxicity``. It starts ``evald serve``
(one server process, a metrics port) on that directory and measures, in alternating rounds:

- "batch 32": waves of 32 single-instance EvaluateInstances calls sent at once (the next wave
  when all 32 are answered), so the model runtime gets 32 items per forward pass (the mean batch
  size is read from the server's ``evald_model_batch_size`` histogram and shown in the note);
  against the reference package's own batched call of 32 items;
- "single-instance calls from 32 concurrent clients": 32 callers each sending one instance per
  call and the next when answered (always 32 in flight; dynamic batching merges them);
  against the same reference batched throughput;
- "batch 1": one caller, sequential single-instance calls; against the reference package
  called with one item per call.

The references run in this process on the same weights: ``bert_score.BERTScorer`` (the model
path and ``num_layers`` evald is given; ``BERTScorer`` is what ``bert_score.score`` builds on
every call, built once here so the figures compare scoring, not loading) and
``detoxify.Detoxify(checkpoint=..., huggingface_config_path=...).predict``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from evald.metrics.named.fmeval.toxicity import DETOXIFY_SCORES
from evald_proto.aiplatform.v1beta1 import evaluation_service_pb2 as messages
from google.protobuf import json_format

from bench import cpu, server
from bench.report import Row, Section
from bench.texts import TextSource

SEED = 5151
BATCH = 32
"""Items per batched call, and callers in flight."""
BERT = "bench/bert"
"""The BERTScore encoder's folder under the models directory."""
DETOXIFY = "unitary/unbiased-toxic-roberta"
"""The toxicity detector's folder: the one ``fmeval/toxicity`` uses by default."""
CHECKPOINT = "toxic_debiased-c7548aa0.ckpt"
DETOXIFY_CLASSES = [*DETOXIFY_SCORES, *(f"identity_{i}" for i in range(9))]
"""Detoxify's unbiased model: 7 scores and 9 identity outputs (16 in all)."""


@dataclass(frozen=True)
class Size:
    """An encoder's shape."""

    layers: int
    hidden: int
    heads: int
    intermediate: int
    vocabulary: int
    num_layers: int
    """The layer BERTScore cuts the encoder at."""

    def describe(self) -> str:
        return (
            f"{self.layers} layers, hidden {self.hidden}, {self.heads} heads, "
            f"FFN {self.intermediate}, vocabulary ~{self.vocabulary:,}"
        )


@dataclass(frozen=True)
class Plan:
    """Budgets of one run."""

    size: Size
    rounds: int
    seconds: float
    """Length of each measurement in a round."""
    pairs: int
    """Distinct pairs (and texts) drawn for the run, cycled through."""
    words: tuple[int, int]
    """Words per text, drawn uniformly in this range."""
    segment_words: tuple[int, int]
    """Words per text of the translation metrics (COMET, MetricX): sentence-sized segments."""


def plan(quick: bool) -> Plan:
    """Tiny models and budgets with ``quick`` (a smoke test), else MiniLM-sized encoders."""
    if quick:
        return Plan(
            Size(2, 32, 2, 64, 2000, 2),
            rounds=1,
            seconds=0.05,
            pairs=64,
            words=(5, 12),
            segment_words=(5, 12),
        )
    return Plan(
        Size(6, 384, 12, 1536, 30522, 6),
        rounds=3,
        seconds=4.0,
        pairs=1024,
        words=(20, 60),
        segment_words=(8, 20),
    )


# Texts and models ----------------------------------------------------------------------------


def texts(count: int, words: tuple[int, int]) -> tuple[TextSource, list[tuple[str, str]]]:
    """``count`` new (reference, prediction) pairs of 20-60 words (in the full run)."""
    source = TextSource(seed=SEED)
    rng = random.Random(SEED)
    return source, [source.pair(rng.randint(*words)) for _ in range(count)]


def _wordpiece(directory: Path, source: TextSource, size: int) -> None:
    """A BERT WordPiece vocabulary: the texts' words, digits and characters (with their ``##``
    forms), filled up with unused tokens to ``size``, as BERT's own."""
    import transformers

    characters = "abcdefghijklmnopqrstuvwxyz0123456789"
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *".,;!?'\"-()"]
    vocab += [*characters, *(f"##{c}" for c in characters)]
    seen = set(vocab)
    for word in source.words:
        if word.lower() not in seen and len(vocab) < size:
            seen.add(word.lower())
            vocab.append(word.lower())
    vocab += [f"[unused{i}]" for i in range(size - len(vocab))]
    (directory / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    tokenizer = transformers.BertTokenizer(vocab=str(directory / "vocab.txt"))
    tokenizer.model_max_length = 512
    tokenizer.save_pretrained(directory)


def build_bert(directory: Path, size: Size, source: TextSource) -> None:
    """The BERTScore encoder: a BERT model with seeded random weights and its tokenizer."""
    import torch
    import transformers

    directory.mkdir(parents=True)
    _wordpiece(directory, source, size.vocabulary)
    config = transformers.BertConfig(
        vocab_size=size.vocabulary,
        hidden_size=size.hidden,
        num_hidden_layers=size.layers,
        num_attention_heads=size.heads,
        intermediate_size=size.intermediate,
        max_position_embeddings=512,
    )
    torch.manual_seed(SEED)
    model = transformers.BertModel(config)
    model.eval()  # type: ignore[no-untyped-call]
    model.save_pretrained(directory)


def build_detoxify(directory: Path, size: Size, corpus: Sequence[str]) -> None:
    """The toxicity detector as Detoxify stores it: a RoBERTa classifier with 16 outputs in
    Detoxify's checkpoint layout, with a transformers config and a byte-level BPE tokenizer
    (trained on ``corpus`` up to the vocabulary size) in the same folder."""
    import tokenizers
    import torch
    import transformers

    directory.mkdir(parents=True)
    trainer = tokenizers.ByteLevelBPETokenizer()
    trainer.train_from_iterator(
        corpus,
        vocab_size=size.vocabulary,
        special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"],
        show_progress=False,
    )
    trainer.save_model(str(directory))
    vocab = json.loads((directory / "vocab.json").read_text(encoding="utf-8"))
    lines = (directory / "merges.txt").read_text(encoding="utf-8").splitlines()
    # (left, right) pairs: what the tokenizer takes, whatever its annotation says.
    merges: Any = [tuple(line.split(" ")) for line in lines if line and not line.startswith("#")]
    tokenizer = transformers.RobertaTokenizer(vocab=vocab, merges=merges, model_max_length=512)
    tokenizer.save_pretrained(directory)
    config = transformers.RobertaConfig(  # type: ignore[call-arg]
        vocab_size=trainer.get_vocab_size(),
        hidden_size=size.hidden,
        num_hidden_layers=size.layers,
        num_attention_heads=size.heads,
        intermediate_size=size.intermediate,
        max_position_embeddings=514,
        num_labels=len(DETOXIFY_CLASSES),
    )
    torch.manual_seed(SEED + 1)
    model = transformers.RobertaForSequenceClassification(config)
    model.eval()  # type: ignore[no-untyped-call]
    config.save_pretrained(directory)
    checkpoint = {
        "config": {
            "arch": {
                "args": {
                    "model_type": str(directory),  # Detoxify reads the base config from here
                    "model_name": "RobertaForSequenceClassification",
                    "tokenizer_name": "RobertaTokenizer",
                    "num_classes": len(DETOXIFY_CLASSES),
                }
            },
            "dataset": {"args": {"classes": DETOXIFY_CLASSES}},
        },
        "state_dict": model.state_dict(),
    }
    torch.save(checkpoint, directory / CHECKPOINT)


COMET_VENV = Path(__file__).resolve().parents[1] / ".venv-bench-comet"
"""Where ``make bench`` installs the COMET reference (unbabel-comet cannot live beside evald)."""
COMET_VERSION = "2.2.7"
COMET_PER_CALL = 256
"""Triples per ``predict`` call of the COMET reference scoring a data set, shown beside the
batched rows: the package sorts a call's triples by length before batching them (less
padding than any 32 calls arriving at a server), and each call builds a Lightning trainer."""
COMET_ESTIMATOR = (1536, 512)
METRICX = "google/metricx-24-hybrid-large-v2p6"
MT5_TOKENIZER = "google/mt5-large"

Triple = tuple[str, str, str]
"""(source, prediction, reference) of a translation."""


def translation_triples(pairs: Sequence[tuple[str, str]]) -> list[Triple]:
    """Each pair's prediction and reference, with the next pair's reference as the source."""
    return [
        (pairs[(i + 1) % len(pairs)][0], prediction, reference)
        for i, (reference, prediction) in enumerate(pairs)
    ]


def _words(source: TextSource, size: int) -> list[str]:
    """Up to ``size`` distinct lower-cased words of the texts."""
    seen: dict[str, None] = {}
    for word in source.words:
        seen.setdefault(word.lower(), None)
        if len(seen) == size:
            break
    return list(seen)


def build_comet(root: Path, size: Size, source: TextSource) -> None:
    """A COMET-22 checkpoint (``Unbabel/wmt22-comet-da``) and its XLM-R encoder, in the layout
    users download, built by the tests' builder at the bench's size."""
    from tests.unit.metrics.computed import tiny_comet

    shape = tiny_comet.Shape(
        hidden=size.hidden,
        layers=size.layers,
        heads=size.heads,
        intermediate=size.intermediate,
        positions=514,
        estimator=COMET_ESTIMATOR,
        words=tuple(_words(source, size.vocabulary - 40)),
    )
    tiny_comet.build(root, "comet22", shape)


def build_metricx(root: Path, size: Size, source: TextSource) -> None:
    """MetricX-24 as its checkpoint is published (an mT5 encoder-decoder whose score is one
    logit) and an mT5-style SentencePiece tokenizer of the texts' words where mT5's is found."""
    import torch
    import transformers

    vocab = [("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0)]
    words = _words(source, size.vocabulary)
    vocab += [(f"\u2581{w}", -2.0 - i / 1000) for i, w in enumerate(words)]
    vocab += [(c, -12.0) for c in "abcdefghijklmnopqrstuvwxyz:.,"]
    tokenizer = transformers.T5Tokenizer(vocab=vocab, extra_ids=100)
    tokenizer.save_pretrained(root / MT5_TOKENIZER)
    config = transformers.MT5Config(
        vocab_size=len(tokenizer),
        d_model=size.hidden,
        d_kv=size.hidden // size.heads,
        d_ff=size.intermediate,
        num_layers=size.layers,
        num_decoder_layers=size.layers,
        num_heads=size.heads,
        decoder_start_token_id=0,
        pad_token_id=0,
        eos_token_id=1,
        tie_word_embeddings=False,
    )
    torch.manual_seed(SEED + 2)
    model = transformers.MT5ForConditionalGeneration(config)
    model.eval()  # type: ignore[no-untyped-call]
    model.save_pretrained(root / METRICX)


# Requests ------------------------------------------------------------------------------------


def bertscore_request(pair: tuple[str, str], root: Path, layers: int) -> bytes:
    """One single-instance ``fmeval/bertscore`` request: the prediction against the reference."""
    reference, prediction = pair
    body = {
        "location": "projects/p/locations/l",
        "metrics": [
            {
                "predefined_metric_spec": {
                    "metric_spec_name": "fmeval/bertscore",
                    "metric_spec_parameters": {"model": str(root / BERT), "num_layers": layers},
                }
            }
        ],
        "instance": {"response": {"text": prediction}, "reference": {"text": reference}},
    }
    return json_format.ParseDict(body, messages.EvaluateInstancesRequest()).SerializeToString()


def toxicity_request(text: str) -> bytes:
    """One single-instance ``fmeval/toxicity`` request (Detoxify, the default detector)."""
    body = {
        "location": "projects/p/locations/l",
        "metrics": [{"predefined_metric_spec": {"metric_spec_name": "fmeval/toxicity"}}],
        "instance": {"response": {"text": text}},
    }
    return json_format.ParseDict(body, messages.EvaluateInstancesRequest()).SerializeToString()


def translation_request(field: str, version: str, triple: Triple) -> bytes:
    """One ``comet_input`` or ``metricx_input`` request (``field``) of ``version``, with the
    source and the reference."""
    source, prediction, reference = triple
    body = {
        "location": "projects/p/locations/l",
        field: {
            "metric_spec": {"version": version},
            "instance": {"source": source, "prediction": prediction, "reference": reference},
        },
    }
    return json_format.ParseDict(body, messages.EvaluateInstancesRequest()).SerializeToString()


def metricx_text(triple: Triple) -> str:
    """MetricX-24's input text for a hybrid (source and reference) triple."""
    source, prediction, reference = triple
    return f"source: {source} candidate: {prediction} reference: {reference}"


# The references ------------------------------------------------------------------------------


def metricx_reference(root: Path) -> Callable[[Sequence[str]], object]:
    """Google's published MetricX-24 scoring on a batch: mT5's tokens without the final </s>,
    padded; one decoder step from token 0; the logit of <extra_id_10>, clipped to 0..25."""
    import torch
    import transformers

    tokenizer = transformers.T5Tokenizer.from_pretrained(root / MT5_TOKENIZER)
    model: Any = transformers.MT5ForConditionalGeneration.from_pretrained(root / METRICX)
    model.eval()
    token = tokenizer.convert_tokens_to_ids("<extra_id_10>")

    def score(texts: Sequence[str]) -> object:
        rows = [tokenizer(text)["input_ids"][:-1] for text in texts]
        width = max(len(row) for row in rows)
        ids = torch.tensor([row + [0] * (width - len(row)) for row in rows])
        mask = torch.tensor([[1] * len(row) + [0] * (width - len(row)) for row in rows])
        with torch.inference_mode():
            logits = model(
                input_ids=ids,
                attention_mask=mask,
                decoder_input_ids=torch.zeros((len(rows), 1), dtype=torch.long),
            ).logits
        return logits[:, 0, token].clamp(0, 25).tolist()

    return score


def comet_python() -> Path | None:
    """The Python of the COMET reference environment, if it is there."""
    named = os.environ.get("EVALD_BENCH_COMET_PYTHON")
    python = Path(named) if named else COMET_VENV / "bin" / "python"
    return python if python.exists() else None


class CometReference:
    """unbabel-comet in its own environment and process (``bench/comet_reference.py``),
    started before the models are built (its imports take seconds), then holding the bench's
    COMET checkpoint loaded between measurements."""

    def __init__(self, python: Path) -> None:
        script = Path(__file__).with_name("comet_reference.py")
        self.triples: list[list[str]] = []
        self.process = subprocess.Popen(
            [str(python), str(script)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={
                **os.environ,
                "HF_HUB_OFFLINE": "1",
                "TRANSFORMERS_OFFLINE": "1",
                "PYTHONWARNINGS": "ignore",  # import-time deprecation notices of its libraries
            },
        )

    def load(self, root: Path, triples: Sequence[Triple]) -> None:
        """Load the COMET checkpoint under ``root``; ``triples`` are what it will score."""
        assert self.process.stdin is not None
        checkpoint = root / "Unbabel/wmt22-comet-da" / "checkpoints" / "model.ckpt"
        self.process.stdin.write(json.dumps({"load": str(checkpoint), "cwd": str(root)}) + "\n")
        self.process.stdin.flush()
        if self._line() != "ready":
            raise RuntimeError("the COMET reference did not start")
        self.triples = [list(triple) for triple in triples]

    def _line(self) -> str:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the COMET reference exited ({self.process.wait()})")
        return line.strip()

    def measure(self, per_call: int, batch: int) -> Measure:
        """``predict`` on ``per_call`` triples at a time, with ``batch_size=batch``."""

        def measure(seconds: float, tally: Tally) -> None:
            assert self.process.stdin is not None
            request = {
                "triples": self.triples,
                "per_call": per_call,
                "batch": batch,
                "seconds": seconds,
            }
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
            answer = json.loads(self._line())
            tally.items += answer["items"]
            tally.seconds += answer["seconds"]
            tally.cpu += answer["cpu"]

        return measure

    def __enter__(self) -> CometReference:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


# The server's side ---------------------------------------------------------------------------


@dataclass
class Tally:
    """Items scored, seconds, CPU seconds and forward passes (with their items) of a case."""

    items: int = 0
    seconds: float = 0.0
    cpu: float = 0.0
    passes: float = 0.0
    batched: float = 0.0
    """Items over all forward passes (the histogram's sum)."""

    @property
    def per_second(self) -> float:
        return self.items / self.seconds if self.seconds else 0.0

    @property
    def cpu_ms(self) -> float:
        return 1000 * self.cpu / self.items if self.items else 0.0

    @property
    def mean_batch(self) -> float:
        return self.batched / self.passes if self.passes else 0.0


def batch_histogram(metrics_port: int) -> tuple[float, float]:
    """``evald_model_batch_size``: forward passes and items, summed over the models."""
    url = f"http://{server.HOST}:{metrics_port}/metrics"
    with urllib.request.urlopen(url, timeout=10) as answer:  # loopback only
        text = answer.read().decode()
    passes = items = 0.0
    for line in text.splitlines():
        if line.startswith("evald_model_batch_size_count"):
            passes += float(line.rsplit(" ", 1)[1])
        elif line.startswith("evald_model_batch_size_sum"):
            items += float(line.rsplit(" ", 1)[1])
    return passes, items


class Caller:
    """Sends single-instance requests to the server over one channel (an asyncio loop)."""

    def __init__(self, port: int, metrics_port: int, server_pid: int) -> None:
        self.port = port
        self.metrics_port = metrics_port
        self.server_pid = server_pid

    async def _run(self, bodies: Sequence[bytes], callers: int, waves: bool, seconds: float) -> int:
        async with grpc.aio.insecure_channel(f"{server.HOST}:{self.port}") as channel:
            call = channel.unary_unary(server.METHOD, None, None)
            sent = 0
            deadline = time.perf_counter() + seconds

            async def one() -> None:
                nonlocal sent
                body = bodies[sent % len(bodies)]
                sent += 1
                await call(body, timeout=120)

            if waves:
                while time.perf_counter() < deadline or sent == 0:
                    await asyncio.gather(*(one() for _ in range(callers)))
            else:

                async def loop() -> None:
                    while time.perf_counter() < deadline:
                        await one()

                await asyncio.gather(*(loop() for _ in range(callers)))
            return sent

    def measure(
        self, bodies: Sequence[bytes], callers: int, waves: bool, seconds: float, tally: Tally
    ) -> None:
        """Send ``bodies`` (cycled) for ``seconds``; add what was scored to ``tally``."""
        processes = cpu.tree(self.server_pid)  # model workers start on their first call
        before = time.perf_counter(), cpu.seconds(processes), batch_histogram(self.metrics_port)
        count = asyncio.run(self._run(bodies, callers, waves, seconds))
        elapsed = time.perf_counter() - before[0]
        passes, items = batch_histogram(self.metrics_port)
        tally.items += count
        tally.seconds += elapsed
        tally.cpu += cpu.seconds(processes) - before[1]
        tally.passes += passes - before[2][0]
        tally.batched += items - before[2][1]


def reference_measure(
    score: Callable[[Sequence[Any]], object],
    items: Sequence[Any],
    batch: int,
    seconds: float,
    tally: Tally,
) -> None:
    """Call ``score`` on ``batch`` items at a time (cycled through ``items``) for ``seconds``."""
    count = 0
    start, used = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds or count == 0:
        offset = count % len(items)
        chunk = [*items[offset : offset + batch]]
        chunk += items[: batch - len(chunk)]
        score(chunk)
        count += batch
    tally.items += count
    tally.seconds += time.perf_counter() - start
    tally.cpu += time.process_time() - used


# The section ---------------------------------------------------------------------------------


def build(root: Path, chosen: Plan, source: TextSource, pairs: Sequence[tuple[str, str]]) -> None:
    """Every model of the section under ``root``."""
    build_bert(root / BERT, chosen.size, source)
    corpus = [text for pair in pairs for text in pair]
    corpus += [" ".join(source.words[i : i + 50]) for i in range(0, len(source.words), 50)]
    build_detoxify(root / DETOXIFY, chosen.size, corpus)
    build_comet(root, chosen.size, source)
    build_metricx(root, chosen.size, source)


@contextlib.contextmanager
def _serving(quick: bool) -> Iterator[tuple[Path, Plan, list[tuple[str, str]], int, int, int]]:
    """A models directory with both models, and ``evald serve`` on it (started while the models
    are built: nothing is loaded before the first call); yields the directory, the plan, the
    pairs, the gRPC port, the metrics port and the server's process id."""
    chosen = plan(quick)
    source, pairs = texts(chosen.pairs, chosen.words)
    with tempfile.TemporaryDirectory(prefix="evald-bench-models-") as folder:
        root = Path(folder)
        failed: list[BaseException] = []

        def build_or_fail() -> None:
            try:
                build(root, chosen, source, pairs)
            except BaseException as exc:  # re-raised in the caller's thread
                failed.append(exc)

        builder = threading.Thread(target=build_or_fail, name="build-models")
        builder.start()
        metrics_port = server.free_port()
        flags = [
            *("--models-dir", str(root), "--metrics-port", str(metrics_port)),
            *("--model-batch-size", str(BATCH)),
        ]
        _progress("building the models, starting evald serve")
        try:
            with server.evald_server(*flags, workers=1) as (port, _, pid):
                builder.join()
                if failed:
                    raise failed[0]
                yield root, chosen, pairs, port, metrics_port, pid
        finally:
            builder.join()


def _progress(message: str) -> None:
    print(f"bench models: {message}", file=sys.stderr, flush=True)


CASES = (
    ("batch 32", BATCH, True),
    (f"single-instance calls from {BATCH} concurrent clients", BATCH, False),
    ("batch 1", 1, False),
)
"""(case, callers, waves): the rows of each metric, in order."""


Measure = Callable[[float, "Tally"], None]
"""Runs a reference for ``seconds`` (0: one call, to warm up) and adds what it did to a tally."""


def in_process(
    score: Callable[[Sequence[Any]], object], items: Sequence[Any], batch: int
) -> Measure:
    """``score`` called in this process on ``batch`` items at a time."""

    def measure(seconds: float, tally: Tally) -> None:
        reference_measure(score, items, batch, seconds, tally)

    return measure


def _rows(
    metric: str,
    unit: str,
    caller: Caller,
    bodies: Sequence[bytes],
    references: tuple[Measure, Measure],
    distinct: int,
    chosen: Plan,
    baseline_names: tuple[str, str],
    aside: tuple[str, Measure] | None = None,
) -> list[Row]:
    """The three cases of one metric; ``references`` measure the batched and the
    one-item-per-call reference, ``baseline_names`` say what each is. ``aside`` is another
    way to call the reference, measured in the same rounds and shown in the batched rows'
    notes."""
    ours = {case: Tally() for case, _, _ in CASES}
    batched, single, other = Tally(), Tally(), Tally()
    # Warm up: the model worker loads on the first call; both sides see every shape once.
    caller.measure(bodies, BATCH, True, 0.0, Tally())
    references[0](0.0, Tally())
    for index in range(chosen.rounds):
        _progress(f"{metric}, round {index + 1} of {chosen.rounds}")
        for case, callers, waves in CASES:
            caller.measure(bodies, callers, waves, chosen.seconds, ours[case])
        references[0](chosen.seconds, batched)
        references[1](chosen.seconds, single)
        if aside is not None:
            aside[1](chosen.seconds, other)
    rows = []
    for case, callers, _ in CASES:
        tally = ours[case]
        base = batched if callers > 1 else single
        note = (
            f"{tally.mean_batch:.1f} items per forward pass ({tally.passes:.0f} passes); "
            f"CPU {tally.cpu_ms:.1f} ms per item (server) vs {base.cpu_ms:.1f} ms (reference)"
        )
        if aside is not None and callers > 1:
            note += f"; {aside[0]}: {other.per_second:,.1f} {unit}, CPU {other.cpu_ms:.1f} ms"
        rows.append(
            Row(
                case=f"{metric}, {case}",
                size=f"{distinct} distinct",
                ours=tally.per_second,
                baseline=base.per_second,
                baseline_name=baseline_names[0] if callers > 1 else baseline_names[1],
                unit=unit,
                note=note,
            )
        )
    return rows


def run(quick: bool) -> Section:
    """Measure BERTScore, Detoxify toxicity, COMET and MetricX through ``evald serve`` against
    their references."""
    section = Section("models", "Model-backed metrics on CPU: evald server vs reference package")
    python = comet_python()
    with contextlib.ExitStack() as stack:
        comet = None if python is None else stack.enter_context(CometReference(python))
        serving = stack.enter_context(_serving(quick))
        _measure(section, serving, comet)
    return section


def _measure(
    section: Section,
    serving: tuple[Path, Plan, list[tuple[str, str]], int, int, int],
    comet: CometReference | None,
) -> None:
    """The section's rows and notes, ``serving`` the models and the server."""
    import bert_score  # type: ignore[import-untyped]
    import detoxify  # type: ignore[import-untyped]
    import torch

    root, chosen, pairs, port, metrics_port, pid = serving
    caller = Caller(port, metrics_port, pid)

    layers = chosen.size.num_layers
    scorer = bert_score.BERTScorer(
        model_type=str(root / BERT), num_layers=layers, batch_size=BATCH, device="cpu"
    )

    def bertscore(chunk: Sequence[tuple[str, str]]) -> object:
        return scorer.score([p for _, p in chunk], [r for r, _ in chunk], batch_size=BATCH)

    name = "bert_score.BERTScorer.score in-process"
    section.rows += _rows(
        "BERTScore",
        "pairs/s",
        caller,
        [bertscore_request(pair, root, layers) for pair in pairs],
        (in_process(bertscore, pairs, BATCH), in_process(bertscore, pairs, 1)),
        len(pairs),
        chosen,
        (f"{name}, batch_size={BATCH}", f"{name}, one pair per call"),
    )

    folder = root / DETOXIFY
    detector = detoxify.Detoxify(
        checkpoint=str(folder / CHECKPOINT), huggingface_config_path=str(folder)
    )
    responses = [prediction for _, prediction in pairs]

    def toxicity(chunk: Sequence[str]) -> object:
        return detector.predict(list(chunk))

    name = "detoxify.Detoxify.predict in-process"
    section.rows += _rows(
        "Toxicity (Detoxify)",
        "texts/s",
        caller,
        [toxicity_request(text) for text in responses],
        (in_process(toxicity, responses, BATCH), in_process(toxicity, responses, 1)),
        len(responses),
        chosen,
        (f"{name}, {BATCH} texts per call", f"{name}, one text per call"),
    )

    triples = translation_triples(texts(chosen.pairs, chosen.segment_words)[1])
    section.rows += _comet_rows(root, caller, triples, chosen, section, comet)

    score = metricx_reference(root)
    inputs = [metricx_text(triple) for triple in triples]
    name = "MetricX-24's forward pass (transformers MT5) in-process"
    section.rows += _rows(
        "MetricX-24",
        "triples/s",
        caller,
        [translation_request("metricx_input", "METRICX_24_SRC_REF", t) for t in triples],
        (in_process(score, inputs, BATCH), in_process(score, inputs, 1)),
        len(triples),
        chosen,
        (f"{name}, batch of {BATCH}", f"{name}, one triple per call"),
    )
    words = f"{chosen.words[0]}-{chosen.words[1]} words"
    segments = f"{chosen.segment_words[0]}-{chosen.segment_words[1]} words per text"
    section.notes += [
        f"Models (seeded random weights, built at start-up): BERTScore encoder BERT "
        f"{chosen.size.describe()} (WordPiece), cut at layer {chosen.size.num_layers}; "
        f"Detoxify RoBERTa classifier, same shape, 16 outputs, byte-level BPE trained on the "
        f"texts, in Detoxify's checkpoint layout; COMET-22's layout (XLM-R encoder of the same "
        f"shape, unigram vocabulary of the texts' words, estimator {COMET_ESTIMATOR}); "
        f"MetricX-24 as an mT5 of the same width ({chosen.size.layers} encoder and decoder "
        f"layers). Texts: {len(pairs)} distinct pairs of {words}; translation triples "
        f"({segments}) take a pair's reference and prediction and the next pair's reference "
        "as the source.",
        f"evald serve --workers 1 --model-batch-size {BATCH} (default wait); the client "
        f"(grpc.aio, one channel) runs in the bench process on the same cores. torch "
        f"{torch.__version__}, {torch.get_num_threads()} threads in-process. "
        f"{chosen.rounds} alternating rounds of {chosen.seconds:g} s per case.",
        "batch 32: waves of 32 single-instance calls sent at once, the next when all are "
        "answered; 32 concurrent clients: 32 callers, each sending its next single-instance "
        "call when answered; batch 1: one caller, sequential calls. Items per forward pass "
        "are from the server's evald_model_batch_size histogram; server CPU is the server's "
        "process tree (its model workers included), reference CPU the reference's process "
        "(with its children).",
        "Targets: batch 32 ratio >= 0.9; 32 concurrent clients >= 0.7 (both against the "
        "reference's batched throughput); batch 1 is shown for latency-bound use.",
    ]


def _comet_rows(
    root: Path,
    caller: Caller,
    triples: Sequence[Triple],
    chosen: Plan,
    section: Section,
    reference: CometReference | None,
) -> list[Row]:
    """COMET against unbabel-comet in its own environment, or a note saying how to get it."""
    if reference is None:
        section.notes.append(
            f"COMET not measured: the reference environment is missing ({COMET_VENV}/bin/python "
            "or EVALD_BENCH_COMET_PYTHON); `make bench` builds it."
        )
        return []
    reference.load(root, triples)
    name = f"unbabel-comet {COMET_VERSION} predict, its own process"
    return _rows(
        "COMET-22",
        "triples/s",
        caller,
        [translation_request("comet_input", "COMET_22_SRC_REF", t) for t in triples],
        (reference.measure(BATCH, BATCH), reference.measure(1, 1)),
        len(triples),
        chosen,
        (f"{name}, {BATCH} triples per call", f"{name}, one triple per call"),
        (
            f"the reference on {COMET_PER_CALL} triples per call (sorted by length)",
            reference.measure(COMET_PER_CALL, BATCH),
        ),
    )
