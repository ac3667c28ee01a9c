"""Text helpers shared by the reference-based text metrics (sentence splitting for ROUGE)."""
