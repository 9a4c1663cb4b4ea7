"""The regressor's fit at 10^4 and 10^5 rows beside DF21's and scikit-learn's: time and peak memory.

    python scripts/bench/bench_regression_scale.py --record   # -> results/bench/regression_scale.csv

(without ``--record``: build/bench/; ``make bench-regression-scale`` records). The problem: Friedman's #1
(``make_friedman1``: 20 features, 5 of them informative, noise 1.0), scored on 10,000 more rows by R^2.
Methods, each with ``--n-jobs`` jobs: ``disdf`` (``CascadeForestRegressor`` with its defaults, 100 trees
per forest), ``disdf_df21_level`` (DF21's level: 2 random forests and 2 ``"extra_trees"`` forests,
``engine="binned"``), ``disdf_out_of_bag`` (the same, its levels held out by bagging: ``out_of_bag=True``,
DF21's whole cascade), ``df21`` (DF21's ``CascadeForestRegressor`` with its defaults and 100 trees per
forest, in its own venv: scripts/tools/df21_regression_splits.py), scikit-learn's RandomForest and
ExtraTrees (400 trees: one level's budget) and HistGradientBoosting (its defaults).

Each fit runs in a fresh process, after a small warm-up fit of the same estimator (numba compiles or
reads its cache then, not in the timed fit); its peak resident memory (``ru_maxrss``, the data
included) is its own. For the cascades, ``estimate_gib`` is the library's memory check's estimate
before the fit (which counts ``max_levels`` levels held) and ``estimate_grown_levels_gib`` the same
model given the levels the fit grew: the check's model beside the measured peak. A run replaces the rows of
the (size, method) it measures and keeps the others; ``--resume`` skips those the file has.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse
import json
import subprocess
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.metrics import r2_score

from disdf.utils import peak_memory_gib
from scripts.bench_output import add_record_flag, bench_output, write_csv

SIZES = (10_000, 100_000)
METHODS = (
    "disdf", "disdf_df21_level", "disdf_out_of_bag", "df21", "random_forest", "extra_trees",
    "hist_gradient_boosting",
)  # fmt: skip
N_TEST = 10_000
ROOT = Path(__file__).resolve().parents[2]
DF21_PYTHON = ROOT / "build" / "df21-venv" / "bin" / "python"
DF21_WORKER = ROOT / "scripts" / "tools" / "df21_regression_splits.py"
DF21_LEVEL = ["random_forest", "random_forest", "extra_trees", "extra_trees"]
KEY = ("n_train", "method")


def problem(n_train: int) -> tuple[np.ndarray, ...]:
    """(X_train, y_train, X_test, y_test) of Friedman's #1, X as float32."""
    from sklearn.datasets import make_friedman1

    X, y = make_friedman1(n_samples=n_train + N_TEST, n_features=20, noise=1.0, random_state=0)
    X = X.astype(np.float32)
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def make_method(method: str, n_jobs: int):
    from sklearn.ensemble import ExtraTreesRegressor, HistGradientBoostingRegressor, RandomForestRegressor

    from disdf import CascadeForestRegressor

    if method == "disdf":
        return CascadeForestRegressor(n_trees=100, n_jobs=n_jobs, random_state=0)
    if method in ("disdf_df21_level", "disdf_out_of_bag"):
        return CascadeForestRegressor(
            n_trees=100, forests=DF21_LEVEL, engine="binned", n_jobs=n_jobs, random_state=0,
            out_of_bag=method == "disdf_out_of_bag",
        )  # fmt: skip
    if method == "hist_gradient_boosting":
        return HistGradientBoostingRegressor(random_state=0)
    cls = RandomForestRegressor if method == "random_forest" else ExtraTreesRegressor
    return cls(n_estimators=400, n_jobs=n_jobs, random_state=0)


