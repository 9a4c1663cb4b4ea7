"""Does the memory check tell the truth? Its estimate beside the measured peak, across a grid of fits.

    python scripts/bench/bench_memory_estimate.py --record   # -> results/bench/memory_estimate.csv

(without ``--record``: build/bench/; ``--resume`` keeps the rows the output file has and fits the
rest, so an interrupted grid goes on where it stopped). The data: ``make_classification`` shaped
like the trial that was killed at 21 GiB (20 features, 10 informative and 5 redundant, 3 classes,
``random_state=0``), its first n rows. The grid: n in {1,000, 5,000, 20,000, 60,000}, both cascades
with their defaults at T = 100 (DisDF's solver ``frank_wolfe_away`` on at most 5,000 drawn pairs
per fold model), ``n_jobs`` 1 and 2, levels in memory and on disk; and DisDF with every other solver
(``frank_wolfe``, ``qp``, ``uniform``, ``stochastic_frank_wolfe``) and with every pair
(``max_pairs=None``, up to the n whose pair rows fit) at ``n_jobs=2``; and gcForest's out-of-bag
levels (``gcforest_out_of_bag``: ``out_of_bag=True``) at ``n_jobs`` 1 and 2.

Each fit runs in a fresh process after a small warm-up fit (compiled code compiled or read from
numba's cache), and its peak resident memory (``ru_maxrss``: the process, the data, the fit) is
compared with two estimates of the same model (:func:`disdf.cascade._fit_memory.estimator_fit_memory`):

* ``estimate_gib``: what the check reads before the fit, with the trees of ``max_levels`` levels
  (the most the fit may grow: the check refuses what could not fit at the worst);
* ``estimate_at_depth_gib``: the same with the levels the fit grew (kept ones and the ``patience``
  ones after them), which a fit cannot know before it starts: how right the model of memory is.

``ratio`` columns are estimate / peak; the goal is 0.7-1.3 for the estimate at depth.
``estimate_commit``: the commit whose model gave the estimates. ``--re-estimate`` fits nothing: it
recomputes the estimates of the file's rows with this checkout's model, beside the peaks as they were
measured (``date`` and ``commit``: the measurement's), so that a change of the model is judged on
the same fits.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse
import functools
import shutil
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import numpy as np
import pandas as pd

from disdf.utils import peak_memory_gib
from scripts.bench_output import add_record_flag, bench_output, measurement_stamp, write_csv

SIZES = (1_000, 5_000, 20_000, 60_000)
OTHER_SOLVERS = ("frank_wolfe", "qp", "uniform", "stochastic_frank_wolfe")
#: Every pair's rows beyond this n would not leave the rest of the grid room on a 24 GiB machine.
EVERY_PAIR_MAX_N = 5_000
KEY = ["method", "n_train", "n_jobs", "solver", "max_pairs", "keep_fitted_levels"]
GIB = 2**30
SCRATCH = Path(__file__).resolve().parents[2] / "build" / "memory_estimate_levels"


def grid(sizes: tuple[int, ...]) -> list[dict]:
    """The fits (module docstring), smallest n first."""
    rows = []
    for n in sorted(sizes):
        for method in ("gcforest", "disdf"):
            solver = "frank_wolfe_away" if method == "disdf" else ""
            for n_jobs in (1, 2):
                rows.append(fit_row(method, n, n_jobs, solver, "auto", "memory"))
            rows.append(fit_row(method, n, 2, solver, "auto", "disk"))
        for solver in OTHER_SOLVERS:
            rows.append(fit_row("disdf", n, 2, solver, "auto", "memory"))
        if n <= EVERY_PAIR_MAX_N:
            rows.append(fit_row("disdf", n, 2, "frank_wolfe_away", "None", "memory"))
        for n_jobs in (1, 2):
            rows.append(fit_row("gcforest_out_of_bag", n, n_jobs, "", "auto", "memory"))
    return rows


def fit_row(method: str, n: int, n_jobs: int, solver: str, max_pairs: str, keep: str) -> dict:
    return {
        "method": method, "n_train": n, "n_jobs": n_jobs, "solver": solver,
        "max_pairs": max_pairs if method == "disdf" else "", "keep_fitted_levels": keep,
    }  # fmt: skip


def data(n: int) -> tuple[np.ndarray, np.ndarray]:
    from sklearn.datasets import make_classification

    X, y = make_classification(
        n_samples=max(n, 1_000), n_features=20, n_informative=10, n_redundant=5, n_classes=3, random_state=0
    )
    return X[:n].astype(np.float32), y[:n]


def estimator(row: dict, folder: str | None):
    from disdf import CascadeForestClassifier, DisDFClassifier

    params = {"n_trees": 100, "n_jobs": row["n_jobs"], "random_state": 0}
    if row["keep_fitted_levels"] == "disk":
        params |= {"keep_fitted_levels": "disk", "fitted_levels_dir": folder}
    if row["method"].startswith("gcforest"):
        return CascadeForestClassifier(**params, out_of_bag=row["method"] == "gcforest_out_of_bag")
    max_pairs = None if row["max_pairs"] == "None" else "auto"
    return DisDFClassifier(**params, solver=row["solver"], max_pairs=max_pairs)


@functools.cache
def commit_of_checkout() -> str:
    """The commit whose model of memory gave a row's estimates (``estimate_commit``)."""
    return measurement_stamp()["commit"]


