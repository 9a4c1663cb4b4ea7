"""What DisDF costs beside gcForest at small n: CPU seconds and peak memory of the same fit, both defaults.

    python scripts/bench/bench_small_n_cost.py --record   # -> results/bench/small_n_cost.csv

(without ``--record``: build/bench/). Datasets of at most 2,000 training examples: scikit-learn's
digits (1,797 images, 70 % to train: 1,257) and breast cancer (569: 398), and the paper's
Parkinsons, Ecoli and Ionosphere (whole files, 70 % to train) and MNIST's first 2,000 training
images, read from ``DISDF_DATA_DIR``. Each estimator with its defaults at T = 100 and
``random_state=0``, ``n_jobs=1`` (CPU seconds are then the fit's own), fitted in a fresh process after
a warm-up fit on 30 examples per class (compiled code compiled or read from numba's cache), ``--repeats``
times: the CPU seconds (``time.process_time``) are the least of the repeats, the peak resident
memory (``ru_maxrss``, the process and the data included) the first fit's. The goal: DisDF at most
2 x gcForest's CPU and memory. ``--max-pairs auto 25000 None`` adds DisDF's rows at other caps on the
pairs a fold model's problem reads (``max_pairs``; its default "auto" is 5,000): the measurement that
chose the default.

Where DisDF's CPU beyond gcForest's goes: each DisDF row also gives the CPU seconds of its weight
problems (held-out probabilities, pair statistics, the cross-fitted parts' problems) and of its weight
solves, from one more fit in the same process with those parts timed (scripts/bench/bench_fit_profile.py's
timers), taken in the repeat whose fit used the least CPU.
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
import pandas as pd

from disdf.utils import peak_memory_gib
from scripts.bench.bench_scale import warm_up
from scripts.bench_output import add_record_flag, bench_output, write_csv

DATASETS = ("digits", "breast_cancer", "parkinsons", "ecoli", "ionosphere", "mnist_2000")
TRAIN_FRACTION = 0.7


def dataset(name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(X_train, y_train, X_test, y_test): a stratified 70/30 split (seed 0), or MNIST's first 2,000
    training images and its first 2,000 test images."""
    from sklearn.model_selection import train_test_split

    if name == "mnist_2000":
        from disdf.datasets import load_mnist

        mnist = load_mnist(download=False)
        return (
            mnist["X_train"][:2000],
            mnist["y_train"][:2000],
            mnist["X_test"][:2000],
            mnist["y_test"][:2000],
        )
    if name in ("digits", "breast_cancer"):
        from sklearn import datasets

        X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
    else:
        from disdf.datasets import load_dataset

        X, y = load_dataset(name, download=False)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, train_size=TRAIN_FRACTION, stratify=y, random_state=0
    )
    return X_train, y_train, X_test, y_test


def max_pairs_value(text: str) -> int | str | None:
    """``--max-pairs``' words as DisDF's parameter: "auto", "None" or a number of pairs."""
    return None if text == "None" else (text if text == "auto" else int(text))


def fit_once(name: str, method: str, max_pairs: str) -> dict:
    """One fit in this (fresh) process: CPU and wall seconds, peak memory, levels, test accuracy."""
    from disdf import CascadeForestClassifier, DisDFClassifier

    X_train, y_train, X_test, y_test = dataset(name)
    if method == "disdf":
        estimator = DisDFClassifier(
            n_trees=100, n_jobs=1, random_state=0, max_pairs=max_pairs_value(max_pairs)
        )
    else:
        estimator = CascadeForestClassifier(n_trees=100, n_jobs=1, random_state=0)
    measured = measured_fit(estimator, X_train, y_train, X_test, y_test)
    return measured if method != "disdf" else {**measured, **weight_seconds(estimator, X_train, y_train)}


def weight_seconds(estimator, X_train, y_train) -> dict:
    """CPU seconds of DisDF's weight problems and weight solves (every level grown, the one the cascade
    dropped too), from a second fit of ``estimator`` with those parts timed (bench_fit_profile's
    timers; this fit's total is not the row's, the timers' own cost is in it)."""
    from sklearn.base import clone

    from scripts.bench.bench_fit_profile import profiled_fit

    totals = profiled_fit(clone(estimator), X_train, y_train).profile.totals
    return {
        "weight_problems_cpu_seconds": totals["weight problems"].cpu_seconds,
        "weight_solves_cpu_seconds": totals["weight solves"].cpu_seconds,
    }


def measured_fit(estimator, X_train, y_train, X_test, y_test) -> dict:
    """``estimator`` fitted after a warm-up fit (this process should be fresh): CPU and wall seconds
    of the fit, the process's peak memory, training rows, levels kept and test accuracy."""
    warm_up(estimator, X_train, y_train, X_test)
    cpu, wall = time.process_time(), time.perf_counter()
    estimator.fit(X_train, y_train)
    return {
        "cpu_seconds": time.process_time() - cpu,
        "wall_seconds": time.perf_counter() - wall,
        "peak_gib": peak_memory_gib(),
        "n_train": len(y_train),
        "n_levels": estimator.n_levels_,
        "test_accuracy": float(np.mean(estimator.predict(X_test) == y_test)),
    }


def measure(name: str, method: str, max_pairs: str, repeats: int) -> dict:
    runs = []
    for _ in range(repeats):
        with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
            runs.append(pool.submit(fit_once, name, method, max_pairs).result())
    first, fastest = runs[0], min(runs, key=lambda run: run["cpu_seconds"])
    return {
        "dataset": name,
        "method": method,
        "max_pairs": max_pairs,
        "n_train": first["n_train"],
        "cpu_seconds": fastest["cpu_seconds"],
        "wall_seconds": min(run["wall_seconds"] for run in runs),
        "peak_gib": first["peak_gib"],
        "n_levels": first["n_levels"],
        "test_accuracy": first["test_accuracy"],
        "repeats": repeats,
        # the weights' parts of the fit of least CPU (empty for gcForest)
        "weight_problems_cpu_seconds": fastest.get("weight_problems_cpu_seconds"),
        "weight_solves_cpu_seconds": fastest.get("weight_solves_cpu_seconds"),
    }


def with_ratios(frame: pd.DataFrame) -> pd.DataFrame:
    """DisDF's rows with their CPU and memory over gcForest's on the same dataset."""
    gcf = frame[frame["method"] == "gcforest"].set_index("dataset")
    ratios = frame.apply(
        lambda row: pd.Series(
            {
                "cpu_ratio": row["cpu_seconds"] / gcf.loc[row["dataset"], "cpu_seconds"],
                "memory_ratio": row["peak_gib"] / gcf.loc[row["dataset"], "peak_gib"],
            }
        ),
        axis=1,
    )
    return pd.concat([frame, ratios], axis=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=DATASETS)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--max-pairs", nargs="+", default=["auto"], help="DisDF's caps: auto, None or a number"
    )
    add_record_flag(parser)
    args = parser.parse_args()
    output = bench_output(args, "small_n_cost")
    rows = []
    fits = [("gcforest", ""), *(("disdf", cap) for cap in args.max_pairs)]
    for name in args.datasets:
        for method, cap in fits:
            rows.append(measure(name, method, cap, args.repeats))
            print(rows[-1], flush=True)
    table = with_ratios(pd.DataFrame(rows))
    write_csv(output, table, float_format="%.4g")
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(table.round(3).to_string(index=False))
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
