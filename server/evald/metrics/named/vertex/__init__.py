"""The judge-backed named metrics of the newer Vertex SDKs (``general_quality_v1``, ...)."""
