# evald developer commands. `make serve` and `make test` are all a fresh clone needs.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
ARGS ?=

.PHONY: install dev serve test test-quick docs lint format proto proto-sync proto-check bench soak check clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $@ $(VENV)/.installed

install: $(VENV)/.installed  ## runtime install into .venv

dev: $(VENV)/.installed-dev  ## runtime + test/lint tools into .venv

serve: install  ## run the gRPC server on 127.0.0.1:50051 (ARGS="--port 0 ..." to change)
	$(BIN)/evald serve $(ARGS)

# Most tests wait (servers, subprocesses, scripted judges) rather than compute: four workers
# keep two cores busy.
TEST_WORKERS ?= 4

test: dev  ## the whole test suite, in parallel
	$(BIN)/python -m pytest -n $(TEST_WORKERS) $(ARGS)

test-quick: dev  ## the inner loop: everything but slow and official-client tests
	$(BIN)/python -m pytest -n $(TEST_WORKERS) -m "not slow and not official" $(ARGS)

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

bench: dev  ## performance benchmark (Markdown + JSON report)
	$(BIN)/python -m bench $(ARGS)

soak: dev  ## bounded load on loopback, zero errors and flat RSS (ARGS="--duration 60" to shorten)
	$(BIN)/python -m soak $(ARGS)

docs: dev  ## build the documentation site into site/ (strict: a broken link fails)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

check: lint proto-check docs test  ## everything CI runs

clean:
	rm -rf $(VENV) site .pytest_cache .mypy_cache .ruff_cache .hypothesis
