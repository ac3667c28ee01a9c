"""Model-backed metrics' models: found offline in a models directory, loaded once per model in
a worker process, fed in dynamic batches (:mod:`evald.models.base`)."""
