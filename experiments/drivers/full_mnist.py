"""gcForest and DisDF on the whole MNIST training set: test accuracy, wall time, peak memory.

Run by ``python scripts/tools/mnist_full.py experiment=mnist_full``. Each method is
fitted in a fresh process, so its peak resident memory (``ru_maxrss``) is its
own: the images, the cascade and every transient array of the fit, nothing of
the other method. Both use the same seed, so their level-1 trees are the same
trees; later levels see different class vectors and differ. DisDF's weights
come from a pair-sampling solver (the exact ones would need Q for 2 x 10^8
different-class pairs per fold model).

Writes ``<output_dir>/mnist_full.csv`` (one row per method, rewritten after
each method so a failure keeps what finished) and the section
section of ``<output_dir>/REPORT.md`` (:mod:`experiments.reporting.sections.mnist_full`).

The committed files (results/mnist_full.csv, results/mnist_full_history.csv and
REPORT.md's section) are written only by the committed settings
(:func:`check_committed_folder`); any other run, such as a slice, writes
build/mnist_full/ unless its command chose a folder (:func:`run_output_dir`).
"""

from __future__ import annotations

import logging
import os
import platform
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from joblib import effective_n_jobs
from omegaconf import DictConfig
from scipy import stats

import disdf
from disdf.datasets import MNIST_SHAPES, mnist_files, read_idx
from disdf.utils import peak_memory_gib, replaced_atomically
from experiments.analysis.plan import CONFIDENCE
from experiments.analysis.statistics import mcnemar_exact
from experiments.paths import ROOT
from experiments.reporting.section import ReportContext
from experiments.running.composition import compose_config, estimator_specs
from experiments.running.config import as_dict
from experiments.running.protocol import Unit
from experiments.running.unit import make_estimator, weight_solver_seconds
from experiments.safety.durable import check_writable
from experiments.safety.guards import writes_headline
from experiments.safety.provenance import measurement_stamp

log = logging.getLogger(__name__)

MNIST_TRAIN, MNIST_TEST = 60_000, 10_000
CSV_NAME = "mnist_full.csv"
#: Every run's rows, each with the commit it ran: what the speed section compares over time.
HISTORY_NAME = "mnist_full_history.csv"
#: The run whose rows and REPORT section are committed in results/.
COMMITTED_EXPERIMENT = "mnist_full"
#: Where any other run (a slice, a smoke run) writes unless its command chose a folder.
OTHER_RUNS_DIR = "build/mnist_full"


def check_settings(cfg: DictConfig) -> None:
    """Refuse sizes MNIST cannot give before any process starts."""
    settings = cfg.full_mnist
    for name, value, limit in (
        ("n_train", settings.n_train, MNIST_TRAIN),
        ("n_test", settings.n_test, MNIST_TEST),
    ):
        if value is not None and not 1 <= value <= limit:
            raise ValueError(f"full_mnist.{name} must be null (all) or in [1, {limit}]; got {value}")
    if settings.n_trees < 1:
        raise ValueError(f"full_mnist.n_trees must be >= 1; got {settings.n_trees}")


def measured_settings(cfg: DictConfig) -> dict[str, Any]:
    """Every setting that changes what a run measures or reports, by its dotted name.

    ``runtime.n_jobs`` is one, as the number of workers it resolves to: the fit
    times, the peak memory and the budgets' verdicts depend on it.
    """
    return {
        **_dotted("full_mnist", as_dict(cfg.full_mnist)),
        **_dotted("model", as_dict(cfg.model)),
        **_dotted("solver", as_dict(cfg.solver)),
        "protocol.methods": list(cfg.protocol.methods),
        # The specs as written: their interpolations of model.* and solver.* are compared there.
        **_dotted("methods", as_dict(cfg.methods, resolve=False)),
        "runtime.n_jobs": effective_n_jobs(cfg.runtime.n_jobs),
    }


def _dotted(prefix: str, value: Any) -> dict[str, Any]:
    """Nested dicts flattened to dotted names, so that a difference names the one setting."""
    if isinstance(value, dict) and value:
        return {k: v for key, item in value.items() for k, v in _dotted(f"{prefix}.{key}", item).items()}
    return {prefix: value}


def differing_settings(cfg: DictConfig) -> list[str]:
    """The measured settings in which ``cfg`` differs from the committed run, each as
    ``name=value (committed: value)``."""
    committed = measured_settings(compose_config(f"experiment={COMMITTED_EXPERIMENT}"))
    found = measured_settings(cfg)
    names = list(found) + [name for name in committed if name not in found]
    return [
        f"{name}={_shown(found.get(name))} (committed: {_shown(committed.get(name))})"
        for name in names
        if found.get(name) != committed.get(name)
    ]


