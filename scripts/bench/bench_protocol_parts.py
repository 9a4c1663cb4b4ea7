"""Where the whole protocol's time goes, by part, and what 2 cores would need with a part removed.

    python scripts/bench/bench_protocol_parts.py --record   # -> results/bench/protocol_parts.csv

(without ``--record``: build/bench/protocol_parts.csv; ``--output`` names another file).

For every cell (dataset, N) of experiment=paper, the protocol's split job (every T, both
methods, level 1 shared, as `make reproduce` runs it) is timed on ``--splits`` of the headline's
splits, in one process with one BLAS thread (as each worker runs), with the timers of
``bench_split_breakdown.py`` (trees, per-tree probabilities, weights, other). A row per
(dataset, N) gives seconds per split by part. ``python -m experiments.reporting.sections.speed`` turns them
into the protocol's core-minutes by part (seconds per split x the protocol's repetitions) and the
wall minutes on 2 fully used cores with each part at zero cost: a lower bound for any speed-up of
the other parts.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse
from collections import defaultdict

from threadpoolctl import threadpool_limits

from experiments.running.composition import compose_config
from scripts.bench.bench_split_breakdown import install_timers, seconds_by_part, split_job
from scripts.bench_output import add_record_flag, bench_output, write_and_show


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", type=int, default=2, help="headline splits (repetitions 0..) per cell")
    parser.add_argument("--output", type=Path, help="the CSV to write (overrides --record)")
    add_record_flag(parser)
    args = parser.parse_args()
    if args.splits < 1:
        parser.error(f"--splits must be >= 1; got {args.splits}")
    output = bench_output(args, "protocol_parts", args.output)
    cfg = compose_config("experiment=paper")
    protocol = cfg.protocol
    clock: dict[str, float] = defaultdict(float)
    install_timers(clock)
    rows = []
    with threadpool_limits(1):
        split_job(cfg.datasets[0], min(protocol.Ns), 0)()  # compile before any clock starts
        for dataset in cfg.datasets:
            for N in protocol.Ns:
                jobs = [split_job(dataset, N, repetition) for repetition in range(args.splits)]
                row = {"dataset": dataset, "N": N, "splits": args.splits, **seconds_by_part(jobs, clock)}
                row["protocol_repetitions"] = protocol.repetitions
                rows.append(row)
                print(row, flush=True)
    write_and_show(output, rows, float_format="%.4f")


if __name__ == "__main__":
    main()
