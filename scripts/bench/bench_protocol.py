"""Wall time of a sample of the protocol, end to end, and whether its records equal the headline's.

    python scripts/bench/bench_protocol.py --label after --record   # -> results/bench/protocol_sample.csv

(without ``--record``: build/bench/protocol_sample.csv; ``--output`` names another file).

Runs ``python -m experiments.run experiment=paper protocol.repetitions=R`` (every cell's first R
repetitions: R / 100 of `make reproduce`, with its parallelism, ``runtime.n_jobs``) into a fresh
temporary folder and times the process from start to exit. Then compares its records with the
committed headline's in results/ key by key, every result field (scripts/tools/compare_records.py,
timing aside). Appends one row: label, commit, repetitions, units, wall seconds, the full
protocol's projected wall minutes (wall x 100 / R: the protocol is 100 such samples; compiled
kernels come from the on-disk cache in both) and how many records were compared and differed.

A "before" row runs an older commit's code from a git worktree of it:
``git worktree add /tmp/before <commit>`` then ``python scripts/bench/bench_protocol.py --label before
--checkout /tmp/before``.
Run it on an otherwise idle machine: the wall time is the measure.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse
import os
import subprocess
import tempfile
from functools import partial

import pandas as pd

from scripts.bench_output import ROOT, add_record_flag, bench_output, measurement_stamp, timed, write_csv
from scripts.tools.compare_records import compare, records_by_key


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", required=True, help="name of this measurement (e.g. before, after)")
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--checkout", type=Path, default=ROOT, help="whose code runs (default: this one)")
    parser.add_argument("--headline", type=Path, default=ROOT / "results", help="committed records")
    parser.add_argument("--output", type=Path, help="the CSV to append to (overrides --record)")
    add_record_flag(parser)
    args = parser.parse_args()
    if not 1 <= args.repetitions <= 100:
        parser.error(f"--repetitions must be in [1, 100]; got {args.repetitions}")
    output = bench_output(args, "protocol_sample", args.output)
    with tempfile.TemporaryDirectory(prefix="protocol_sample_") as folder:
        command = [
            sys.executable,
            "-m",
            "experiments.run",
            "experiment=paper",
            f"protocol.repetitions={args.repetitions}",
            f"runtime.n_jobs={args.n_jobs}",
            f"runtime.output_dir={folder}",
            "runtime.progress=false",
        ]
        environment = {**os.environ, "PYTHONPATH": str(args.checkout.resolve())}
        quiet = {"cwd": args.checkout, "env": environment, "check": True, "stdout": subprocess.DEVNULL}
        _, wall = timed(partial(subprocess.run, command, **quiet))
        sample = records_by_key(Path(folder))
    shared, differing, _, _ = compare(sample, records_by_key(args.headline))
    row = {
        "label": args.label,
        "repetitions": args.repetitions,
        "units": len(sample),
        "n_jobs": args.n_jobs,
        "wall_seconds": round(wall, 1),
        "projected_protocol_minutes": round(wall * 100 / args.repetitions / 60, 1),
        "records_compared": shared,
        "records_differing": sum(1 for _ in differing.elements()) if differing else 0,
        "fields_differing": " ".join(sorted(differing)) or "none",
    }
    # Stamped with the measured checkout's commit, not this script's.
    write_csv(output, [row], stamp=measurement_stamp(args.checkout))
    print(pd.read_csv(output).to_string(index=False))


if __name__ == "__main__":
    main()
