"""The cell tables written in the paper's layout (rows N, columns T x method): Markdown, LaTeX, CSV.

The cells themselves are computed by :mod:`experiments.analysis.cells`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.analysis.cells import CELL_INTERVALS, DATASET_NAMES, LABELS, TIMING_COLUMNS
from experiments.analysis.plan import ALPHA


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
    scheme = cells["interval"].iloc[0] if "interval" in cells and len(cells) else "holdout"
    if scheme == "5x2cv":
        interval = CELL_INTERVALS[scheme]
        legend = f"Cell: our mean accuracy over the 10 folds ± {interval} [the paper's value] (folds)."
    else:
        legend = "Cell: our mean accuracy ± 95% CI half-width [the paper's value] (repetitions)."
    if "verdict" in cells and cells["verdict"].notna().any():
        legend += (
            " ▲/▼: DisDF significantly better/worse than gcF (paired Wilcoxon signed-rank, Holm-corrected "
            f"across this table's cells, α = {ALPHA})"
            + ("; over folds that are not independent: descriptive only." if scheme == "5x2cv" else ".")
        )
    return legend


def table_files(cells: pd.DataFrame) -> dict[str, str]:
    """Each dataset's table as CSV, Markdown and LaTeX: ``tables/<dataset>.<kind>`` -> its text."""
    legend = table_legend(cells)
    files = {}
    for dataset, group in cells.groupby("dataset"):
        # the CSVs keep their columns of 2026-11-27: the interval's kind is in the legend
        ordered = group.sort_values(["N", "T", "method"]).drop(
            columns=[*TIMING_COLUMNS, "interval", "n_test_max"], errors="ignore"
        )
        files[f"tables/{dataset}.csv"] = ordered.to_csv(index=False)
        files[f"tables/{dataset}.md"] = (
            f"# {DATASET_NAMES.get(dataset, dataset)}\n\n{legend}\n\n{layout(group).to_markdown()}\n"
        )
        files[f"tables/{dataset}.tex"] = f"% {legend}\n" + layout(group, tex=True).to_latex(escape=False)
    return files