def estimates(model, y: np.ndarray, n_features: int, grown: int, peak: float) -> dict:
    """The check's estimate before the fit and at the depth grown, by the current model of memory, and
    each over the measured ``peak`` (GiB)."""
    from disdf.cascade import estimator_fit_memory

    counts = np.unique(y, return_counts=True)[1]
    before = estimator_fit_memory(model, counts, n_features).total / GIB
    at_depth = estimator_fit_memory(model, counts, n_features, levels=grown)
    return {
        "estimate_gib": before,
        "estimate_at_depth_gib": at_depth.total / GIB,
        "ratio": before / peak,
        "ratio_at_depth": at_depth.total / GIB / peak,
        "estimate_parts": at_depth.describe(),
        "estimate_commit": commit_of_checkout(),
    }


def re_estimated(row: dict) -> dict:
    """A measured row with its estimates from the current model (the peak as it was measured)."""
    _, y = data(int(row["n_train"]))
    settings = {**row, "n_jobs": int(row["n_jobs"])}
    model = estimator(settings, None)
    return {**row, **estimates(model, y, 20, int(row["levels_grown"]), float(row["peak_gib"]))}


def measure(row: dict) -> dict:
    """One fit in this (fresh) process: its peak beside the two estimates."""
    from sklearn.base import clone

    X, y = data(row["n_train"])
    SCRATCH.mkdir(parents=True, exist_ok=True)
    folder = tempfile.mkdtemp(dir=SCRATCH)
    try:
        model = estimator(row, folder)
        warm = np.concatenate([np.flatnonzero(y == label)[:30] for label in np.unique(y)])
        warm_model = clone(model)
        if row["keep_fitted_levels"] == "disk":  # its own folder: the timed fit's stays empty
            warm_model.set_params(fitted_levels_dir=tempfile.mkdtemp(dir=SCRATCH))
        warm_model.fit(X[warm], y[warm])
        start = time.perf_counter()
        model.fit(X, y)
        seconds = time.perf_counter() - start
        peak = peak_memory_gib()
    finally:
        shutil.rmtree(SCRATCH, ignore_errors=True)
    grown = min(model.max_levels, model.n_levels_ + model.patience)
    fresh = estimates(model, y, X.shape[1], grown, peak)
    return {
        **row,
        "estimate_gib": fresh["estimate_gib"],
        "estimate_at_depth_gib": fresh["estimate_at_depth_gib"],
        "peak_gib": peak,
        "ratio": fresh["ratio"],
        "ratio_at_depth": fresh["ratio_at_depth"],
        "levels_grown": grown,
        "minutes": round(seconds / 60, 1),  # for planning a rerun, not a timing (other jobs may run)
        "estimate_parts": fresh["estimate_parts"],
        "estimate_commit": fresh["estimate_commit"],
    }  # the columns in the file's order


def key(row: dict) -> tuple:
    return tuple(str(row[name]) for name in KEY)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=list(SIZES))
    parser.add_argument("--resume", action="store_true", help="keep the rows the output file has")
    parser.add_argument(
        "--re-estimate", action="store_true",
        help="no fits: the output file's measured rows with the current model's estimates",
    )  # fmt: skip
    add_record_flag(parser)
    args = parser.parse_args()
    output = bench_output(args, "memory_estimate")
    if args.re_estimate:
        rows = pd.read_csv(output, dtype=str, keep_default_na=False).to_dict("records")
        write_csv(output, [re_estimated(row) for row in rows], stamp={}, float_format="%.4g")
        print(f"re-estimated {len(rows)} rows of {output}")
        return
    done: set[tuple] = set()
    if args.resume and output.is_file():
        done = {key(row) for row in pd.read_csv(output, keep_default_na=False).to_dict("records")}
    for row in grid(tuple(args.sizes)):
        if key(row) in done:
            continue
        print(f"{row}", flush=True)
        with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
            measured = pool.submit(measure, row).result()
        print(
            f"  estimate {measured['estimate_gib']:.2f} GiB "
            f"(at depth {measured['estimate_at_depth_gib']:.2f}), "
            f"peak {measured['peak_gib']:.2f} GiB, {measured['minutes']} min",
            flush=True,
        )
        write_csv(output, [measured], float_format="%.4g")  # after every fit: resumable
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
