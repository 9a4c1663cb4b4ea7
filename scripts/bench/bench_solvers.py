"""Benchmark the weight solvers: time, objective and gap to the optimum.

Writes ``results/bench/solvers.csv`` with ``--record`` (else build/bench/solvers.csv): one row per
(instance, T, n, C, solver).
Instances are weight problems of eq. (70)-(72) for T in {100, 1000} trees,
n in {40, 120} held-out examples and C in {2, 10} classes, of two kinds:

* ``forest``: a random forest trained on 80 examples of a scikit-learn dataset
  (breast cancer for C = 2, digits for C = 10) predicting n other examples,
  i.e. the problem DisDF really solves;
* ``synthetic``: :func:`disdf.weights._synthetic.random_pair_statistics`.

``excess`` is (J - J*) / J*, J* being the best objective any solver reached;
``speedup_vs_qp`` is the qp time over the solver's time.

``--also [NAME] OPTION=VALUE ...`` adds a ``frank_wolfe_away`` setting (tol 1e-6 unless given),
e.g. the solver before 2026-11-23, which the committed CSV has as
``frank_wolfe_away_support_newton newton_every=20 newton_adds_trees=false``.

Usage: python scripts/bench/bench_solvers.py [--record | --out <file>] [--quick] [--also ...]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse
import platform

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.ensemble import RandomForestClassifier

from disdf.forests import SklearnFoldModel
from disdf.weights import PairStatistics, WeightProblem, random_pair_statistics, solve_weights
from scripts.bench.solver_settings import add_setting_argument, parsed_settings
from scripts.bench_output import add_record_flag, bench_output, write_csv

LAMBDA, TAU = 1.0, 1.5
SOLVER_RUNS = [
    ("qp", "qp", {}),
    ("frank_wolfe_100", "frank_wolfe", {"max_iter": 100}),
    ("frank_wolfe_1000", "frank_wolfe", {"max_iter": 1000}),
    ("frank_wolfe_away", "frank_wolfe_away", {"tol": 1e-6}),
    ("frank_wolfe_away_no_newton", "frank_wolfe_away", {"tol": 1e-6, "newton_every": 0}),
]


def forest_statistics(n: int, n_trees: int, n_classes: int, seed: int = 0) -> PairStatistics:
    X, y = (load_breast_cancer if n_classes == 2 else load_digits)(return_X_y=True)
    order = np.random.default_rng(seed).permutation(len(y))
    train, held_out = order[:80], order[80 : 80 + n]
    forest = RandomForestClassifier(n_estimators=n_trees, random_state=seed).fit(X[train], y[train])
    probabilities = SklearnFoldModel(forest, n_classes).probabilities(X[held_out])
    return PairStatistics.from_tree_probabilities(probabilities, y[held_out])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="the CSV to write (overrides --record)")
    parser.add_argument("--quick", action="store_true", help="T=100 only (a smoke run)")
    add_setting_argument(
        parser, "--also", "a frank_wolfe_away setting to run besides the fixed ones (repeatable)"
    )
    add_record_flag(parser)
    args = parser.parse_args()
    also = parsed_settings(parser, args.also)
    runs = SOLVER_RUNS + [
        (name, "frank_wolfe_away", {"tol": 1e-6, **options}) for name, options in also.items()
    ]
    output = bench_output(args, "solvers", args.out)

    rows = []
    for kind in ("forest", "synthetic"):
        for n_trees in (100,) if args.quick else (100, 1000):
            for n in (40, 120):
                for n_classes in (2, 10):
                    if kind == "forest":
                        stats = forest_statistics(n, n_trees, n_classes)
                    else:
                        stats = random_pair_statistics(n, n_trees, n_classes, seed=0)
                    problem = WeightProblem(stats, LAMBDA, TAU)
                    block = []
                    for label, solver, options in runs:
                        solution = solve_weights(problem, solver, **options)
                        block.append(
                            {
                                "instance": kind,
                                "T": n_trees,
                                "n": n,
                                "C": n_classes,
                                "n_pairs": stats.n_pairs,
                                "lambda": LAMBDA,
                                "tau": TAU,
                                "solver": label,
                                "seconds": solution.seconds,
                                "objective": solution.objective,
                                "relative_gap": solution.relative_gap,
                                "n_iter": solution.n_iter,
                                "status": solution.status,
                            }
                        )
                        print(
                            f"{kind:9s} T={n_trees:4d} n={n:3d} C={n_classes:2d} {label:26s} "
                            f"{solution.seconds:8.3f}s J={solution.objective:.6g}",
                            flush=True,
                        )
                    best = min(row["objective"] for row in block)
                    qp_seconds = block[0]["seconds"]
                    for row in block:
                        row["excess"] = (row["objective"] - best) / best if best > 0 else 0.0
                        row["speedup_vs_qp"] = qp_seconds / row["seconds"]
                    rows.extend(block)
    frame = pd.DataFrame(rows)
    frame["machine"] = f"{platform.machine()} {platform.processor() or ''}".strip()
    write_csv(output, frame)
    away = frame[frame.solver.str.startswith("frank_wolfe_away")]
    print(f"\nwrote {output}")
    columns = ["instance", "T", "n", "C", "solver", "seconds", "n_iter", "excess", "speedup_vs_qp"]
    print(away[columns].to_string(index=False))


if __name__ == "__main__":
    main()
