"""The weight solves of real protocol splits under two solver settings: time, iterations, agreement.

    python scripts/bench/bench_split_solves.py --record   # -> results/bench/split_solves.csv

(without ``--record``: build/bench/split_solves.csv; ``--output`` names another file).

For each dataset, one split at N (default 120) runs as the protocol runs it (every T, both
methods, level 1 shared) while every weight problem DisDF solves is recorded with its warm start.
Those problems are then solved again, one core, under each setting in turn, alternating, several
rounds: the settings see the same problems, so their time ratio is free of the machine's drift.
Per dataset and setting one row: solves, total seconds (median over rounds), iterations, and
against the ``--reference`` setting the largest |w - w_ref| and the largest relative difference
of the objective J (both solve to the same duality-gap tolerance).

Settings: ``newton_adds_trees`` (the default: Newton steps every iteration over the support and
the trees the gradient favours) and ``support_newton`` (before 2026-11-23: every 20 iterations,
on the support only).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

import disdf.discriminative
from disdf.weights import solve_weights
from scripts.bench.bench_split_breakdown import split_job
from scripts.bench_output import add_record_flag, bench_output, timed, write_csv

SETTINGS = {
    "newton_adds_trees": {},
    "support_newton": {"newton_every": 20, "newton_adds_trees": False},
}


def recorded_problems(dataset: str, N: int, repetition: int) -> list[tuple]:
    """(problem, warm start, options) of every weight solve of one protocol split."""
    problems = []
    original = disdf.discriminative.solve_weights

    def recording(problem, solver, w0=None, **options):
        problems.append((problem, None if w0 is None else w0.copy(), options))
        return original(problem, solver, w0=w0, **options)

    disdf.discriminative.solve_weights = recording
    try:
        split_job(dataset, N, repetition)()
    finally:
        disdf.discriminative.solve_weights = original
    return problems


def solve_all(problems: list[tuple], setting: dict) -> tuple[float, int, list]:
    solutions, seconds = timed(
        lambda: [
            solve_weights(problem, "frank_wolfe_away", w0=w0, **{**options, **setting})
            for problem, w0, options in problems
        ]
    )
    return seconds, sum(s.n_iter for s in solutions), solutions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["parkinsons", "ecoli", "ionosphere", "mnist"])
    parser.add_argument("--N", type=int, default=120)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--reference", default="support_newton", choices=sorted(SETTINGS))
    parser.add_argument("--output", type=Path, help="the CSV to write (overrides --record)")
    add_record_flag(parser)
    args = parser.parse_args()
    output = bench_output(args, "split_solves", args.output)
    rows = []
    with threadpool_limits(1):
        for dataset in args.datasets:
            problems = recorded_problems(dataset, args.N, 0)
            for setting in SETTINGS.values():  # compile and warm up
                solve_all(problems[:4], setting)
            seconds: dict[str, list[float]] = {name: [] for name in SETTINGS}
            results = {}
            for _ in range(args.rounds):
                for name, setting in SETTINGS.items():
                    elapsed, iterations, solutions = solve_all(problems, setting)
                    seconds[name].append(elapsed)
                    results[name] = (iterations, solutions)
            reference = results[args.reference][1]
            for name, (iterations, solutions) in results.items():
                pairs = list(zip(solutions, reference, strict=True))
                rows.append(
                    {
                        "dataset": dataset,
                        "N": args.N,
                        "setting": name,
                        "solves": len(problems),
                        "seconds": float(np.median(seconds[name])),
                        "iterations": iterations,
                        "max_abs_weight_difference": max(float(np.abs(s.w - r.w).max()) for s, r in pairs),
                        "max_relative_objective_difference": max(
                            abs(s.objective - r.objective) / r.objective for s, r in pairs
                        ),
                        "statuses": ",".join(sorted({s.status for s in solutions})),
                    }
                )
                print(rows[-1], flush=True)
    write_csv(output, rows, float_format="%.6g")
    print(pd.DataFrame(rows).to_string(index=False))


if __name__ == "__main__":
    main()
