"""Text helpers the metrics share: sentence splitting (ROUGE), SQuAD answer normalisation,
Jinja templates of the NeMo metrics."""
