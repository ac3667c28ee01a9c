# syntax=docker/dockerfile:1
# evald: a slim, non-root image. Build: docker build -t evald:0.1.0 .
# Run:   docker run -p 127.0.0.1:50051:50051 -p 127.0.0.1:8080:8080 -p 127.0.0.1:9090:9090 evald:0.1.0

# --- build stage: install evald and its dependencies into a self-contained virtualenv --------
FROM python:3.12-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python -m venv /opt/evald
WORKDIR /src
COPY pyproject.toml README.md ./
COPY server ./server
COPY client ./client
COPY protos ./protos
# Three distributions, named together so that evald's evald-proto and evald-client requirements
# are the local ones; prometheus-client serves --metrics-port; [postgres] lets replicas share a
# PostgreSQL database (database_url).
RUN /opt/evald/bin/pip install ./protos ./client ".[postgres]" "prometheus-client>=0.20,<1"

# --- runtime stage: the virtualenv only, no compilers, no pip cache ---------------------------
FROM python:3.12-slim
# WordNet 3.0's database (METEOR's synonyms), from Debian.
RUN apt-get update -qq \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wordnet-base \
    && rm -rf /var/lib/apt/lists/*
RUN groupadd --system --gid 10001 evald \
    && useradd --system --uid 10001 --gid evald --no-create-home --shell /usr/sbin/nologin evald \
    && mkdir -p /var/lib/evald /var/cache/evald \
    && chown evald:evald /var/lib/evald /var/cache/evald
COPY --from=build /opt/evald /opt/evald
COPY deploy/evald.toml /etc/evald/evald.toml
ENV PATH=/opt/evald/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    XDG_CACHE_HOME=/var/cache \
    EVALD_HOST=0.0.0.0 \
    EVALD_DATA_DIR=/var/lib/evald
USER 10001:10001
EXPOSE 50051 8080 9090
# The gRPC health service (open without a key by default, like the Kubernetes grpc probe).
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import sys, grpc; from grpc_health.v1 import health_pb2 as h, health_pb2_grpc as g; s = g.HealthStub(grpc.insecure_channel('127.0.0.1:50051')).Check(h.HealthCheckRequest(), timeout=4).status; sys.exit(0 if s == h.HealthCheckResponse.SERVING else 1)"]
ENTRYPOINT ["evald", "serve"]
# Without a keys file the server runs open: the default command serves HTTP and metrics only.
CMD ["--http-port", "8080", "--metrics-port", "9090"]
