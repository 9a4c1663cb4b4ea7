"""Expected objective gap of pair-sampled Frank-Wolfe against the exact optimum (problems small enough).

Instances: a random forest (T = 100) trained on 80 examples of breast cancer
(C = 2) or digits (C = 10) predicting n in {100, 300} other examples, as in
``scripts/bench/bench_solvers.py``; (lambda, tau) in {(1, 1), (1, 1.5)}. The exact
optimum J* comes from ``frank_wolfe_away`` (tol 1e-10; checked against cvxpy in
the tests). For each batch size B and iteration count K, 5 seeds of
:func:`disdf.weights._stochastic_frank_wolfe.stochastic_frank_wolfe`; the excess
(J(w) - J*) / J* is evaluated with every pair.

Writes ``results/bench/stochastic_fw.csv`` (with ``--record``; else build/bench/): mean, max and
standard deviation of the excess over the seeds, mean seconds, and the memory of one batch (B x T
floats) against that of every different-class pair (n_pairs x T floats).

Usage: python scripts/evidence/bench_stochastic_fw.py [--record | --out <file>]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse
import platform
from functools import partial

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.ensemble import RandomForestClassifier

from disdf import SampledWeightProblem
from disdf.forests import SklearnFoldModel
from disdf.weights import PairStatistics, WeightProblem, solve_weights, stochastic_frank_wolfe
from scripts.bench_output import add_record_flag, bench_output, timed, write_csv

N_TREES = 100
SEEDS = range(5)


def held_out_probabilities(n: int, n_classes: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    X, y = (load_breast_cancer if n_classes == 2 else load_digits)(return_X_y=True)
    order = np.random.default_rng(seed).permutation(len(y))
    train, held_out = order[:80], order[80 : 80 + n]
    forest = RandomForestClassifier(n_estimators=N_TREES, random_state=seed).fit(X[train], y[train])
    return SklearnFoldModel(forest, n_classes).probabilities(X[held_out]), y[held_out]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="the CSV to write (overrides --record)")
    add_record_flag(parser)
    args = parser.parse_args()
    output = bench_output(args, "stochastic_fw", args.out)
    rows = []
    for n_classes in (2, 10):
        for n in (100, 300):
            probabilities, y = held_out_probabilities(n, n_classes)
            stats = PairStatistics.from_tree_probabilities(probabilities, y)
            for lambda_, tau in ((1.0, 1.0), (1.0, 1.5)):
                problem = WeightProblem(stats, lambda_, tau)
                exact = solve_weights(problem, "frank_wolfe_away", tol=1e-10)
                for batch_size in (256, 1024):
                    for max_iter in (100, 500, 2000):
                        excess, seconds = [], []
                        for seed in SEEDS:
                            sampled = SampledWeightProblem(probabilities, y, lambda_, tau, random_state=seed)
                            run, elapsed = timed(
                                partial(
                                    stochastic_frank_wolfe, sampled, batch_size=batch_size, max_iter=max_iter
                                )
                            )
                            seconds.append(elapsed)
                            excess.append((problem.objective(run.w) - exact.objective) / exact.objective)
                        rows.append(
                            {
                                "C": n_classes,
                                "n": n,
                                "T": N_TREES,
                                "lambda": lambda_,
                                "tau": tau,
                                "n_pairs": stats.n_pairs,
                                "batch_size": batch_size,
                                "max_iter": max_iter,
                                "mean_excess": float(np.mean(excess)),
                                "max_excess": float(np.max(excess)),
                                "sd_excess": float(np.std(excess, ddof=1)),
                                "seconds": float(np.mean(seconds)),
                                "exact_seconds": exact.seconds,
                                "batch_mb": batch_size * N_TREES * 8 / 1e6,
                                "all_pairs_mb": stats.n_pairs * N_TREES * 8 / 1e6,
                                "seeds": len(SEEDS),
                            }
                        )
                        print(
                            f"C={n_classes} n={n} lambda={lambda_} tau={tau} B={batch_size} K={max_iter}: "
                            f"mean excess {np.mean(excess):.2e} (max {np.max(excess):.2e}), "
                            f"{np.mean(seconds):.3f} s",
                            flush=True,
                        )
    write_csv(output, pd.DataFrame(rows).assign(machine=f"{platform.node()} {platform.machine()}"))
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
