"""The protocol's core-minutes, this checkout against an earlier commit, measured in alternation.

    python scripts/bench/bench_protocol_parts_ab.py --baseline 718cb82 --record
    # -> results/bench/protocol_parts_ab.csv

(without ``--record``: build/bench/protocol_parts_ab.csv; ``--output`` names another file).

Each checkout's own ``bench_protocol_parts.py`` (this one's, and the baseline's from a temporary
git worktree) runs ``--pairs`` times, in the order AB BA AB BA ..., so that a machine that speeds
up or slows down steadily over the session charges both versions alike; one warm-up run of each
(``--splits 1``, not kept) fills the compiled kernels' on-disk caches first. A row per run: its
pair and position, the version (baseline or candidate) and its commit, the protocol's core-minutes
by part (:func:`experiments.reporting.sections.speed.core_minutes_by_part`), the run's user and
system CPU seconds, :data:`MARGIN`, and ``--why`` (when given: why this comparison was run, e.g. a
rerun decided after seeing an earlier one, which the report then says).

The speed report tests non-inferiority on these rows: is the candidate's core-minutes at most
MARGIN above the baseline's (one-sided t-test of the pairs' log ratios)? The margin is declared
here, before any measurement, and written into every row.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse
import os
import resource
import subprocess
import tempfile

import pandas as pd

from experiments.analysis.plan import TIMING_MARGIN as MARGIN
from experiments.reporting.sections.speed import core_minutes_by_part
from scripts.bench_output import ROOT, add_record_flag, bench_output, timed, write_csv

#: Where a checkout's scripts folder keeps the parts benchmark (in bench/ since the scripts have folders).
PARTS_SCRIPTS = ("bench/bench_protocol_parts.py", "bench_protocol_parts.py")


def run_order(pairs: int) -> list[tuple[int, str]]:
    """(pair, version) of every run: AB BA AB BA ..., A the baseline and B the candidate."""
    order = []
    for pair in range(pairs):
        versions = ("baseline", "candidate") if pair % 2 == 0 else ("candidate", "baseline")
        order += [(pair, version) for version in versions]
    return order


def parts_script(checkout: Path) -> Path:
    """The checkout's protocol-parts benchmark."""
    for name in PARTS_SCRIPTS:
        if (checkout / "scripts" / name).exists():
            return checkout / "scripts" / name
    raise FileNotFoundError(f"{checkout / 'scripts'} has none of {', '.join(PARTS_SCRIPTS)}")


def measure(checkout: Path, splits: int, output: Path) -> dict[str, float]:
    """One run of the checkout's parts benchmark: core-minutes by part, CPU seconds and wall seconds."""
    command = [sys.executable, str(parts_script(checkout)), "--output", str(output), "--splits", str(splits)]
    environment = {**os.environ, "PYTHONPATH": str(checkout)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    run = {"cwd": checkout, "env": environment, "check": True, "stdout": subprocess.DEVNULL}
    _, wall = timed(lambda: subprocess.run(command, **run))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    minutes = core_minutes_by_part(pd.read_csv(output))
    return {
        "core_minutes": sum(minutes.values()),
        **{f"{part}_core_minutes": value for part, value in minutes.items()},
        "user_cpu_seconds": after.ru_utime - before.ru_utime,
        "system_cpu_seconds": after.ru_stime - before.ru_stime,
        "wall_seconds": wall,
    }


def alternate(
    checkouts: dict[str, Path], commits: dict[str, str], pairs: int, splits: int, folder: Path
) -> list[dict[str, object]]:
    """Every run of :func:`run_order`, after one warm-up run of each version, as rows."""
    for version, checkout in checkouts.items():  # compile and cache the kernels first
        measure(checkout, 1, folder / f"warm_{version}.csv")
    rows = []
    for position, (pair, version) in enumerate(run_order(pairs)):
        row = {"pair": pair, "position": position, "version": version, "version_commit": commits[version]}
        row |= {"splits": splits, **measure(checkouts[version], splits, folder / "run.csv"), "margin": MARGIN}
        rows.append(row)
        print(row, flush=True)
    return rows


def git(*arguments: str) -> str:
    done = subprocess.run(["git", *arguments], cwd=ROOT, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", required=True, help="git revision to compare this checkout against")
    parser.add_argument("--pairs", type=int, default=3, help="runs of each version (default 3)")
    parser.add_argument("--splits", type=int, default=2, help="headline splits per cell and run (default 2)")
    parser.add_argument("--output", type=Path, help="the CSV to write (overrides --record)")
    parser.add_argument(
        "--why", default="", help="why this comparison was run, e.g. after which result (kept in every row)"
    )
    add_record_flag(parser)
    args = parser.parse_args()
    if args.pairs < 2 or args.splits < 1:
        parser.error(f"--pairs must be >= 2 and --splits >= 1; got {args.pairs} and {args.splits}")
    try:
        baseline_commit = git("rev-parse", "--short", args.baseline)
    except subprocess.CalledProcessError as error:
        parser.error(f"--baseline {args.baseline}: {error.stderr.strip()}")
    dirty = "+dirty" if git("status", "--porcelain", "--untracked-files=no") else ""
    commits = {"baseline": baseline_commit, "candidate": git("rev-parse", "--short", "HEAD") + dirty}
    output = bench_output(args, "protocol_parts_ab", args.output)
    with tempfile.TemporaryDirectory(prefix="protocol_parts_ab_") as folder:
        baseline = Path(folder) / "baseline"
        git("worktree", "add", "--detach", str(baseline), baseline_commit)
        try:
            checkouts = {"baseline": baseline, "candidate": ROOT}
            rows = alternate(checkouts, commits, args.pairs, args.splits, Path(folder))
        finally:
            git("worktree", "remove", "--force", str(baseline))
    if args.why:  # the report says why a comparison was run when it was decided after another's result
        rows = [row | {"why": args.why} for row in rows]
    write_csv(output, rows, float_format="%.4f")
    print(pd.DataFrame(rows).drop(columns="version_commit").to_string(index=False))


if __name__ == "__main__":
    main()
