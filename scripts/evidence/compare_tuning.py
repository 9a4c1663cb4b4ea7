"""Out-of-fold (lambda, tau) selection against fixed values, on datasets NOT in the paper.

The protocol's DisDF setting (tune=True or fixed lambda, tau) is decided here,
on scikit-learn's breast cancer, wine and digits data, so that no choice is
made on the paper's datasets or on any test split of theirs. Same protocol
shape as the paper: N training and round(2N/3) test examples, T = 100.

Writes results/bench/tuning.csv with ``--record``, else build/bench/tuning.csv (one row per
dataset, N, repetition, variant) and prints mean accuracies with a paired Wilcoxon test against gcForest.

Usage: python scripts/evidence/compare_tuning.py [--repetitions 10] [--n-jobs -1] [--record | --out <file>]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts


import pandas as pd
from joblib import Parallel, delayed
from sklearn.datasets import load_breast_cancer, load_digits, load_wine

from disdf import CascadeForestClassifier, DisDFClassifier
from experiments.analysis.statistics import paired_wilcoxon
from experiments.running.protocol import Pool, draw_split, split_seed, test_size
from scripts.bench_output import repeated_splits_arguments, write_csv

DATASETS = {"breast_cancer": load_breast_cancer, "wine": load_wine, "digits": load_digits}
VARIANTS = {
    "gcforest": lambda seed: CascadeForestClassifier(n_trees=100, random_state=seed),
    "disdf_fixed": lambda seed: DisDFClassifier(n_trees=100, random_state=seed, lambda_=1.0, tau=1.0),
    "disdf_tuned": lambda seed: DisDFClassifier(n_trees=100, random_state=seed, tune=True),
}


def one(dataset: str, pool: Pool, N: int, repetition: int) -> list[dict]:
    seed = split_seed(dataset, N, repetition, 0)
    split = draw_split(pool, N, test_size(N, 2 / 3), seed, dataset, cap_test=True)
    rows = []
    for variant, make in VARIANTS.items():
        model = make(seed).fit(split.X_train, split.y_train)
        rows.append(
            {
                "dataset": dataset,
                "N": N,
                "repetition": repetition,
                "variant": variant,
                "accuracy": model.score(split.X_test, split.y_test),
                "n_levels": model.n_levels_,
            }
        )
    return rows


def main() -> None:
    args, output = repeated_splits_arguments(__doc__.splitlines()[0], "tuning")
    pools = {name: Pool(*loader(return_X_y=True)) for name, loader in DATASETS.items()}
    jobs = [
        delayed(one)(name, pools[name], N, r)
        for name in DATASETS
        for N in (50, 120)
        for r in range(args.repetitions)
    ]
    rows = [row for block in Parallel(n_jobs=args.n_jobs)(jobs) for row in block]
    frame = pd.DataFrame(rows)
    write_csv(output, frame)
    wide = frame.pivot_table(index=["dataset", "N", "repetition"], columns="variant", values="accuracy")
    summary = wide.groupby(["dataset", "N"]).mean()
    for variant in ("disdf_fixed", "disdf_tuned"):
        summary[f"p {variant} vs gcforest"] = [
            paired_wilcoxon(group[variant].to_numpy(), group["gcforest"].to_numpy())
            for _, group in wide.groupby(["dataset", "N"])
        ]
    print(summary.to_string(float_format=lambda v: f"{v:.4f}"))
    overall = wide.mean()
    print("\nmean over all cells:", {k: round(float(v), 4) for k, v in overall.items()})
    p_value = paired_wilcoxon(wide["disdf_tuned"].to_numpy(), wide["disdf_fixed"].to_numpy())
    print(f"tuned - fixed, paired Wilcoxon p = {p_value:.4g}")
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