def fit_once(n_train: int, method: str, n_jobs: int) -> dict:
    """One fit and prediction in this (fresh) process: seconds, CPU seconds, peak memory, levels, R^2."""
    X_train, y_train, X_test, y_test = problem(n_train)
    estimator = make_method(method, n_jobs)
    clone(estimator).fit(X_train[:300], y_train[:300]).predict(X_test[:30])  # warm-up (compiles)
    estimate = memory_estimate(estimator, X_train, y_train)
    cpu, start = time.process_time(), time.perf_counter()
    estimator.fit(X_train, y_train)
    fit_seconds, fit_cpu = time.perf_counter() - start, time.process_time() - cpu
    return {
        "fit_seconds": fit_seconds,
        "fit_cpu_seconds": fit_cpu,
        "peak_memory_gib": peak_memory_gib(),
        "estimate_gib": estimate,
        # the estimate counts max_levels levels held; this fit's grown levels give it with its own count
        "estimate_grown_levels_gib": memory_estimate(
            estimator, X_train, y_train, len(getattr(estimator, "level_scores_", []))
        ),
        "n_levels": getattr(estimator, "n_levels_", 1),
        "test_r2": float(r2_score(y_test, estimator.predict(X_test))),
    }


def memory_estimate(estimator, X: np.ndarray, y: np.ndarray, levels: int | None = None) -> float | None:
    """The library's memory check's estimate of this fit (GiB), for the cascades; None for the others.
    ``levels``: the levels the fit grows (None: max_levels, what the check assumes before the fit)."""
    from disdf import CascadeForestRegressor
    from disdf.cascade import estimator_fit_memory

    if not isinstance(estimator, CascadeForestRegressor) or levels == 0:
        return None
    counts = np.zeros(1 if y.ndim == 1 else y.shape[1], dtype=np.int64)
    counts[0] = len(y)
    return estimator_fit_memory(estimator, counts, X.shape[1], levels).total / 2**30


def fit_df21(n_train: int, n_jobs: int, python: Path) -> dict:
    """DF21's fit in its venv's own process (the worker's measures)."""
    X_train, y_train, X_test, y_test = problem(n_train)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "split.npz"
        np.savez(
            path,
            X_train_0=X_train,
            y_train_0=y_train,
            X_test_0=X_test,
            y_test_0=y_test,
            seeds=np.zeros(1, int),
        )
        command = [str(python), str(DF21_WORKER), str(path), "--splits", "0", "--n-jobs", str(n_jobs)]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise RuntimeError(f"{' '.join(command)} failed: {done.stderr.strip()[-2000:]}")
    row = json.loads(lines[-1])
    if row["status"] != "ok":
        raise RuntimeError(row["status"])
    return {
        "fit_seconds": row["fit_wall_seconds"],
        "fit_cpu_seconds": row["fit_cpu_seconds"],  # the worker's own process: joblib's workers' not counted
        "peak_memory_gib": row["peak_memory_gib"],
        "n_levels": row["n_levels"],
        "test_r2": row["r2"],
        "library_version": row["library_version"],
        "libraries": f"{row['library_version']} (DF21's venv)",  # not this venv's builds
    }


def measure(n_train: int, method: str, n_jobs: int, python: Path) -> dict:
    row = {"problem": "friedman1_20", "n_train": n_train, "method": method, "n_jobs": n_jobs}
    try:
        if method == "df21":
            return {**row, "status": "ok", **fit_df21(n_train, n_jobs, python)}
        with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
            return {**row, "status": "ok", **pool.submit(fit_once, n_train, method, n_jobs).result()}
    except Exception as error:  # a failed fit is a row saying why
        return {**row, "status": f"{type(error).__name__}: {error}".splitlines()[0][:300]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--df21-python", type=Path, default=DF21_PYTHON)
    parser.add_argument("--resume", action="store_true", help="skip the (size, method) the output has")
    add_record_flag(parser)
    args = parser.parse_args()
    output = bench_output(args, "regression_scale")
    earlier = pd.read_csv(output) if args.resume and output.is_file() else pd.DataFrame(columns=list(KEY))
    done = set(map(tuple, earlier[list(KEY)].to_numpy().tolist()))
    for n_train in args.sizes:
        for method in args.methods:
            if (n_train, method) in done:
                continue
            row = measure(n_train, method, args.n_jobs, args.df21_python)
            print(json.dumps(row), flush=True)
            # each row as it lands (a long run loses nothing); a rerun of a (size, method) replaces its row,
            # the others stay
            write_csv(output, [row])


if __name__ == "__main__":
    main()
