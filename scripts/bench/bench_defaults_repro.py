"""The fit that was killed at 21.2 GiB, with DisDF's defaults: its peak memory, time and accuracy now.

    python scripts/bench/bench_defaults_repro.py --record   # -> results/bench/defaults_repro.csv

(without ``--record``: build/bench/). The trial as reported: ``make_classification(n_samples=25000,
n_features=20, n_informative=10, n_redundant=5, n_classes=3, random_state=0)``, 20,000 stratified
training rows (``train_test_split(..., train_size=20000, stratify=y, random_state=0)``), then
``DisDFClassifier(n_trees=100, n_jobs=2, random_state=0).fit(...)``, scored on the other 5,000 rows;
gcForest's fit beside it (``CascadeForestClassifier``, the same settings). Each fit in a fresh process
after a warm-up fit on 30 examples per class; peak resident memory is ``ru_maxrss`` (the process,
the data and the fit). The goal: DisDF's peak at most 4 GiB.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import numpy as np
import pandas as pd

from scripts.bench.bench_small_n_cost import measured_fit
from scripts.bench_output import add_record_flag, bench_output, write_csv


def trial_data() -> tuple[np.ndarray, ...]:
    from sklearn.datasets import make_classification
    from sklearn.model_selection import train_test_split

    X, y = make_classification(
        n_samples=25000, n_features=20, n_informative=10, n_redundant=5, n_classes=3, random_state=0
    )
    X_train, X_test, y_train, y_test = train_test_split(X, y, train_size=20000, stratify=y, random_state=0)
    return X_train, y_train, X_test, y_test


def fit_once(method: str) -> dict:
    from disdf import CascadeForestClassifier, DisDFClassifier

    X_train, y_train, X_test, y_test = trial_data()
    cls = DisDFClassifier if method == "disdf" else CascadeForestClassifier
    estimator = cls(n_trees=100, n_jobs=2, random_state=0)
    row = {"method": method, **measured_fit(estimator, X_train, y_train, X_test, y_test)}
    if method == "disdf":
        row["max_pairs"] = str(estimator.max_pairs)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_record_flag(parser)
    args = parser.parse_args()
    output = bench_output(args, "defaults_repro")
    rows = []
    for method in ("gcforest", "disdf"):
        with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
            rows.append(pool.submit(fit_once, method).result())
        print(rows[-1], flush=True)
    write_csv(output, pd.DataFrame(rows), float_format="%.4g")
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
