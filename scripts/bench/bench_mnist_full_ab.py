"""Full MNIST before and after: this commit against an earlier one, on the same machine, one after the other.

    python scripts/bench/bench_mnist_full_ab.py --baseline abed1ea --record
    # -> results/bench/mnist_full_ab.csv

(without ``--record``: build/bench/mnist_full_ab.csv; ``--output`` names another file).

Full-MNIST fit times wander by a factor of two between days on a shared machine
(results/mnist_full_history.csv), so a speed claim compares two commits measured in one sitting.
Each version runs its own ``scripts/tools/mnist_full.py experiment=mnist_full`` (gcForest and DisDF
on the 60,000 training images, T = 100, each method in a fresh process) from a temporary git
worktree of its commit, writing into a temporary folder: the committed results are not touched.
The versions run in the order AB BA AB ... for ``--pairs`` pairs (A the baseline), after one small
warm-up run of each (300 images, 5 trees, not kept) that fills its compiled kernels' on-disk cache,
so that no timed fit holds a compilation. A row per version, pair and method: the fit's seconds, its
peak memory, its test accuracy and levels, the version's commit.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse
import os
import subprocess
import tempfile

import pandas as pd

from scripts.bench.bench_protocol_parts_ab import git, run_order
from scripts.bench_output import add_record_flag, bench_output, write_and_show

#: The full-MNIST settings every timed run uses (the committed experiment's).
RUN_ARGUMENTS = ("experiment=mnist_full",)
#: A warm-up run: enough to compile every kernel the timed run calls, in seconds.
WARM_UP_ARGUMENTS = ("full_mnist.n_train=300", "full_mnist.n_test=100", "full_mnist.n_trees=5")
#: The columns of the driver's CSV that a row keeps.
KEPT_COLUMNS = ("method", "n_train", "n_trees", "n_levels", "test_accuracy", "fit_seconds", "peak_memory_gb")


def run_mnist_full(checkout: Path, folder: Path, extra: tuple[str, ...] = ()) -> pd.DataFrame:
    """The checkout's own full-MNIST driver, writing ``folder``: its CSV's rows."""
    script = checkout / "scripts" / "tools" / "mnist_full.py"
    command = [sys.executable, str(script), *RUN_ARGUMENTS, *extra, f"runtime.output_dir={folder}"]
    environment = {**os.environ, "PYTHONPATH": str(checkout)}
    subprocess.run(command, cwd=checkout, env=environment, check=True, stdout=subprocess.DEVNULL)
    return pd.read_csv(folder / "mnist_full.csv")


def measure(checkouts: dict[str, Path], commits: dict[str, str], pairs: int, folder: Path) -> list[dict]:
    """A warm-up run of each version, then every run of :func:`run_order`, as rows."""
    for version, checkout in checkouts.items():
        run_mnist_full(checkout, folder / f"warm_{version}", WARM_UP_ARGUMENTS)
    rows = []
    for position, (pair, version) in enumerate(run_order(pairs)):
        measured = run_mnist_full(checkouts[version], folder / f"run_{position}")
        for record in measured.to_dict("records"):
            row = {"pair": pair, "position": position, "version": version, "version_commit": commits[version]}
            rows.append(row | {column: record[column] for column in KEPT_COLUMNS})
            print(rows[-1], flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", required=True, help="git revision to compare this commit against")
    parser.add_argument("--pairs", type=int, default=1, help="runs of each version (default 1: AB)")
    parser.add_argument("--output", type=Path, help="the CSV to write (overrides --record)")
    add_record_flag(parser)
    args = parser.parse_args()
    if args.pairs < 1:
        parser.error(f"--pairs must be >= 1; got {args.pairs}")
    try:
        baseline = git("rev-parse", "--short", args.baseline)
    except subprocess.CalledProcessError as error:
        parser.error(f"--baseline {args.baseline}: {error.stderr.strip()}")
    revisions = {"baseline": baseline, "candidate": git("rev-parse", "--short", "HEAD")}
    output = bench_output(args, "mnist_full_ab", args.output)
    with tempfile.TemporaryDirectory(prefix="mnist_full_ab_") as temporary:
        folder = Path(temporary)
        checkouts = {version: folder / version for version in revisions}
        for version, commit in revisions.items():  # both from git: edits in this checkout change neither
            git("worktree", "add", "--detach", str(checkouts[version]), commit)
        try:
            rows = measure(checkouts, revisions, args.pairs, folder)
        finally:
            for checkout in checkouts.values():
                git("worktree", "remove", "--force", str(checkout))
    write_and_show(output, rows, float_format="%.4f")


if __name__ == "__main__":
    main()