def _shown(value: Any) -> str:
    """A value as it is written on the command line."""
    if value is None:
        return "null"
    if isinstance(value, list):
        return "[" + ",".join(map(_shown, value)) + "]"
    return str(value)


def check_committed_folder(cfg: DictConfig) -> None:
    """Only the committed settings may write results/mnist_full*.csv and REPORT.md's full-MNIST section."""
    if not writes_headline(cfg.runtime.output_dir):
        return
    differing = differing_settings(cfg)
    if differing:
        raise ValueError(
            f"runtime.output_dir={cfg.runtime.output_dir} holds the committed full-MNIST results, written "
            f"only by `make mnist-full` (experiment={COMMITTED_EXPERIMENT} as committed); this run differs "
            f"in {'; '.join(differing)}. Choose another folder, e.g. runtime.output_dir={OTHER_RUNS_DIR} "
            "(such a run's default)"
        )


def run_output_dir(cfg: DictConfig, overrides: list[str]) -> str:
    """The folder a run writes: the configured one, except that a run differing from the committed
    one writes :data:`OTHER_RUNS_DIR` instead of results/ unless its command chose results/ (which
    :func:`check_committed_folder` then refuses). ``overrides``: the command's (Hydra's task overrides).
    """
    output_dir = str(cfg.runtime.output_dir)
    chosen = any(item.lstrip("+~").startswith("runtime.output_dir=") for item in overrides)
    if chosen or not writes_headline(output_dir):
        return output_dir
    differing = differing_settings(cfg)
    if not differing:
        return output_dir
    log.info(
        f"Not the committed run (differs in {'; '.join(differing)}): writing {OTHER_RUNS_DIR}/, "
        f"not {output_dir}/"
    )
    return OTHER_RUNS_DIR


def mnist_float32(data_dir, n_train: int, n_test: int) -> tuple[np.ndarray, ...]:
    """The first n_train training and n_test test images as float32 (the values the trees read: pixels
    are whole numbers, exact in float32) and their labels, read from the uint8 files without a
    float64 copy of all 70,000 images (which would set the peak's floor at about 1 GiB)."""
    paths = mnist_files(data_dir, download=False)
    arrays = {}
    for name, path in paths.items():
        values = read_idx(path, MNIST_SHAPES[name])
        n = n_train if name.startswith("train") else n_test
        arrays[name] = values[:n].reshape(n, -1).astype(np.float32 if values.ndim > 1 else np.int64)
        del values
    return (
        arrays["train-images-idx3-ubyte.gz"],
        arrays["train-labels-idx1-ubyte.gz"].ravel(),
        arrays["t10k-images-idx3-ubyte.gz"],
        arrays["t10k-labels-idx1-ubyte.gz"].ravel(),
    )


def fit_and_score(method: str, specs: dict, settings: dict, n_jobs: int, data_dir, levels_dir=None) -> dict:
    """Fit one method on the training images and score it on the test images (in its own process)."""
    n_train = settings["n_train"] or MNIST_TRAIN
    n_test = settings["n_test"] or MNIST_TEST
    X_train, y_train, X_test, y_test = mnist_float32(data_dir, n_train, n_test)
    unit = Unit("mnist_full", n_train, settings["n_trees"], method, 0)
    estimator = make_estimator(unit, specs, settings["seed"]).set_params(n_jobs=n_jobs, verbose=1)
    if settings["keep_fitted_levels"] == "disk":
        estimator.set_params(keep_fitted_levels="disk", fitted_levels_dir=Path(levels_dir, method))
    memory_before_fit = peak_memory_gib()
    start = time.perf_counter()
    estimator.fit(X_train, y_train)
    fit_seconds = time.perf_counter() - start
    peak_after_fit = peak_memory_gib()
    start = time.perf_counter()
    predictions = estimator.predict(X_test)
    predict_seconds = time.perf_counter() - start
    return {
        "method": method,
        "n_train": n_train,
        "n_test": n_test,
        "n_trees": settings["n_trees"],
        "seed": settings["seed"],
        "n_levels": estimator.n_levels_,
        "level_oof_accuracy": " ".join(f"{s:.4f}" for s in estimator.level_scores_),
        "test_correct": int(np.sum(predictions == y_test)),
        "fit_seconds": fit_seconds,
        "predict_seconds": predict_seconds,
        "weight_solver_seconds": weight_solver_seconds(estimator)
        if hasattr(estimator, "solver_diagnostics_")
        else 0.0,
        "memory_before_fit_gb": memory_before_fit,
        "peak_memory_fit_gb": peak_after_fit,
        "peak_memory_gb": peak_memory_gib(),
        "predictions": predictions,
        "y_test": y_test,
    }


