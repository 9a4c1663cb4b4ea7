# disdf: every target sets up what it needs. A fresh machine needs only Python 3.10+ and pip.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# The shared data folder beside the checkout, unless the caller set one.
DISDF_DATA_DIR ?= $(if $(wildcard ../shared/data),$(abspath ../shared/data),)
export DISDF_DATA_DIR
PYTEST_WORKERS ?= 2

.PHONY: install test lint format bench reproduce clean

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

test: install
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) -ra

lint: install
	$(BIN)/ruff check disdf tests scripts
	$(BIN)/ruff format --check disdf tests scripts

format: install
	$(BIN)/ruff format disdf tests scripts
	$(BIN)/ruff check --fix disdf tests scripts

bench: install
	$(BIN)/python scripts/bench_solvers.py

reproduce: install
	@echo "make reproduce: the paper's tables are not wired up yet (issue #3, the experiment runner)." >&2
	@exit 2

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache *.egg-info
