"""How loose may the weight solver's stopping tolerance be? Accuracy and solver time against tol.

DisDF with the fast engine on datasets that are NOT in the paper (breast
cancer, wine, digits: the choice is not made on the paper's data), paper-shaped
splits (N training, round(2N/3) test), T in {100, 1000}. For every split all
tolerances share level 1's trees (same seed), so accuracy differences come from
the weights alone. ``tol`` bounds the duality gap relative to J(w), i.e. how
far J(w) may be above the optimum.

Writes results/bench/solver_tolerance.csv with ``--record`` (else build/bench/) and prints, per tol, the mean
accuracy, its paired difference to tol=1e-6 (Wilcoxon p), the mean solver
seconds per fit and the mean objective excess over the tol=1e-6 solution.

Usage: python scripts/evidence/solver_tolerance.py [--repetitions 10] [--n-jobs -1] [--record | --out <file>]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts


import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.datasets import load_breast_cancer, load_digits, load_wine

from disdf import DisDFClassifier
from disdf.cascade import fit_sharing_first_level
from experiments.analysis.statistics import paired_wilcoxon
from experiments.running.protocol import Pool, draw_split, split_seed, test_size
from scripts.bench_output import repeated_splits_arguments, write_csv

DATASETS = {"breast_cancer": load_breast_cancer, "wine": load_wine, "digits": load_digits}
TOLERANCES = (1e-6, 1e-4, 1e-3, 1e-2, 1e-1)
REFERENCE = TOLERANCES[0]


def one(dataset: str, pool: Pool, N: int, T: int, repetition: int) -> list[dict]:
    seed = split_seed(dataset, N, repetition, 0)
    split = draw_split(pool, N, test_size(N, 2 / 3), seed, dataset, cap_test=True)
    models = [
        DisDFClassifier(n_trees=T, random_state=seed, engine="fast", solver_options={"tol": tol})
        for tol in TOLERANCES
    ]
    fit_sharing_first_level(models, split.X_train, split.y_train)
    rows = []
    for tol, model in zip(TOLERANCES, models, strict=True):
        level_one = [d for forest in model.solver_diagnostics_[0] for d in forest]
        rows.append(
            {
                "dataset": dataset,
                "N": N,
                "T": T,
                "repetition": repetition,
                "tol": tol,
                "accuracy": model.score(split.X_test, split.y_test),
                "n_levels": model.n_levels_,
                "solver_seconds": sum(
                    d["seconds"] for lvl in model.solver_diagnostics_ for f in lvl for d in f
                ),
                "solver_iterations": sum(
                    d["n_iter"] for lvl in model.solver_diagnostics_ for f in lvl for d in f
                ),
                # Level 1's problems are identical across tolerances: their objectives are comparable.
                "level1_objective": float(np.sum([d["objective"] for d in level_one])),
            }
        )
    return rows


def main() -> None:
    args, output = repeated_splits_arguments(__doc__.splitlines()[0], "solver_tolerance")
    pools = {name: Pool(*loader(return_X_y=True)) for name, loader in DATASETS.items()}
    jobs = [
        delayed(one)(name, pools[name], N, T, r)
        for name in DATASETS
        for N in (50, 120)
        for T in (100, 1000)
        for r in range(args.repetitions)
    ]
    frame = pd.DataFrame([row for block in Parallel(n_jobs=args.n_jobs)(jobs) for row in block])
    write_csv(output, frame)

    key = ["dataset", "N", "T", "repetition"]
    reference = frame[frame["tol"] == REFERENCE].set_index(key)
    summary = []
    for tol, group in frame.groupby("tol"):
        paired = group.merge(reference.reset_index(), on=key, suffixes=("", "_reference"))
        summary.append(
            {
                "tol": tol,
                "accuracy": paired["accuracy"].mean(),
                "minus_reference_pp": 100 * (paired["accuracy"] - paired["accuracy_reference"]).mean(),
                "wilcoxon_p": paired_wilcoxon(paired["accuracy"], paired["accuracy_reference"]),
                "level1_objective_excess": (
                    paired["level1_objective"] / paired["level1_objective_reference"] - 1
                ).mean(),
                "solver_seconds_per_fit": paired["solver_seconds"].mean(),
                "solver_iterations_per_fit": paired["solver_iterations"].mean(),
            }
        )
    print(pd.DataFrame(summary).to_string(index=False, float_format=lambda v: f"{v:.4g}"))


if __name__ == "__main__":
    main()
