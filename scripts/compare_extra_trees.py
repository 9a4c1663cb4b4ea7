"""Spot check: the baselines' extremely randomised trees (max_features="sqrt") on the fast engine
against scikit-learn's ExtraTreesClassifier, same splits, paired by split.

    python scripts/compare_extra_trees.py   # -> results/bench/extra_trees_engines.csv

Headline splits (the protocol's seeds) at N = 120, 400 trees (T = 100 times 4), 20 splits per
dataset: mean accuracy of each and the paired difference with its 95 % t-interval. A spot check,
not an equivalence test (no margin declared).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.ensemble import ExtraTreesClassifier

from disdf.baselines import PlainForestClassifier
from experiments.config import default_data_dir
from experiments.protocol import draw_split, load_pool, split_seed, test_size
from experiments.stats import mean_ci

OUTPUT = Path(__file__).resolve().parents[1] / "results" / "bench" / "extra_trees_engines.csv"


def compare(dataset: str, splits: int, N: int = 120, T: int = 100) -> dict:
    pool = load_pool(dataset, default_data_dir())
    fast, reference = [], []
    for repetition in range(splits):
        seed = split_seed(dataset, N, repetition, 0)
        split = draw_split(pool, N, test_size(N, 2 / 3), seed, dataset, cap_test=True)
        ours = PlainForestClassifier(kind="extra_trees", n_trees=T, random_state=seed)
        theirs = ExtraTreesClassifier(n_estimators=4 * T, max_features="sqrt", random_state=seed, n_jobs=1)
        fast.append(ours.fit(split.X_train, split.y_train).score(split.X_test, split.y_test))
        reference.append(theirs.fit(split.X_train, split.y_train).score(split.X_test, split.y_test))
    difference, half = mean_ci(100 * (np.array(fast) - np.array(reference)))
    return {
        "dataset": dataset,
        "N": N,
        "trees": 4 * T,
        "splits": splits,
        "fast": np.mean(fast),
        "sklearn": np.mean(reference),
        "fast_minus_sklearn_pp": difference,
        "ci95_half_pp": half,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", type=int, default=20)
    parser.add_argument("--datasets", nargs="+", default=["parkinsons", "ecoli", "ionosphere", "mnist"])
    args = parser.parse_args()
    frame = pd.DataFrame([compare(d, args.splits) for d in args.datasets])
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(OUTPUT, index=False, float_format="%.4f")
    print(frame.to_string(index=False))


if __name__ == "__main__":
    main()