def accuracy_rows(rows: list[dict]) -> pd.DataFrame:
    """Accuracy with its exact (Clopper-Pearson) 95 % interval, and the budgets' verdicts."""
    frame = pd.DataFrame(rows)
    frame["test_accuracy"] = frame["test_correct"] / frame["n_test"]
    intervals = [
        stats.binomtest(int(k), int(n)).proportion_ci(CONFIDENCE)
        for k, n in zip(frame["test_correct"], frame["n_test"], strict=True)
    ]
    frame["accuracy_ci_low"] = [ci.low for ci in intervals]
    frame["accuracy_ci_high"] = [ci.high for ci in intervals]
    frame["within_time_budget"] = frame["fit_seconds"] <= 60 * frame["fit_minutes_budget"]
    frame["within_memory_budget"] = frame["peak_memory_gb"] <= frame["memory_gb_budget"]
    return frame


def mcnemar(predictions: dict[str, np.ndarray], y_test: np.ndarray) -> dict[str, Any]:
    """Exact McNemar test of DisDF against gcForest on the same test images (binomial on discordant ones)."""
    disdf_right = predictions["disdf"] == y_test
    gcforest_right = predictions["gcforest"] == y_test
    only_disdf = int(np.sum(disdf_right & ~gcforest_right))
    only_gcforest = int(np.sum(gcforest_right & ~disdf_right))
    p_value = mcnemar_exact(only_disdf, only_gcforest)
    return {"only_disdf_right": only_disdf, "only_gcforest_right": only_gcforest, "mcnemar_p": p_value}


def run_full_mnist(cfg: DictConfig) -> pd.DataFrame:
    """Both methods, one fresh process each; the CSV after each, the REPORT section at the end."""
    check_settings(cfg)
    check_committed_folder(cfg)
    output_dir = check_writable(cfg.runtime.output_dir, "runtime.output_dir")
    mnist_files(cfg.data.dir, download=False)  # a missing or altered file fails here, before any fit
    model = as_dict(cfg.model)
    solver = as_dict(cfg.solver)
    settings = as_dict(cfg.full_mnist)
    methods = list(cfg.protocol.methods)
    specs = estimator_specs(cfg, methods)
    n_jobs = effective_n_jobs(cfg.runtime.n_jobs)
    context = {
        "engine": model["engine"],
        "solver": solver["name"],
        "solver_options": str(solver["options"]),
        "lambda_": model["lambda_"],
        "tau": model["tau"],
        "weight_fitting": model["weight_fitting"],
        "n_jobs": n_jobs,
        "memory_gb_budget": settings["memory_gb_budget"],
        "keep_fitted_levels": settings["keep_fitted_levels"],
        "machine": f"{platform.machine()} {platform.system()}, {os.cpu_count()} cores",
        "version": disdf.__version__,
        **measurement_stamp(),  # at the start: the code that runs
    }
    rows, predictions, y_test = [], {}, None
    for method in methods:
        log.info(
            f"Fitting {method} on {settings['n_train'] or MNIST_TRAIN} MNIST images (T={settings['n_trees']})"
        )
        with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
            result = pool.submit(
                fit_and_score, method, specs, settings, n_jobs, cfg.data.dir, output_dir / "fitted_levels"
            ).result()
        predictions[method] = result.pop("predictions")
        y_test = result.pop("y_test")
        rows.append({**result, **context, "fit_minutes_budget": settings["fit_minutes_budget"][method]})
        log.info(
            f"{method}: test accuracy {result['test_correct'] / result['n_test']:.4f}, "
            f"fit {result['fit_seconds']:.0f} s, peak memory {result['peak_memory_gb']:.2f} GiB"
        )
        frame = accuracy_rows(rows)
        write_csv(frame, output_dir / CSV_NAME)
    if {"gcforest", "disdf"} <= set(predictions) and y_test is not None:  # the pairs need both methods
        for key, value in mcnemar(predictions, y_test).items():
            frame.loc[frame["method"] == "disdf", key] = value
    write_csv(frame, output_dir / CSV_NAME)
    append_history(frame, output_dir / HISTORY_NAME)
    from experiments.reporting.report import write_sections  # the report reads this module's CSV

    write_sections(ReportContext(ROOT, output_dir), ["mnist_full"])
    log.info(f"Wrote {output_dir / CSV_NAME} and its section of {output_dir / 'REPORT.md'}")
    return frame


def write_csv(frame: pd.DataFrame, path: Path) -> None:
    """The rows so far, replacing the file in one rename (a reader never sees half of it)."""
    with replaced_atomically(path) as temporary:
        frame.to_csv(temporary, index=False, float_format="%.6g")


def append_history(frame: pd.DataFrame, path: Path) -> None:
    """Add this run's rows (with their ``commit``) to the history file (rewritten in one rename)."""
    rows = frame
    if path.exists():
        rows = pd.concat([pd.read_csv(path), rows], ignore_index=True)
    write_csv(rows, path)
