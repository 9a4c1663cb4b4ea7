"""What does gcForest's ``out_of_bag=True`` (DF21's levels) cost in accuracy against its K-fold levels?

    python scripts/evidence/compare_out_of_bag.py --record   # -> results/bench/out_of_bag_accuracy.csv

(without ``--record``: build/bench/out_of_bag_accuracy.csv). Both cascades with their defaults but
``out_of_bag`` (T = 100, the same seed), on the same splits, in two regimes:

* ``protocol``: the paper's datasets at N in {50, 120}, ``--splits`` headline splits each (the
  protocol's seeds), scored on the split's test examples;
* ``mnist_slices``: ``--slices`` random slices of ``--n-train`` MNIST training images (slice s drawn
  with seed s, as scripts/evidence/compare_binned.py draws them), scored on all 10,000 test images.

Declared before the first run: per regime a paired TOST on out-of-bag − K-fold test accuracy, the
split (or slice) the unit, margin ±1.0 percentage point (the analysis plan's MARGIN_PP, the margin of
the report's equivalence verdicts), alpha 0.05. The rows per (dataset, N) give the mean difference
and its 95 % t-interval; the TOST rows are the decisions.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse

import numpy as np

from disdf import CascadeForestClassifier, load_mnist
from experiments.analysis.plan import ALPHA, MARGIN_PP
from experiments.analysis.statistics import mean_ci, tost_paired
from experiments.running.config import default_data_dir
from experiments.running.protocol import draw_split, load_pool, split_seed, test_size
from scripts.bench_output import add_record_flag, bench_output, write_and_show

PAPER_DATASETS = ("parkinsons", "ecoli", "ionosphere", "mnist")


def accuracies_of_both(X, y, X_test, y_test, seed: int) -> tuple[float, float]:
    """Test accuracy (out of bag, K folds) of gcForest on one split, both with ``random_state=seed``."""
    scores = [
        CascadeForestClassifier(n_trees=100, random_state=seed, out_of_bag=flag, n_jobs=2)
        .fit(X, y)
        .score(X_test, y_test)
        for flag in (True, False)
    ]
    return scores[0], scores[1]


def summary(regime: str, dataset: str, N: int, pairs: list[tuple[float, float]]) -> dict:
    differences = 100 * np.array([bagged - folds for bagged, folds in pairs])
    mean, half = mean_ci(differences)
    row = {"regime": regime, "dataset": dataset, "N": N, "splits": len(pairs)}
    row |= {"out_of_bag": np.mean([p[0] for p in pairs]), "k_fold": np.mean([p[1] for p in pairs])}
    return row | {"difference_pp": mean, "ci95_half_pp": half, "differences": differences}


def protocol_rows(splits: int, Ns: list[int]) -> list[dict]:
    rows = []
    for dataset in PAPER_DATASETS:
        pool = load_pool(dataset, default_data_dir())
        for N in Ns:
            pairs = []
            for repetition in range(splits):
                seed = split_seed(dataset, N, repetition, 0)
                split = draw_split(pool, N, test_size(N, 2 / 3), seed, dataset, cap_test=True)
                pairs.append(
                    accuracies_of_both(split.X_train, split.y_train, split.X_test, split.y_test, seed)
                )
            rows.append(summary("protocol", dataset, N, pairs))
            print({k: v for k, v in rows[-1].items() if k != "differences"}, flush=True)
    return rows


def mnist_rows(slices: int, n_train: int) -> list[dict]:
    mnist = load_mnist(default_data_dir(), download=False)
    pairs = []
    for seed in range(slices):
        chosen = np.random.default_rng(seed).choice(len(mnist["y_train"]), n_train, replace=False)
        X, y = mnist["X_train"][chosen], mnist["y_train"][chosen]
        pairs.append(accuracies_of_both(X, y, mnist["X_test"], mnist["y_test"], seed))
        print(f"slice {seed}: {pairs[-1]}", flush=True)
    return [summary("mnist_slices", "mnist", n_train, pairs)]


def tost_row(regime: str, rows: list[dict]) -> dict:
    pooled = np.concatenate([row["differences"] for row in rows if row["regime"] == regime])
    tost = tost_paired(pooled, MARGIN_PP, ALPHA)
    row = {"regime": regime, "dataset": "TOST (out of bag - K folds, pp)", "N": 0, "splits": len(pooled)}
    row |= {key: tost[key] for key in ("mean", "ci_low", "ci_high", "p_tost", "equivalent")}
    return row | {"margin_pp": MARGIN_PP}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", type=int, default=25)
    parser.add_argument("--Ns", type=int, nargs="+", default=[50, 120])
    parser.add_argument("--slices", type=int, default=8)
    parser.add_argument("--n-train", type=int, default=3000)
    add_record_flag(parser)
    args = parser.parse_args()
    rows = protocol_rows(args.splits, args.Ns) + mnist_rows(args.slices, args.n_train)
    tests = [tost_row(regime, rows) for regime in ("protocol", "mnist_slices")]
    for row in rows:
        row.pop("differences")
    write_and_show(bench_output(args, "out_of_bag_accuracy"), rows + tests, float_format="%.6g")


if __name__ == "__main__":
    main()
