"""The memory check's model on fits it was not revised on: the scale benchmark's cascades.

    python scripts/evidence/memory_estimate_holdout.py --record

(-> results/bench/memory_estimate_holdout.csv; without --record: build/bench/.)

The model of memory (:mod:`disdf.cascade._fit_memory`) was revised on 2026-11-28 after the memory
grid (``results/bench/memory_estimate.csv``: one synthetic problem of 20 features) showed where it
was wrong, so the grid no longer tests it fairly. This script tests it on other fits: every cascade
fit of ``results/bench/scale.csv`` (MNIST subsets and the HIGGS-shaped problem, 5,000 to 10^6 rows;
the estimators' defaults, the full-MNIST experiment's settings with the binned engine and the
pair-sampling solver, capped trees, levels in memory and on disk), each measured in a fresh process
by ``bench_scale.py``. For each, the estimate before the fit and at the depth it grew (the levels it
kept and the ``patience`` ones after them), built from the same estimator ``bench_scale.py`` fitted,
beside its measured peak over the fit (``peak_memory_fit_gib``; the test rows are in memory too).
``commit``/``date``: the measurement's; ``estimate_commit``: this checkout's model. No fit runs here.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse

import pandas as pd

from scripts.bench.bench_memory_estimate import estimates
from scripts.bench.bench_scale import make_method, problem_data
from scripts.bench_output import RECORDED, add_record_flag, bench_output, write_csv

SCALE = RECORDED / "scale.csv"  # the committed scale benchmark
CASCADES = ("gcforest", "disdf", "gcforest_capped", "disdf_capped", "gcforest_default", "disdf_default")


def estimate_row(row: dict, data_dir: str | None) -> dict:
    n = int(row["n_train"])
    _, y, _, _ = problem_data(row["problem"], n, data_dir)
    n_features = 784 if row["problem"] == "mnist" else 28
    keep = row["keep_fitted_levels"] or "memory"
    model = make_method(row["method"], int(row["n_jobs"]), 100, keep)
    grown = min(model.max_levels, int(row["n_levels"]) + model.patience)
    peak = float(row["peak_memory_fit_gib"] or row["peak_memory_gib"])
    fresh = estimates(model, y, n_features, grown, peak)
    return {
        "problem": row["problem"], "method": row["method"], "n_train": n, "n_jobs": int(row["n_jobs"]),
        "keep_fitted_levels": keep, "levels_grown": grown,
        "estimate_gib": fresh["estimate_gib"], "estimate_at_depth_gib": fresh["estimate_at_depth_gib"],
        "peak_gib": peak, "ratio": fresh["ratio"], "ratio_at_depth": fresh["ratio_at_depth"],
        "estimate_parts": fresh["estimate_parts"], "date": row["date"], "commit": row["commit"],
        "libraries": row["libraries"], "estimate_commit": fresh["estimate_commit"],
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None, help="MNIST's folder (default: DISDF_DATA_DIR)")
    add_record_flag(parser)
    args = parser.parse_args()
    scale = pd.read_csv(SCALE, dtype=str, keep_default_na=False)
    fits = scale[scale["method"].isin(CASCADES) & (scale["status"] == "ok")].to_dict("records")
    rows = [estimate_row(row, args.data_dir) for row in fits]
    frame = pd.DataFrame(rows)
    inside = frame["ratio_at_depth"].between(0.7, 1.3)
    print(
        f"{len(frame)} fits: estimate at depth / peak {frame['ratio_at_depth'].min():.2f}-"
        f"{frame['ratio_at_depth'].max():.2f}, {int(inside.sum())} within 0.7-1.3; before the fit "
        f"{frame['ratio'].min():.2f}-{frame['ratio'].max():.2f}"
    )
    write_csv(bench_output(args, "memory_estimate_holdout"), frame, stamp={}, float_format="%.4g")


if __name__ == "__main__":
    main()
