# evald developer commands. `make serve` and `make test` are all a fresh clone needs.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
ARGS ?=

.PHONY: install dev serve test test-quick docs lint format proto proto-sync proto-check bench soak check clean screenshots

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Debian's WordNet 3.0 database (METEOR's synonyms), installed when this runs as root on Debian;
# elsewhere install it yourself (`apt-get install wordnet-base`) or METEOR answers
# FAILED_PRECONDITION.
$(VENV)/.system: | $(BIN)/python
	@if [ ! -f /usr/share/wordnet/data.noun ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wordnet-base >/dev/null; \
	fi
	touch $@

# Three distributions from one tree: evald-proto (protos/), evald-client (client/) and evald (.).
# Named together in one pip command, the local ones satisfy evald's `evald-client==` and
# `evald-proto==` requirements; pip never looks them up on an index.
LOCAL_PACKAGES := -e ./protos -e ./client
PYPROJECTS := pyproject.toml client/pyproject.toml protos/pyproject.toml

$(VENV)/.installed: $(PYPROJECTS) | $(BIN)/python $(VENV)/.system
	$(BIN)/python -m pip install --quiet $(LOCAL_PACKAGES) -e .
	touch $@

$(VENV)/.installed-dev: $(PYPROJECTS) | $(BIN)/python $(VENV)/.system
	$(BIN)/python -m pip install --quiet $(LOCAL_PACKAGES) -e ".[dev]"
	touch $@ $(VENV)/.installed

install: $(VENV)/.installed  ## runtime install into .venv

dev: $(VENV)/.installed-dev  ## runtime + test/lint tools into .venv

# The HTTP gateway on 8080 too: the web UI at http://127.0.0.1:8080/ui/ (SERVE_ARGS= for gRPC only).
SERVE_ARGS ?= --http-port 8080

serve: install  ## run the server: gRPC on 127.0.0.1:50051, HTTP + web UI on :8080 (ARGS="..." to add flags)
	$(BIN)/evald serve $(SERVE_ARGS) $(ARGS)

# Most tests wait (servers starting, subprocesses, judge timeouts) rather than compute, so more
# workers than cores finish sooner. Whole files go to one worker (loadfile): a module's server
# fixture then starts once, not once per worker. Files go out in collection order, which
# tests/conftest.py begins with the slow ones, so that no long file is left to run alone at the
# end. `make test TEST_WORKERS=0` runs in one process.
TEST_WORKERS ?= 4
PYTEST_PARALLEL = -n $(TEST_WORKERS) $(if $(filter 0,$(TEST_WORKERS)),,--dist loadfile --no-loadscope-reorder)

# Tests that start a Ray cluster run alone after the rest (they take both cores while the
# cluster starts). Exit status 5 is pytest's "no test selected" (ARGS chose none of them); an
# ARGS with its own -m selects everything in the first run.
test: dev  ## the whole test suite, in parallel (TEST_WORKERS=4), then the Ray cluster tests
	$(BIN)/python -m pytest $(PYTEST_PARALLEL) -m "not cluster" $(ARGS)
	$(if $(findstring -m ,$(ARGS)),,$(BIN)/python -m pytest -m cluster $(ARGS) || [ $$? -eq 5 ])

test-quick: dev  ## the suite without slow, official-client and Ray cluster tests (under a minute)
	$(BIN)/python -m pytest -m "not slow and not official and not cluster" $(PYTEST_PARALLEL) $(ARGS)

screenshots: dev  ## refresh docs/img/ui/*.png from the web UI's browser tests (needs /usr/bin/chromium)
	EVALD_UPDATE_SCREENSHOTS=1 $(BIN)/python -m pytest -q tests/browser

lint: dev  ## ruff (lint + format check) and mypy
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

format: dev
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

proto: dev  ## regenerate protos/evald_proto/*_pb2*.py from the .proto files
	$(BIN)/python protos/compile.py

proto-sync: dev  ## rewrite the .proto files from the official SDK descriptors, then compile
	$(BIN)/python protos/protogen.py
	$(BIN)/python protos/compile.py

proto-check: proto  ## fail if the committed generated code is stale
	git diff --exit-code -- protos/

# The COMET reference (unbabel-comet) needs transformers 4 and huggingface_hub < 1, which evald's
# environment cannot hold: the bench runs it in an environment of its own (about 1.4 GB;
# setuptools < 81 because torchmetrics still imports pkg_resources).
COMET_VENV := .venv-bench-comet
$(COMET_VENV)/.installed:
	$(PYTHON) -m venv $(COMET_VENV)
	$(COMET_VENV)/bin/python -m pip install --quiet "torch==2.13.0" "unbabel-comet==2.2.7" "setuptools<81"
	touch $@

bench: dev $(COMET_VENV)/.installed  ## performance benchmark (Markdown + JSON report)
	$(BIN)/python -m bench $(ARGS)

soak: dev  ## bounded load on loopback, zero errors and flat RSS (ARGS="--duration 60" to shorten)
	$(BIN)/python -m soak $(ARGS)

docs: dev  ## build the documentation site into site/ (strict: a broken link fails)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

# CI also builds the COMET reference environment: the COMET identity test checks its recorded
# cases against the package live there.
check: lint proto-check docs $(COMET_VENV)/.installed test  ## everything CI runs

clean:
	rm -rf $(VENV) $(COMET_VENV) site .pytest_cache .mypy_cache .ruff_cache .hypothesis
