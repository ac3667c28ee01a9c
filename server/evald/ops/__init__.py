"""Operating evald: configuration file, authentication, limits, metrics and tracing.

* :mod:`evald.ops.configfile` -- the ``--config evald.toml`` file under ``Settings.load``;
* :mod:`evald.ops.auth` -- API keys / bearer tokens, checked the same way on both transports;
* :mod:`evald.ops.limits` -- per-request size limits and per-key concurrency;
* :mod:`evald.ops.telemetry` -- Prometheus metrics and the ``--metrics-port`` endpoint;
* :mod:`evald.ops.tracing` -- optional OpenTelemetry spans (a no-op without the SDK);
* :mod:`evald.ops.interceptor` -- the gRPC server interceptor that applies auth and limits.

Nothing here is imported by ``evald.ops`` itself, so each part costs only what it is used for.
"""
