"""Cell tables in the paper's layout, from the raw records.

Each cell: our mean accuracy ± the 95% CI half-width over repetitions, the
paper's value in brackets, and the number of repetitions. DisDF cells carry
the verdict of a paired Wilcoxon signed-rank test of DisDF against gcForest
over the repetitions, Holm-corrected across the table's cells.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.reporting.statistics import holm, mean_ci, paired_wilcoxon
from experiments.running import config as _config  # noqa: F401 - registers the schema
from experiments.running.composition import compose_config
from experiments.running.config import ROOT
from experiments.running.plan import RunPlan, decide
from experiments.running.records import RecordGrid, RecordStore

PAPER_TABLES = ROOT / "results" / "paper" / "paper_tables.csv"
ALPHA = 0.05
LABELS = {"gcforest": "gcF", "disdf": "DisDF"}
#: How the reports name the datasets (the records use the lower-case keys).
DATASET_NAMES = {"parkinsons": "Parkinsons", "ecoli": "Ecoli", "ionosphere": "Ionosphere", "mnist": "MNIST"}
#: Cell columns that measure time: in REPORT.md, not in the tables, which are the same on every rerun.
TIMING_COLUMNS = ("seconds",)
log = logging.getLogger(__name__)


def load_records(output_dir: Path, grid: RecordGrid) -> pd.DataFrame:
    """The counted records of ``grid``'s config under ``output_dir/raw`` (checked against the grid)."""
    return pd.DataFrame(RecordStore(output_dir / "raw").read_config(sorted(grid.datasets), grid))


def experiment_records(
    experiment: str, *overrides: str, folder: str = "", root: Path = ROOT
) -> tuple[pd.DataFrame, RunPlan]:
    """The records of an experiment as committed (its config hash, its output folder, or the
    sub-folder ``folder`` of a multirun job) and its plan."""
    # Reading committed records needs the plan's grid, not the checks a run makes before writing.
    plan = decide(compose_config(f"experiment={experiment}", *overrides))
    return load_records(root / plan.runtime.output_dir / folder, plan.grid), plan


def cell_table(records: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """One row per (dataset, N, T, method): n, mean, CI, the paper's value, and the paired test."""
    rows = []
    for (dataset, N, T, method), group in records.groupby(["dataset", "N", "T", "method"]):
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
                "seconds": float((group["fit_seconds"] + group["predict_seconds"]).mean()),
                "n_levels": float(group["n_levels"].mean()),
            }
        )
    cells = pd.DataFrame(rows)
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


def _cell_text(row: pd.Series, tex: bool = False) -> str:
    pm = r"$\pm$" if tex else "±"
    ci = "n/a" if np.isnan(row["ci_half"]) else f"{row['ci_half']:.3f}"
    paper = "–" if np.isnan(row["paper"]) else f"{row['paper']:.3f}".rstrip("0").rstrip(".")
    mark = ""
    if row["method"] == "disdf" and isinstance(row.get("verdict"), str):
        mark = {"DisDF better": " ▲", "DisDF worse": " ▼"}.get(row["verdict"], "")
        if tex:
            mark = {" ▲": r" $\blacktriangle$", " ▼": r" $\blacktriangledown$"}.get(mark, "")
    return f"{row['mean']:.3f} {pm} {ci} [{paper}] ({row['n']}){mark}"


def layout(cells: pd.DataFrame, tex: bool = False) -> pd.DataFrame:
    """Rows N, columns T x method, as in the paper."""
    frame = cells.assign(text=[_cell_text(row, tex) for _, row in cells.iterrows()])
    label = {m: LABELS.get(m, m) for m in frame["method"].unique()}
    frame["column"] = [f"T={t} {label[m]}" for t, m in zip(frame["T"], frame["method"], strict=True)]
    # the paper's two methods first, in its order; any other method (e.g. an audit grid) after them
    methods = [m for m in LABELS if m in label] + sorted(set(label) - set(LABELS))
    order = [f"T={t} {label[m]}" for t in sorted(frame["T"].unique()) for m in methods]
    table = frame.pivot(index="N", columns="column", values="text")[order]
    table.columns.name = None
    return table


def table_legend(cells: pd.DataFrame) -> str:
    """What a cell says; the ▲/▼ marks only when DisDF was paired with gcF."""
    legend = "Cell: our mean accuracy ± 95% CI half-width [the paper's value] (repetitions)."
    if "verdict" in cells and cells["verdict"].notna().any():
        legend += (
            " ▲/▼: DisDF significantly better/worse than gcF (paired Wilcoxon signed-rank, Holm-corrected "
            f"across this table's cells, α = {ALPHA})."
        )
    return legend


def table_files(cells: pd.DataFrame) -> dict[str, str]:
    """Each dataset's table as CSV, Markdown and LaTeX: ``tables/<dataset>.<kind>`` -> its text."""
    legend = table_legend(cells)
    files = {}
    for dataset, group in cells.groupby("dataset"):
        ordered = group.sort_values(["N", "T", "method"]).drop(columns=list(TIMING_COLUMNS))
        files[f"tables/{dataset}.csv"] = ordered.to_csv(index=False)
        files[f"tables/{dataset}.md"] = (
            f"# {DATASET_NAMES.get(dataset, dataset)}\n\n{legend}\n\n{layout(group).to_markdown()}\n"
        )
        files[f"tables/{dataset}.tex"] = f"% {legend}\n" + layout(group, tex=True).to_latex(escape=False)
    return files
