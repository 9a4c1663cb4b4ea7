"""DF21's regressor on given splits: the regression benchmark's DF21 rows (run in DF21's own venv).

``experiments/drivers/regression_benchmark.py`` writes one ``numpy.savez`` file per dataset holding, for
each split s, ``X_train_s``, ``y_train_s``, ``X_test_s``, ``y_test_s`` and the array ``seeds`` (the split's
seed, DF21's ``random_state``), runs this script on it in DF21's venv and reads one JSON line per split:
``split``, ``status`` ("ok" or the error's one line), ``r2``, ``rmse``, ``n_levels``, ``fit_cpu_seconds``,
``predict_cpu_seconds``, ``fit_wall_seconds``, ``peak_memory_gib`` (the process's), ``library_version``.
The model: DF21's ``CascadeForestRegressor`` with its defaults (2 random forests and 2 extra-trees
forests per layer, 255 bins, at most 20 layers), ``--n-trees`` trees per forest, ``--n-jobs`` jobs (1;
``scripts/bench/bench_regression_scale.py`` gives 2)::

    build/df21-venv/bin/python scripts/tools/df21_regression_splits.py SPLITS.npz --splits 0 1 2
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's scripts

import argparse
import json
import resource
import time
from importlib.metadata import version

import numpy as np


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("splits", type=Path, help="the numpy.savez file of the splits")
    parser.add_argument(
        "--splits", dest="which", type=int, nargs="+", required=True, help="which splits to fit"
    )
    parser.add_argument("--n-trees", type=int, default=100, help="trees per forest")
    parser.add_argument("--n-jobs", type=int, default=1, help="DF21's n_jobs")
    return parser.parse_args(argv)


def fit_one(stored, split: int, n_trees: int, n_jobs: int = 1) -> dict:
    """DF21 fitted on one split and scored on its test half; a failure is a status, not an exception."""
    from deepforest import CascadeForestRegressor

    seed = int(stored["seeds"][split])
    X_test, y_test = stored[f"X_test_{split}"], stored[f"y_test_{split}"]
    row = {
        "split": split,
        "seed": seed,
        "library_version": f"deep-forest-py310 {version('deep-forest-py310')}",
    }
    try:
        model = CascadeForestRegressor(n_trees=n_trees, n_jobs=n_jobs, random_state=seed, verbose=0)
        started, wall = time.process_time(), time.perf_counter()
        model.fit(stored[f"X_train_{split}"], stored[f"y_train_{split}"])
        fitted, wall = time.process_time(), time.perf_counter() - wall
        predicted = np.asarray(model.predict(X_test), dtype=np.float64).ravel()
        predict_seconds = time.process_time() - fitted
    except Exception as error:  # DF21 failing on a table is a result: a status row
        return {**row, "status": f"{type(error).__name__}: {error}".splitlines()[0][:300]}
    residual = y_test - predicted
    return {
        **row,
        "status": "ok",
        "r2": float(1.0 - np.sum(residual**2) / np.sum((y_test - y_test.mean()) ** 2)),
        "rmse": float(np.sqrt(np.mean(residual**2))),
        "n_levels": int(model.n_layers_),
        "fit_cpu_seconds": fitted - started,
        "predict_cpu_seconds": predict_seconds,
        "fit_wall_seconds": wall,
        "peak_memory_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20,
    }


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    with np.load(args.splits, allow_pickle=False) as stored:
        for split in args.which:
            print(json.dumps(fit_one(stored, split, args.n_trees, args.n_jobs)), flush=True)


if __name__ == "__main__":
    main()
