"""Prediction time beside DF21's: both cascades with their defaults and DF21 on the same arrays.

    python scripts/bench/bench_predict_df21.py --record   # -> results/bench/predict_df21.csv

(without ``--record``: build/bench/). Three problems, as a DF21 user tried them: breast cancer and
digits (a stratified 70/30 split, seed 0; ``bench_small_n_cost.dataset``) and the 20,000-row trial
(``bench_defaults_repro.trial_data``: 20,000 training rows, 5,000 test rows). Our
``CascadeForestClassifier()`` and ``DisDFClassifier()`` (T = 100, ``n_jobs=2``; ``*_refit``: with
``test_vectors="refit"``, one model per forest for prediction, as DF21; ``gcforest_out_of_bag``:
``out_of_bag=True``, DF21's levels, each forest grown once and held out by bagging) are each fitted in a
fresh process after a small warm-up fit, then ``predict(X_test)`` is timed three times (the first
call included) and the best kept; DF21 (native mode, 2 + 2 forests of 100 trees, ``n_jobs=2``) runs
in its own venv (``make bench-df21`` creates it; ``--df21-python``) through ``bench_df21.py --npz
--json``, which times its prediction the same way. ``predict_ratio``: our prediction seconds over
DF21's on the same problem (below 1: faster). Wall seconds: the machine must be otherwise idle.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import numpy as np

from scripts.bench.bench_defaults_repro import trial_data
from scripts.bench.bench_scale import DF21_PYTHON, df21_on_arrays, warm_up
from scripts.bench.bench_small_n_cost import dataset
from scripts.bench_output import add_record_flag, bench_output, write_csv

PROBLEMS = ("breast_cancer", "digits", "trial_20000")
METHODS = ("gcforest", "disdf", "gcforest_refit", "disdf_refit", "gcforest_out_of_bag")
REPEATS = 3


def problem_arrays(problem: str) -> tuple[np.ndarray, ...]:
    """(X_train, y_train, X_test, y_test) of a problem."""
    return trial_data() if problem == "trial_20000" else dataset(problem)


def ours(problem: str, method: str) -> dict:
    """One of our cascades fitted and its prediction timed, in this (fresh) process."""
    from disdf import CascadeForestClassifier, DisDFClassifier

    X_train, y_train, X_test, y_test = problem_arrays(problem)
    cls = DisDFClassifier if method.startswith("disdf") else CascadeForestClassifier
    estimator = cls(n_trees=100, n_jobs=2, random_state=0)
    if method.endswith("_refit"):  # one model per forest for prediction, as DF21
        estimator.set_params(test_vectors="refit")
    if method.endswith("_out_of_bag"):  # DF21's levels: one forest per kind, held out by bagging
        estimator.set_params(out_of_bag=True)
    warm_up(estimator, X_train, y_train, X_test)
    start = time.perf_counter()
    estimator.fit(X_train, y_train)
    fit_seconds = time.perf_counter() - start
    times, predictions = [], None
    for _ in range(REPEATS):
        start = time.perf_counter()
        predictions = estimator.predict(X_test)
        times.append(time.perf_counter() - start)
    return {
        "fit_seconds": fit_seconds,
        "predict_seconds": min(times),
        "n_levels": estimator.n_levels_,
        "test_accuracy": float(np.mean(predictions == y_test)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", nargs="+", default=list(PROBLEMS), choices=PROBLEMS)
    parser.add_argument("--df21-python", type=Path, default=DF21_PYTHON)
    add_record_flag(parser)
    args = parser.parse_args()
    rows = []
    for problem in args.problems:
        arrays = problem_arrays(problem)
        shape = {"problem": problem, "n_train": len(arrays[1]), "n_test": len(arrays[3])}
        df21 = df21_on_arrays(arrays, 2, str(args.df21_python))
        measured = {
            "df21": {key: df21[key] for key in ("fit_seconds", "predict_seconds", "test_accuracy")}
            | {"n_levels": df21["n_levels"]}
        }
        for method in METHODS:
            with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
                measured[method] = pool.submit(ours, problem, method).result()
        for method, row in measured.items():
            ratio = row["predict_seconds"] / measured["df21"]["predict_seconds"]
            rows.append({**shape, "method": method, **row, "predict_ratio": ratio})
            seconds = row["predict_seconds"]
            print(f"{problem} {method}: predict {seconds:.3f} s ({ratio:.2f} x DF21's)", flush=True)
    write_csv(bench_output(args, "predict_df21"), rows, float_format="%.4g")


if __name__ == "__main__":
    main()
