# The two commands of the README: `make serve` and `make test`. Each builds .venv itself.
PYTHON ?= python3
# Test workers (pytest-xdist), each with a PostgreSQL of its own. On 2 cores under load (avg 6-12) the suite took
# 289 s with 2 workers, 152 s with 3, 131 s with 4 (-n auto means 2 here). --dist loadfile: a module runs on one
# worker in order (the browser tests share one page per module), except the few slow modules tests/work_order.py spreads
# test by test; --no-loadscope-reorder: work is handed out in the order tests/work_order.py gives (slowest first).
TEST_WORKERS ?= 4
VENV := .venv
BIN := $(VENV)/bin

.PHONY: serve test lint install install-dev web web-deps chromium

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

# The browser tests drive Debian's chromium package: installed here when missing and we may (root + apt-get).
chromium:
	@test -x /usr/bin/chromium || command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; \
	  else \
	    echo "make test needs the Debian package 'chromium' for the browser tests: apt-get install chromium" >&2; exit 1; \
	  fi; }

# Rebuilds the web UI bundle into houndgraph/ui/static (committed: `make serve` needs no Node).
# The UI's wire types are generated from the service's OpenAPI document (web/openapi.json) during the build.
web: install
	$(BIN)/houndgraph openapi > web/openapi.json
	cd web && npm ci --no-audit --no-fund && npm run build

# The browser tests inject axe-core (an npm package) from web/node_modules: installed when missing.
web-deps:
	@test -f web/node_modules/axe-core/axe.min.js || { cd web && npm ci --no-audit --no-fund; }

# Bytecode caches (__pycache__, ignored by git) are written even where the environment sets PYTHONDONTWRITEBYTECODE:
# the suite starts about a hundred Python processes (test workers, `houndgraph serve`, its readers), and without them
# each compiled every module of houndgraph again, and pytest rewrote every test module again in each worker.
test: install-dev chromium web-deps
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/mypy
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder --durations=10 $(PYTEST_ARGS)
