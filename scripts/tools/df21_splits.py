"""DF21 on given splits: the benchmark's DF21 rows (run in DF21's own venv, without disdf).

``experiments/drivers/benchmark_df21.py`` writes one ``numpy.savez`` file per dataset holding, for each
repetition r, ``X_train_r``, ``y_train_r``, ``X_test_r``, ``y_test_r`` (integer labels) and the array
``seeds`` (the split's seed, DF21's ``random_state``), runs this script on it in DF21's venv and
reads one JSON line per repetition from its standard output: ``repetition``, ``status`` ("ok" or the
error's one line), ``accuracy``, ``n_test``, ``n_levels``, ``fit_seconds``, ``library_version``.
DF21's model is bench_df21.py's ``native`` one (2 random forests + 2 extra-trees forests per layer,
``--n-trees`` trees each, at most 10 layers, patience 1), fitted with one thread::

    build/df21-venv/bin/python scripts/tools/df21_splits.py SPLITS.npz --repetitions 0 1 2
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's scripts

import argparse
import json

import numpy as np

from scripts.bench.bench_df21 import library_version, make_model
from scripts.bench_output import timed


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("splits", type=Path, help="the numpy.savez file of the splits")
    parser.add_argument("--repetitions", type=int, nargs="+", required=True, help="which splits to fit")
    parser.add_argument("--n-trees", type=int, default=100, help="trees per forest")
    return parser.parse_args(argv)


def fit_one(stored, repetition: int, n_trees: int) -> dict:
    """DF21 fitted on one split and scored on its test set; a failure is a status, not an exception."""
    seed = int(stored["seeds"][repetition])
    options = argparse.Namespace(
        n_bins=255, max_layers=10, n_trees=n_trees, n_jobs=1, seed=seed, verbose=0, mode="native"
    )
    X_test, y_test = stored[f"X_test_{repetition}"], stored[f"y_test_{repetition}"]
    row = {
        "repetition": repetition,
        "seed": seed,
        "n_test": len(y_test),
        "library_version": library_version(),
    }
    try:
        model = make_model(options)
        _, seconds = timed(
            lambda: model.fit(stored[f"X_train_{repetition}"], stored[f"y_train_{repetition}"])
        )
        accuracy = float(np.mean(model.predict(X_test) == y_test))
    except Exception as error:  # DF21 failing on a table is a result: a status row
        return {**row, "status": f"{type(error).__name__}: {error}".splitlines()[0][:300]}
    return {
        **row,
        "status": "ok",
        "accuracy": accuracy,
        "n_levels": int(model.n_layers_),
        "fit_seconds": seconds,
    }


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    with np.load(args.splits, allow_pickle=False) as stored:
        for repetition in args.repetitions:
            print(json.dumps(fit_one(stored, repetition, args.n_trees)), flush=True)


if __name__ == "__main__":
    main()
