"""The weight solves of real protocol splits under the solver's defaults and other settings: time,
iterations, agreement.

    python scripts/bench/bench_split_solves.py --record \\
        --against support_newton newton_every=20 newton_adds_trees=false   # -> results/bench/split_solves.csv

(without ``--record``: build/bench/split_solves.csv; ``--output`` names another file).

For each dataset, one split at N (default 120) runs as the protocol runs it (every T, both
methods, level 1 shared) while every weight problem DisDF solves is recorded with its warm start.
Those problems are then solved again, one core, under each setting in turn, alternating, several
rounds: the settings see the same problems, so their time ratio is free of the machine's drift.
Per dataset and setting one row: solves, total seconds (median over rounds), iterations, and
against the ``--reference`` setting the largest |w - w_ref| and the largest relative difference
of the objective J (both solve to the same duality-gap tolerance).

Settings: ``default``, the solver as this checkout's protocol runs it, and every ``--against [NAME]
OPTION=VALUE ...`` (``frank_wolfe_away``'s options; the first is the reference unless
``--reference`` names another). The committed CSV compares the default with ``support_newton``
(``newton_every=20 newton_adds_trees=false``: the solver before 2026-11-23), named on the command
line like any other setting.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse

import numpy as np
from threadpoolctl import threadpool_limits

import disdf.cascade._discriminative
from disdf.weights import solve_weights
from scripts.bench.bench_split_breakdown import split_job
from scripts.bench.solver_settings import add_setting_argument, parsed_settings
from scripts.bench_output import add_record_flag, bench_output, timed, write_and_show

#: The solver's options as the protocol passes them: every other setting is measured beside it.
DEFAULT = "default"


def recorded_problems(dataset: str, N: int, repetition: int) -> list[tuple]:
    """(problem, warm start, options) of every weight solve of one protocol split."""
    problems = []
    original = disdf.cascade._discriminative.solve_weights

    def recording(problem, solver, w0=None, **options):
        problems.append((problem, None if w0 is None else w0.copy(), options))
        return original(problem, solver, w0=w0, **options)

    disdf.cascade._discriminative.solve_weights = recording
    try:
        split_job(dataset, N, repetition)()
    finally:
        disdf.cascade._discriminative.solve_weights = original
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
    add_setting_argument(
        parser,
        "--against",
        "a setting to replay the solves under besides the defaults (repeatable), "
        "e.g. support_newton newton_every=20 newton_adds_trees=false",
    )
    parser.add_argument(
        "--reference", help="the setting of the difference columns (default: the first --against)"
    )
    parser.add_argument("--output", type=Path, help="the CSV to write (overrides --record)")
    add_record_flag(parser)
    args = parser.parse_args()
    against = parsed_settings(parser, args.against)
    if not against or DEFAULT in against:
        parser.error(f"name at least one --against setting, none of them {DEFAULT!r}")
    settings = {DEFAULT: {}, **against}
    reference_name = args.reference or next(iter(against))
    if reference_name not in settings:
        parser.error(f"--reference must be one of {sorted(settings)}; got {reference_name!r}")
    output = bench_output(args, "split_solves", args.output)
    rows = []
    with threadpool_limits(1):
        for dataset in args.datasets:
            problems = recorded_problems(dataset, args.N, 0)
            for setting in settings.values():  # compile and warm up
                solve_all(problems[:4], setting)
            seconds: dict[str, list[float]] = {name: [] for name in settings}
            results = {}
            for _ in range(args.rounds):
                for name, setting in settings.items():
                    elapsed, iterations, solutions = solve_all(problems, setting)
                    seconds[name].append(elapsed)
                    results[name] = (iterations, solutions)
            reference = results[reference_name][1]
            for name, (iterations, solutions) in results.items():
                pairs = list(zip(solutions, reference, strict=True))
                rows.append(
                    {
                        "dataset": dataset,
                        "N": args.N,
                        "setting": name,
                        "options": " ".join(f"{key}={value}" for key, value in settings[name].items()),
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
    write_and_show(output, rows, float_format="%.6g")


if __name__ == "__main__":
    main()
