"""REPORT.md section "Limitations": what these records cannot show, with the numbers that bound it.

The grid's size and the audit's T are read from the audit's records, the ties from the headline's,
Parkinsons' size from the headline's split sizes; the rest are facts of the code and the protocol.
"""

from __future__ import annotations

import pandas as pd

from experiments.analysis.cells import DATASET_NAMES
from experiments.analysis.claim_qualifiers import tie_shares
from experiments.reporting.section import Rendered, ReportContext, Section
from experiments.reporting.sections.audit import AUDIT_T, GRID, mechanism_records
from experiments.reporting.sections.mgs import SCANNER

#: The paper's count of Parkinsons examples (its section 6); the UCI file has 195.
PAPER_PARKINSONS_ROWS = 197


def limitations_lines(headline: pd.DataFrame, grid: pd.DataFrame) -> list[str]:
    """The section's Markdown lines."""
    ties = ", ".join(
        f"{DATASET_NAMES.get(d, d)} {low:.0%}–{high:.0%}"
        for d in sorted(set(headline["dataset"]))
        for low, high in [tie_shares(headline, d)]
    )
    points = grid["method"].nunique() if not grid.empty else 0
    grid_reps = int(grid.groupby(["dataset", "N", "method"])["repetition"].nunique().min()) if points else 0
    parkinsons = headline[headline["dataset"] == "parkinsons"]
    rows = int((parkinsons["N"] + parkinsons["n_test"]).max()) if not parkinsons.empty else None
    return [
        "## Limitations",
        "",
        "- **Four datasets, one file each.** Our CIs are conditional on each dataset's file (Parkinsons at "
        "N = 120 uses all of it); for new data of the same kind the Nadeau–Bengio intervals of the verdict "
        "are wider, and the advice leans on the comparison across 43 other tables (regime (a); the "
        "full-data regime b is reported there when run).",
        "- **λ and τ are fixed** at 1 in every headline number, chosen before any run; tuned DisDF is "
        "measured on the first 30 splits of every cell and on the 43 tables, not on all 100 splits.",
        f"- **The λ/τ grid is small**: {points} points ({grid_reps} repetitions per cell) at T = {AUDIT_T}, "
        "so the test-set choice emulated in the predictive check is a lower bound on what a finer search "
        "adds."
        if points
        else "- **No λ/τ grid was run** (`make audit`): the test-set choice of λ is not emulated.",
        f"- **The mechanisms run at T = {AUDIT_T} only**, the paper's base code among them (refit test "
        "vectors and `min_samples_split = 11`, alone and together); their effects at other T are assumed.",
        "- **Parkinsons' random splits leak subjects** (32 subjects, about six recordings each); "
        "subject-disjoint splits lower both methods' accuracy and shrink DisDF's advantage (APPENDIX.md, "
        "mechanisms).",
        f"- **Ties**: in a cell the share of splits where both methods score the same is {ties}; the claims "
        "use paired t-tests at the split, where ties are ordinary zeros.",
        (
            f"- **Parkinsons has {rows} examples here** (the UCI file) against the paper's "
            f"{PAPER_PARKINSONS_ROWS}."
            if rows
            else f"- **Parkinsons' size** is not in the records; the paper reports {PAPER_PARKINSONS_ROWS}."
        ),
        "- **The paper's values are read as samples** under a model of how they were made (each cell a mean "
        "of n of our splits); the paper states neither its repetitions nor its spread.",
        f"- **Scanning's verdict** holds for {SCANNER}, not for gcForest's scanner.",
        "",
    ]


def render(context: ReportContext) -> Rendered | None:
    """The limitations; None without headline records."""
    headline, _ = context.records("paper")
    if headline.empty:
        return None
    return Rendered("\n".join(limitations_lines(headline, mechanism_records(GRID, context))))


SECTION = Section("limitations", "the records of experiment=paper and of the audit's λ/τ grid", render)
