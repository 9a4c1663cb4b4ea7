"""Soak test of resume: SIGKILL a sweep many times at random moments, resume each time, count the damage.

The sweep (2 datasets x N in {30, 40} x T in {10, 20} x 2 methods x R
repetitions) runs as ``python -m experiments.run``; every kill is SIGKILL to
the runner's whole process group (see :mod:`experiments.drivers.soak`). At the end the
resumed sweep is compared with an uninterrupted one.

Prints the counts and appends a row to ``results/bench/soak_resume.csv`` (with ``--record``, as
``make soak``; else to build/bench/soak_resume.csv):
kills survived, kills that struck mid-run, units lost (on disk after some kill,
missing at the end), units duplicated, and whether the raw records (timing
aside) and the tables equal the uninterrupted run's. Then two launches of the
sweep at once on one folder (one must be refused; record lines duplicated and
table cells counted twice: 0) and a copy of every record line appended to the
files (table cells counted twice: 0).

Usage: python scripts/tools/soak_resume.py [--kills 50] [--repetitions 25] [--n-jobs 1] [--seed 0]
       [--record | --out <file>]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse
import dataclasses
import os
import platform
import tempfile
from datetime import datetime, timezone

from experiments.drivers.soak import (
    compare_with,
    duplicated_lines_counted,
    kill_and_resume,
    run_to_completion,
    two_launches_on_one_folder,
)
from scripts.bench_output import add_record_flag, bench_output, write_csv


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=50)
    parser.add_argument("--repetitions", type=int, default=25, help="sweep size: 16 units per repetition")
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data-dir", default=os.environ.get("DISDF_DATA_DIR"))
    parser.add_argument("--out", type=Path, help="the CSV to append to (overrides --record)")
    add_record_flag(parser)
    args = parser.parse_args()
    if args.kills < 1 or args.repetitions < 1:
        parser.error("--kills and --repetitions must be >= 1")
    output = bench_output(args, "soak_resume", args.out)

    overrides = [
        "experiment=smoke",
        "protocol.Ns=[30,40]",
        "protocol.Ts=[10,20]",
        f"protocol.repetitions={args.repetitions}",
        f"runtime.n_jobs={args.n_jobs}",
    ]
    if args.data_dir:
        overrides.append(f"data.dir={args.data_dir}")
    n_units = 16 * args.repetitions
    with tempfile.TemporaryDirectory(prefix="disdf-soak-") as scratch:
        reference, resumed = Path(scratch) / "uninterrupted", Path(scratch) / "resumed"
        print(f"Uninterrupted sweep of {n_units} units ...", flush=True)
        run_to_completion(reference, overrides, timeout=3600)
        print(f"Sweep with {args.kills} SIGKILLs ...", flush=True)
        report = kill_and_resume(resumed, overrides, n_units, args.kills, args.seed, timeout=3600)
        compare_with(report, resumed, reference)
        print("Two launches of the sweep at once on one folder ...", flush=True)
        shared = two_launches_on_one_folder(Path(scratch) / "shared", overrides, n_units, args.repetitions)
        print("A copy of every record line appended, tables rewritten ...", flush=True)
        copied, copies_counted = duplicated_lines_counted(reference, overrides, args.repetitions)
    for event in report.events:
        print(" ", event)
    row = {k: v for k, v in dataclasses.asdict(report).items() if k != "events"}
    print(
        f"kills survived: {report.kills} ({report.kills_mid_run} with some but not all units on disk), "
        f"runs: {report.runs}, units: {report.units}, lost: {report.lost}, duplicated: {report.duplicated}, "
        f"raw records identical (timing aside): {report.records_identical}, "
        f"tables identical: {report.tables_identical}, {report.seconds:.0f} s"
    )
    for message in shared.messages:
        print(" ", message)
    print(
        f"two launches on one folder: {shared.refused} of {shared.launches} refused, "
        f"record lines duplicated: "
        f"{shared.lines_duplicated}, table cells counted twice: {shared.counted_twice}"
    )
    print(f"{copied} record lines duplicated in the files: table cells counted twice: {copies_counted}")
    row |= {
        "concurrent_launches_refused": shared.refused,
        "concurrent_lines_duplicated": shared.lines_duplicated,
        "concurrent_cells_counted_twice": shared.counted_twice,
        "duplicated_lines": copied,
        "duplicated_lines_cells_counted_twice": copies_counted,
        "n_jobs": args.n_jobs,
        "seed": args.seed,
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": f"{platform.node()} {platform.machine()}",
    }
    # Rows of earlier versions lack the newer columns (the stamp's commit and libraries among them):
    # they stay empty there. The row's own date (to the second) wins over the stamp's day.
    write_csv(output, [row])
    print(f"appended to {output}")
    ok = report.lost == report.duplicated == 0 and report.records_identical and report.tables_identical
    ok = ok and shared.refused == 1 and shared.lines_duplicated == shared.counted_twice == copies_counted == 0
    raise SystemExit(0 if ok else 1)


if __name__ == "__main__":
    main()
