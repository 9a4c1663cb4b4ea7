"""Are the baselines' extremely randomised trees (max_features="sqrt") on the fast engine the same
learner as scikit-learn's ExtraTreesClassifier? Same splits, paired by split, and a TOST.

    python scripts/evidence/compare_extra_trees.py --record   # -> results/bench/extra_trees_engines.csv

(without ``--record``: build/bench/extra_trees_engines.csv).

Headline splits (the protocol's seeds) at N in {50, 120}, 400 trees (T = 100 times 4), 25 splits
per (dataset, N): mean accuracy of each, the paired difference with its 95 % t-interval, and,
pooled over all 200 splits, a paired TOST with the margin declared here before the run: ±1.0
percentage point (the baselines' differences to the cascades that the report draws conclusions
from are 1.4-2.8 points; scikit-learn itself would take hours for the full protocol).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse

import numpy as np
from sklearn.ensemble import ExtraTreesClassifier

from disdf import PlainForestClassifier
from experiments.analysis.plan import MARGIN_PP
from experiments.analysis.statistics import mean_ci, tost_paired
from experiments.running.config import default_data_dir
from experiments.running.protocol import draw_split, load_pool, split_seed, test_size
from scripts.bench_output import add_record_flag, bench_output, write_and_show


def compare(dataset: str, splits: int, N: int, T: int = 100) -> dict:
    pool = load_pool(dataset, default_data_dir())
    fast, reference = [], []
    for repetition in range(splits):
        seed = split_seed(dataset, N, repetition, 0)
        split = draw_split(pool, N, test_size(N, 2 / 3), seed, dataset, cap_test=True)
        ours = PlainForestClassifier(kind="extra_trees", n_trees=T, random_state=seed)
        theirs = ExtraTreesClassifier(n_estimators=4 * T, max_features="sqrt", random_state=seed, n_jobs=1)
        fast.append(ours.fit(split.X_train, split.y_train).score(split.X_test, split.y_test))
        reference.append(theirs.fit(split.X_train, split.y_train).score(split.X_test, split.y_test))
    differences = 100 * (np.array(fast) - np.array(reference))
    difference, half = mean_ci(differences)
    return {
        "differences": differences,
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
    parser.add_argument("--splits", type=int, default=25)
    parser.add_argument("--Ns", type=int, nargs="+", default=[50, 120])
    parser.add_argument("--datasets", nargs="+", default=["parkinsons", "ecoli", "ionosphere", "mnist"])
    add_record_flag(parser)
    args = parser.parse_args()
    output = bench_output(args, "extra_trees_engines")
    rows = [compare(d, args.splits, N) for d in args.datasets for N in args.Ns]
    pooled = np.concatenate([row.pop("differences") for row in rows])
    tost = tost_paired(pooled, MARGIN_PP)
    mean, half = mean_ci(pooled)
    rows.append(
        {
            "dataset": "pooled",
            "splits": len(pooled),
            "fast_minus_sklearn_pp": mean,
            "ci95_half_pp": half,
            "tost_margin_pp": MARGIN_PP,
            "tost_p": tost["p_tost"],
            "equivalent": tost["equivalent"],
        }
    )
    write_and_show(output, rows, float_format="%.4f")


if __name__ == "__main__":
    main()
