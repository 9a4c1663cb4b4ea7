"""What sentence 15 at gcForest's own scanner costs: one split of ``experiment=mgs_full`` (500 trees per
scanning forest, stride 1; both cascades, T = 100 and 1000, the headline's MNIST split at N) timed, and
the declared run (N = 50 and 80, 30 splits each) projected from it against the 8-hour budget on 2 cores.

The split runs in a subprocess (``python -m experiments.run`` into a scratch folder, one worker), on a
quiet machine: its wall and CPU seconds (the child's ``resource`` usage) are the measurement. The
projection assumes every split of an N costs what the measured one did and that two splits run at once
on 2 cores; N = 80 is scaled from N = 50 by the ratio of their scanned instances (80/50), a stated
assumption, not a measurement, unless ``--sizes 50 80`` measures both.

Usage: python scripts/bench/bench_mgs_full_cost.py [--sizes 50] [--record]
       -> build/bench/mgs_full_cost.csv (results/bench/ with --record)
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse
import os
import resource
import shutil
import signal
import subprocess
import tempfile
import time

from scripts.bench_output import add_record_flag, bench_output, measurement_stamp, write_csv

ROOT = Path(__file__).resolve().parents[2]
#: The declared run (configs/experiment/mgs_full.yaml) and its budget.
DECLARED_SIZES, SPLITS, BUDGET_HOURS, CORES = (50, 80), 30, 8.0, 2


def one_split(N: int, cap_minutes: float) -> dict:
    """Wall and CPU seconds of one mgs_full split at N (its four units), in a fresh subprocess; stopped
    at ``cap_minutes`` (then ``complete`` is False and the seconds are a lower bound)."""
    folder = Path(tempfile.mkdtemp(prefix="mgs_full_cost_"))
    overrides = [
        "experiment=mgs_full",
        f"protocol.Ns=[{N}]",
        "protocol.repetitions=1",
        "runtime.n_jobs=1",
        "runtime.progress=false",
        f"runtime.output_dir={folder}",
    ]
    command = [sys.executable, "-m", "experiments.run", *overrides]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=ROOT, start_new_session=True)
    try:
        complete = process.wait(timeout=cap_minutes * 60) == 0
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)  # the run and any worker it started
        process.wait()
        complete = False
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    shutil.rmtree(folder, ignore_errors=True)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {
        "N": N,
        "complete": complete,
        "wall_seconds": round(wall, 1),
        "cpu_seconds": round(cpu, 1),
        "peak_rss_gib": round(after.ru_maxrss / 2**20, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[50])
    parser.add_argument(
        "--cap-minutes",
        type=float,
        default=20.0,
        help="stop a split after this long: its time is then a lower bound (20 min at N = 50 already "
        "projects past the budget)",
    )
    add_record_flag(parser)
    args = parser.parse_args()
    path = bench_output(args, "mgs_full_cost")
    stamp = measurement_stamp()  # the code the measurement starts from, not the checkout at its end
    measured = {N: one_split(N, args.cap_minutes) for N in args.sizes}
    rows = []
    for N in DECLARED_SIZES:
        base = measured.get(N) or measured[min(measured)]
        scale = 1.0 if N in measured else N / base["N"]
        seconds = base["wall_seconds"] * scale
        rows.append(
            {
                **base,
                "N": N,
                "measured": N in measured,
                "split_seconds": round(seconds, 1),
                "splits": SPLITS,
                "projected_hours_on_2_cores": round(seconds * SPLITS / CORES / 3600, 1),
            }
        )
    total = sum(row["projected_hours_on_2_cores"] for row in rows)
    for row in rows:
        row |= {
            "declared_run_hours": round(total, 1),
            "budget_hours": BUDGET_HOURS,
            "fits": total <= BUDGET_HOURS,
        }
    write_csv(path, rows, stamp=stamp)
    print(
        f"one split at N = {min(measured)}: {measured[min(measured)]}; the declared run: {total:.1f} h on "
        f"{CORES} cores against a budget of {BUDGET_HOURS:g} h"
    )


if __name__ == "__main__":
    main()
