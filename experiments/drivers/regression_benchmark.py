"""The regression benchmark's runs (experiments/analysis/regression_plan.py declares them):
``results/regression/records.csv``, one row per (dataset, split, method).

    python -m experiments.drivers.regression_benchmark                     # every method (make regression)
    python -m experiments.drivers.regression_benchmark --methods disdf_out_of_bag  # the post hoc one
    python -m experiments.drivers.regression_benchmark --methods df21 --max-minutes 60

Each dataset is cut to the plan's ``MAX_ROWS`` rows (a draw seeded by its name) and split by 5 x 2 CV:
repeat r halves the rows by ``KFold(2, shuffle=True)`` seeded with :func:`split_seed` (dataset, r); split
2r + h tests on half h. The disdf and scikit-learn methods are fitted here, DF21's regressor in its own
venv (``scripts/tools/df21_regression_splits.py``, on the same splits, written to a temporary
``numpy.savez`` file). A row records the test R^2 and RMSE, the fit's and the prediction's process CPU
seconds (one job each), the cascade's levels and the library's version; ``status`` is "ok" or the
error's one line (a status row, never a silent gap). Rows already in the file are kept and skipped (the
command resumes); ``--max-minutes`` stops before the next dataset once that much time has passed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from sklearn.ensemble import ExtraTreesRegressor, HistGradientBoostingRegressor, RandomForestRegressor
from sklearn.metrics import mean_squared_error, r2_score
from sklearn.model_selection import KFold

import disdf
from disdf import CascadeForestRegressor
from disdf.utils import write_text_atomically
from experiments.analysis.regression_plan import ADDED_METHODS, MAX_ROWS, METHODS, N_TREES, REPEATS
from experiments.paths import ROOT
from experiments.running.regression_datasets import REGRESSION_DATASETS, load_regression_table

OUTPUT = ROOT / "results" / "regression" / "records.csv"
WORKER = ROOT / "scripts" / "tools" / "df21_regression_splits.py"
DEFAULT_DF21_PYTHON = ROOT / "build" / "df21-venv" / "bin" / "python"
COLUMNS = (
    "dataset", "split", "seed", "method", "status", "r2", "rmse", "fit_cpu_seconds", "predict_cpu_seconds",
    "n_levels", "n_train", "n_test", "library_version",
)  # fmt: skip
KEY = ("dataset", "split", "method")
#: DF21's level in disdf's names: 2 random forests, 2 extremely randomised forests of sqrt(d) candidates.
DF21_LEVEL = ["random_forest", "random_forest", "extra_trees", "extra_trees"]


def make_method(method: str, seed: int) -> Any:
    """The plan's model of ``method`` (all but DF21's), seeded with the split's seed, one job."""
    makers: dict[str, Callable[[], Any]] = {
        "disdf": lambda: CascadeForestRegressor(n_trees=N_TREES, random_state=seed, n_jobs=1),
        "disdf_df21_level": lambda: CascadeForestRegressor(
            n_trees=N_TREES, forests=DF21_LEVEL, engine="binned", random_state=seed, n_jobs=1
        ),
        "disdf_out_of_bag": lambda: CascadeForestRegressor(
            n_trees=N_TREES, forests=DF21_LEVEL, engine="binned", out_of_bag=True, random_state=seed, n_jobs=1
        ),
        "random_forest": lambda: RandomForestRegressor(n_estimators=4 * N_TREES, random_state=seed, n_jobs=1),
        "extra_trees": lambda: ExtraTreesRegressor(n_estimators=4 * N_TREES, random_state=seed, n_jobs=1),
        "hist_gradient_boosting": lambda: HistGradientBoostingRegressor(random_state=seed),
    }
    return makers[method]()


def split_seed(dataset: str, repeat: int) -> int:
    """The seed of a dataset's repeat (its halving and every method's random_state), from the names alone."""
    return (
        int.from_bytes(hashlib.sha256(f"regression/{dataset}/{repeat}".encode()).digest()[:4], "little") >> 1
    )


def benchmark_rows(dataset: str) -> tuple[np.ndarray, np.ndarray]:
    """The dataset's rows as the benchmark uses them: at most MAX_ROWS, drawn with a seed of its name."""
    table = load_regression_table(dataset)
    if len(table.y) <= MAX_ROWS:
        return table.X, table.y
    rows = np.sort(
        np.random.default_rng(split_seed(dataset, -1)).choice(len(table.y), MAX_ROWS, replace=False)
    )
    return table.X[rows], table.y[rows]


def splits(dataset: str, n_rows: int) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """(seed, training rows, test rows) of split 2r + h: repeat r's halving, half h the test set."""
    found = []
    for repeat in range(REPEATS):
        seed = split_seed(dataset, repeat)
        halves = KFold(2, shuffle=True, random_state=seed).split(np.zeros((n_rows, 1)))
        found += [(seed, train, test) for train, test in halves]
    return found


def score_row(y_test: np.ndarray, predicted: np.ndarray) -> dict[str, float]:
    return {
        "r2": float(r2_score(y_test, predicted)),
        "rmse": float(np.sqrt(mean_squared_error(y_test, predicted))),
    }


