"""DF21 on the benchmark's own splits, fitted in DF21's venv: ``<experiment folder>/df21.csv``.

    python -m experiments.drivers.benchmark_df21 --experiment benchmark      # regime (a)
    python -m experiments.drivers.benchmark_df21 --experiment benchmark_cv   # regime (b)

(``make benchmark-df21`` runs both.) DF21 (deep-forest-py310) cannot be installed beside disdf (it pins
scikit-learn < 1.6 and needs numpy < 2.4), so it runs in a venv of its own (``build/df21-venv``, made by
the make target). For each dataset of the experiment, every repetition's split is drawn by the runner's
rule (:meth:`~experiments.running.protocol.ProtocolPlan.split` with the unit's split seed: the examples
the other methods saw), written with integer labels to a temporary ``numpy.savez`` file, and fitted by
``scripts/tools/df21_splits.py`` there, with the split seed as DF21's ``random_state`` and T trees per
forest. One row per (dataset, repetition): ``status`` is "ok" or DF21's error in one line (a status row,
never a silent gap). Rows already in the file are kept and skipped (the command resumes);
``--max-minutes`` stops before the next dataset once that much time has passed.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from disdf.utils import write_text_atomically
from experiments.paths import ROOT
from experiments.running.composition import compose_config
from experiments.running.plan import decide
from experiments.running.protocol import Unit

WORKER = ROOT / "scripts" / "tools" / "df21_splits.py"
DEFAULT_PYTHON = ROOT / "build" / "df21-venv" / "bin" / "python"
COLUMNS = (
    "dataset", "N", "repetition", "seed", "status", "accuracy", "n_test", "n_levels", "fit_seconds",
    "library_version",
)  # fmt: skip


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--experiment", default="benchmark", help="the experiment whose splits DF21 fits")
    parser.add_argument("--df21-python", type=Path, default=DEFAULT_PYTHON, help="DF21's venv's python")
    parser.add_argument("--datasets", nargs="*", help="a subset of the experiment's datasets")
    parser.add_argument("--max-minutes", type=float, help="stop before the next dataset after this long")
    args = parser.parse_args(argv)
    if not args.df21_python.is_file():
        parser.error(f"--df21-python {args.df21_python} is missing (make benchmark-df21 makes it)")
    return args


def write_splits(path: Path, protocol, dataset: str, N: int, repetitions: list[int]) -> None:
    """The repetitions' splits of ``dataset`` at ``N``, as the runner draws them, into ``path``."""
    pool = protocol.pool(dataset)
    arrays: dict[str, Any] = {}  # np.savez's keywords: numpy's stubs type them beside allow_pickle
    seeds = np.zeros(protocol.repetitions, dtype=np.int64)
    classes = np.unique(pool.y_train if pool.y_test is None else np.concatenate([pool.y_train, pool.y_test]))
    for repetition in repetitions:
        unit = Unit(dataset, N, 0, "df21", repetition)
        seed = protocol.split_seed(unit)
        split = protocol.split(pool, unit, seed)
        seeds[repetition] = seed
        arrays |= {
            f"X_train_{repetition}": split.X_train,
            f"y_train_{repetition}": np.searchsorted(classes, split.y_train),
            f"X_test_{repetition}": split.X_test,
            f"y_test_{repetition}": np.searchsorted(classes, split.y_test),
        }
    np.savez(path, seeds=seeds, **arrays)


def run_dataset(args, protocol, dataset: str, N: int, T: int, missing: list[int]) -> list[dict]:
    """DF21's rows for the ``missing`` repetitions of one dataset (one worker process)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "splits.npz"
        write_splits(path, protocol, dataset, N, missing)
        command = [str(args.df21_python), str(WORKER), str(path), "--n-trees", str(T), "--repetitions"]
        done = subprocess.run([*command, *map(str, missing)], capture_output=True, text=True, check=False)
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or len(rows) != len(missing):
        error = (done.stderr.strip().splitlines() or ["no output"])[-1][:300]
        found = {row["repetition"] for row in rows}
        rows += [
            {"repetition": r, "seed": None, "status": f"worker failed: {error}"}
            for r in missing
            if r not in found
        ]
    return [{"dataset": dataset, "N": N, **row} for row in rows]


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    plan = decide(compose_config(f"experiment={args.experiment}"))
    protocol = plan.protocol
    if len(protocol.Ts) != 1:
        raise SystemExit(f"experiment={args.experiment} has Ts={list(protocol.Ts)}: DF21 runs one T")
    output = Path(plan.runtime.output_dir) / "df21.csv"
    done = pd.read_csv(output) if output.is_file() else pd.DataFrame(columns=COLUMNS)
    started = time.monotonic()
    for dataset in args.datasets or plan.datasets:
        for N in protocol.Ns:
            have = set(done.loc[(done.dataset == dataset) & (done.N == N), "repetition"])
            missing = [r for r in range(protocol.repetitions) if r not in have]
            if not missing:
                continue
            if args.max_minutes is not None and time.monotonic() - started > 60 * args.max_minutes:
                print(f"stopped after {args.max_minutes} minutes, before {dataset}")
                return
            found = run_dataset(args, protocol, dataset, N, protocol.Ts[0], missing)
            rows = pd.DataFrame(found).reindex(columns=COLUMNS)
            done = pd.concat([done, rows], ignore_index=True)
            text = done.sort_values(["dataset", "N", "repetition"]).to_csv(index=False)
            write_text_atomically(output, text)  # a kill mid-write leaves the previous file
            ok = rows[rows.status == "ok"]
            print(
                f"{dataset} N={N}: {len(ok)}/{len(rows)} ok, mean accuracy {ok.accuracy.mean():.4f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
