"""Cell tables from the raw records: one row per (dataset, N, T, method).

Each cell: our mean accuracy and the 95% CI half-width over repetitions, the
paper's value, and the number of repetitions. DisDF cells carry
the verdict of a paired Wilcoxon signed-rank test of DisDF against gcForest
over the repetitions, Holm-corrected across the table's cells.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.analysis.plan import ALPHA
from experiments.analysis.statistics import five_by_two_interval, holm, mean_ci, paired_wilcoxon
from experiments.paths import ROOT
from experiments.running import config as _config  # noqa: F401 - registers the schema
from experiments.running.datasets import DISPLAY_NAMES
from experiments.running.records import RecordGrid, RecordStore

PAPER_TABLES = ROOT / "results" / "paper" / "paper_tables.csv"
LABELS = {"gcforest": "gcF", "disdf": "DisDF"}
#: How the reports name the datasets (the records use the lower-case keys): the registry's, so that a
#: dataset registered later is named too (:mod:`experiments.running.datasets`).
DATASET_NAMES = DISPLAY_NAMES
#: Cell columns that measure time: in REPORT.md, not in the tables, which are the same on every rerun.
TIMING_COLUMNS = ("seconds",)
log = logging.getLogger(__name__)


def load_records(output_dir: Path, grid: RecordGrid) -> pd.DataFrame:
    """The counted records of ``grid``'s config under ``output_dir/raw`` (checked against the grid)."""
    return pd.DataFrame(RecordStore(output_dir / "raw").read_config(sorted(grid.datasets), grid))


#: What a cell's ``ci_half`` is, by split scheme (:data:`experiments.running.protocol.SPLIT_SCHEMES`).
CELL_INTERVALS = {
    "holdout": "95% CI half-width (Student's t over the independent repetitions)",
    "5x2cv": "t(5)·s̄, fold-based (s̄²: the mean over the 5 repeats of their 2 folds' variance, Dietterich's "
    "estimate for one fold; the 10 folds are not independent)",
}


def cell_table(records: pd.DataFrame, paper: pd.DataFrame, scheme: str = "holdout") -> pd.DataFrame:
    """One row per (dataset, N, T, method): n, mean, interval (:data:`CELL_INTERVALS` of ``scheme``),
    the paper's value, and the paired test."""
    rows = []
    for (dataset, N, T, method), group in records.groupby(["dataset", "N", "T", "method"]):
        if scheme == "5x2cv":
            folds = group.set_index("repetition")["accuracy"]
            mean, half = five_by_two_interval(folds) if len(folds) == 10 else (folds.mean(), float("nan"))
        else:
            mean, half = mean_ci(group["accuracy"].to_numpy())
        rows.append(
            {
                "dataset": dataset,
                "N": N,
                "T": T,
                "method": method,
                "n": group["repetition"].nunique(),  # distinct repetitions (records are one per key)
                "mean": mean,
                "ci_half": half,
                "n_test": int(group["n_test"].min()),
                "n_test_max": int(group["n_test"].max()),
                "seconds": float((group["fit_seconds"] + group["predict_seconds"]).mean()),
                "n_levels": float(group["n_levels"].mean()),
            }
        )
    cells = pd.DataFrame(rows).assign(interval=scheme)
    cells = cells.merge(
        paper.rename(columns={"accuracy": "paper"}), on=["dataset", "N", "T", "method"], how="left"
    )
    inside = (cells["paper"] - cells["mean"]).abs() <= cells["ci_half"]
    cells["paper_in_ci"] = inside.where(cells["paper"].notna())
    tests = paired_tests(records)
    return cells.merge(tests, on=["dataset", "N", "T"], how="left")


def paired_tests(records: pd.DataFrame, treatment: str = "disdf", baseline: str = "gcforest") -> pd.DataFrame:
    """treatment - baseline (DisDF - gcForest unless told) per (dataset, N, T), paired by repetition;
    Holm within each dataset. Empty unless the records hold exactly those two methods."""
    columns = ["dataset", "N", "T", "n_pairs", "difference", "p_value", "p_holm", "verdict"]
    if set(records["method"]) != {treatment, baseline}:
        return pd.DataFrame(columns=columns)
    wide = records.pivot_table(index=["dataset", "N", "T", "repetition"], columns="method", values="accuracy")
    wide = wide.dropna().reset_index()
    rows = []
    for (dataset, N, T), group in wide.groupby(["dataset", "N", "T"]):
        rows.append(
            {
                "dataset": dataset,
                "N": N,
                "T": T,
                "n_pairs": len(group),
                "difference": float((group[treatment] - group[baseline]).mean()),
                "p_value": paired_wilcoxon(group[treatment].to_numpy(), group[baseline].to_numpy()),
            }
        )
    tests = pd.DataFrame(rows, columns=columns[:6])
    tests["p_holm"] = np.nan
    for index in tests.groupby("dataset").groups.values():
        tests.loc[index, "p_holm"] = holm(tests.loc[index, "p_value"].to_numpy())
    tests["verdict"] = np.select(
        [
            (tests["p_holm"] < ALPHA) & (tests["difference"] > 0),
            (tests["p_holm"] < ALPHA) & (tests["difference"] < 0),
        ],
        [f"{LABELS.get(treatment, treatment)} better", f"{LABELS.get(treatment, treatment)} worse"],
        "no significant difference",
    )
    return tests