def fit_here(method: str, X: np.ndarray, y: np.ndarray, seed: int, train, test) -> dict:
    """One method (this venv's) on one split; a failure is a status row."""
    model = make_method(method, seed)
    try:
        started = time.process_time()
        model.fit(X[train], y[train])
        fitted = time.process_time()
        predicted = model.predict(X[test])
        predict_seconds = time.process_time() - fitted
    except Exception as error:  # a method failing on a table is a result
        return {"status": f"{type(error).__name__}: {error}".splitlines()[0][:300]}
    levels = getattr(model, "n_levels_", None)
    version = f"disdf {disdf.__version__}" if method.startswith("disdf") else "scikit-learn"
    return {
        "status": "ok", **score_row(y[test], predicted), "fit_cpu_seconds": fitted - started,
        "predict_cpu_seconds": predict_seconds, "n_levels": levels, "library_version": version,
    }  # fmt: skip


def fit_df21(python: Path, X: np.ndarray, y: np.ndarray, found: list, which: list[int]) -> dict[int, dict]:
    """DF21's rows of the splits ``which`` (by split index), fitted by the worker in DF21's venv."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "splits.npz"
        arrays: dict[str, Any] = {"seeds": np.array([seed for seed, _, _ in found], dtype=np.int64)}
        for s, (_, train, test) in enumerate(found):
            arrays |= {
                f"X_train_{s}": X[train],
                f"y_train_{s}": y[train],
                f"X_test_{s}": X[test],
                f"y_test_{s}": y[test],
            }
        np.savez(path, **arrays)
        command = [
            str(python),
            str(WORKER),
            str(path),
            "--n-trees",
            str(N_TREES),
            "--splits",
            *map(str, which),
        ]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    rows = {row["split"]: row for row in map(json.loads, lines)}
    error = (done.stderr.strip().splitlines() or ["no output"])[-1][:300]
    return {s: rows.get(s, {"status": f"worker failed: {error}"}) for s in which}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    every = (*METHODS, *ADDED_METHODS)
    parser.add_argument("--methods", nargs="+", default=list(every), choices=every)
    parser.add_argument(
        "--datasets", nargs="+", default=list(REGRESSION_DATASETS), choices=list(REGRESSION_DATASETS)
    )
    parser.add_argument("--df21-python", type=Path, default=DEFAULT_DF21_PYTHON, help="DF21's venv's python")
    parser.add_argument("--max-minutes", type=float, help="stop before the next dataset after this long")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    if "df21" in args.methods and not args.df21_python.is_file():
        parser.error(f"--df21-python {args.df21_python} is missing (make benchmark-df21 makes DF21's venv)")
    return args


def warm_up() -> None:
    """Compile the regression kernels before the first timed fit (plan: not inside a timed fit)."""
    X = np.random.default_rng(0).normal(size=(300, 4))
    for engine in ("fast", "binned"):
        for out_of_bag in (False, True):
            CascadeForestRegressor(
                n_trees=4, engine=engine, max_levels=2, random_state=0, out_of_bag=out_of_bag
            ).fit(X, X[:, 0])


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    done = pd.read_csv(args.output) if args.output.is_file() else pd.DataFrame(columns=COLUMNS)
    have = set(map(tuple, done[list(KEY)].astype(str).to_numpy()))
    started = time.monotonic()
    if any(method.startswith("disdf") for method in args.methods):
        warm_up()
    for dataset in args.datasets:
        if args.max_minutes is not None and time.monotonic() - started > 60 * args.max_minutes:
            print(f"stopped after {args.max_minutes} minutes, before {dataset}", flush=True)
            return
        X, y = benchmark_rows(dataset)
        found = splits(dataset, len(y))
        rows = []
        for method in args.methods:
            missing = [s for s in range(len(found)) if (dataset, str(s), method) not in have]
            if not missing:
                continue
            if method == "df21":
                results = fit_df21(args.df21_python, X, y, found, missing)
            else:
                results = {s: fit_here(method, X, y, found[s][0], found[s][1], found[s][2]) for s in missing}
            for s, result in results.items():
                seed, train, test = found[s]
                rows.append({"dataset": dataset, "split": s, "seed": seed, "method": method,
                             "n_train": len(train), "n_test": len(test), **result})  # fmt: skip
            ok = [row for row in rows if row["method"] == method and row["status"] == "ok"]
            mean_r2 = np.mean([row["r2"] for row in ok]) if ok else float("nan")
            print(f"{dataset} {method}: {len(ok)}/{len(missing)} ok, mean R^2 {mean_r2:.4f}", flush=True)
        if rows:
            done = pd.concat([done, pd.DataFrame(rows).reindex(columns=COLUMNS)], ignore_index=True)
            text = done.sort_values(list(KEY)).to_csv(index=False)
            args.output.parent.mkdir(parents=True, exist_ok=True)
            write_text_atomically(args.output, text)  # a kill mid-write leaves the previous file


if __name__ == "__main__":
    main()
