"""Fast scoring kernels: pure functions, no gRPC, score for score equal to reference libraries.

* :mod:`evald.kernels.rouge`: ROUGE-N, ROUGE-L, ROUGE-Lsum as ``rouge-score``'s ``RougeScorer``;
* :mod:`evald.kernels.bleu`: sentence and corpus BLEU as ``sacrebleu`` (13a, exp smoothing).

"Equal" means the same floats, compared with ``==``; ``tests/unit/kernels`` checks it against
the reference libraries on thousands of generated pairs.
"""

from evald.kernels.bleu import corpus_bleu, sentence_bleu
from evald.kernels.rouge import ROUGE_TYPES, Rouge, Score, SentenceSplitter

__all__ = ["ROUGE_TYPES", "Rouge", "Score", "SentenceSplitter", "corpus_bleu", "sentence_bleu"]
