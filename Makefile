# disdf: every target sets up what it needs. A fresh machine needs only Python 3.10+ and pip.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# The shared data folder beside the checkout, unless the caller set one.
DISDF_DATA_DIR ?= $(if $(wildcard ../shared/data),$(abspath ../shared/data),)
export DISDF_DATA_DIR
PYTEST_WORKERS ?= 2

.PHONY: install test lint format bench soak engine-equivalence reproduce reproduce-fast reproduce-quick mnist-full tables figures clean

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

test: install
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) -ra

lint: install
	$(BIN)/ruff check disdf experiments tests scripts
	$(BIN)/ruff format --check disdf experiments tests scripts

format: install
	$(BIN)/ruff format disdf experiments tests scripts
	$(BIN)/ruff check --fix disdf experiments tests scripts

bench: install
	$(BIN)/python scripts/bench_solvers.py
	$(BIN)/python scripts/bench_engine.py
	$(BIN)/python scripts/solver_tolerance.py

# Kill a sweep with SIGKILL 50 times, resuming each time: counts of units lost and duplicated (about 3 min).
soak: install
	$(BIN)/python scripts/soak_resume.py --kills 50

# Is engine=fast the same learner as scikit-learn's forests? Same splits under both, then a paired comparison.
engine-equivalence: install
	$(BIN)/python -m experiments.run experiment=engine_equivalence model.engine=sklearn
	$(BIN)/python -m experiments.run experiment=engine_equivalence model.engine=fast
	$(BIN)/python scripts/compare_engines.py

# The paper's protocol: four tables, 100 repetitions (resumes where a previous run stopped).
# scikit-learn's forests: the compiled engine meets the equivalence criterion in 14 of 16 cells, not all.
reproduce: install
	$(BIN)/python -m experiments.run experiment=paper
	$(MAKE) figures RESULTS=results

# The same protocol with the compiled forest engine (49 min on 2 cores), under results/fast/.
reproduce-fast: install
	$(BIN)/python -m experiments.run experiment=paper_fast
	$(MAKE) figures RESULTS=results/fast

# The whole pipeline on all four datasets in minutes, under results/quick/.
reproduce-quick: install
	$(BIN)/python -m experiments.run experiment=quick
	$(MAKE) figures RESULTS=results/quick

# gcForest and DisDF on all 60,000 MNIST training images (T = 100): results/mnist_full.csv + REPORT.md.
mnist-full: install
	$(BIN)/python scripts/mnist_full.py experiment=mnist_full

RESULTS ?= results
EXPERIMENT ?= paper
tables: install
	$(BIN)/python -m experiments.tables experiment=$(EXPERIMENT)

figures: install
	$(BIN)/python scripts/plot_accuracy_vs_T.py --results $(RESULTS)
	$(BIN)/python scripts/plot_ours_vs_paper.py --results $(RESULTS)
	$(BIN)/python scripts/plot_difference_heatmap.py --results $(RESULTS)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache *.egg-info
