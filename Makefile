# The two commands of the README: `make serve` and `make test`. Each builds .venv itself.
PYTHON ?= python3
# Test workers (pytest-xdist), each with a PostgreSQL of its own. On 2 cores under load (avg 6-12) the suite took
# 289 s with 2 workers, 152 s with 3, 131 s with 4 (-n auto means 2 here).
TEST_WORKERS ?= 4
VENV := .venv
BIN := $(VENV)/bin

.PHONY: serve test lint install install-dev

$(BIN)/python:
	$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "houndgraph needs Python 3.11 or newer")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(VENV)/.installed $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

serve: install
	$(BIN)/houndgraph serve

test: install-dev
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/mypy
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --durations=10 $(PYTEST_ARGS)
