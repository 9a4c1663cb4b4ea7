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
        "- **λ and τ are fixed** at 1 in every headline number (chosen before any run, never on test "
        "data). A different fixed value could change DisDF − gcF; out-of-fold tuning was no better on "
        "other datasets.",
        f"- **The λ/τ grid is small**: {points} points ({grid_reps} repetitions per cell), so the oracle's "
        "gain "
        "from choosing on test data is a lower bound on what a finer search could add."
        if points
        else "- **No λ/τ grid was run** (`make audit`): the oracle's gain is not measured.",
        f"- **The audit runs at T = {AUDIT_T} only**: a mechanism's effect at other T is assumed, not "
        "measured.",
        "- **Our code differs from the paper's base code** in two ways the audit measures: the test vectors "
        "come from the cross-fitted fold models, not from forests refit on all training examples (`refit`), "
        "and trees split down to 2 examples, not `min_samples_split = 11` (`min_split_11`). Both move "
        "DisDF − gcF on Parkinsons (see the claims' qualifiers).",
        "- **Parkinsons' random splits leak subjects**: each of its 32 subjects has about six recordings, "
        "and "
        "every random-split number (the headline's) can put one subject on both sides; subject-disjoint "
        "splits (`subject_groups`, audit) lower both methods' accuracy and shrink DisDF's advantage.",
        "- **Ties in the paired tests**: in a cell, the share of splits where both methods score exactly "
        "the "
        f"same is {ties}. The Wilcoxon test of the tables drops them; the claims' qualifiers show the counts "
        "under Pratt's handling and a paired t-test.",
        (
            f"- **Parkinsons has {rows} examples here** (the UCI file) against the paper's "
            f"{PAPER_PARKINSONS_ROWS}; at N = 120 the test set takes every remaining example."
            if rows
            else f"- **Parkinsons' size** is not in the records; the paper reports {PAPER_PARKINSONS_ROWS}."
        ),
        "- **The paper's values are single numbers** without spread or repetitions: every comparison with "
        "them assumes how they were made (section 'What the paper's tables can tell').",
        "",
    ]


def render(context: ReportContext) -> Rendered | None:
    """The limitations; None without headline records."""
    headline, _ = context.records("paper")
    if headline.empty:
        return None
    return Rendered("\n".join(limitations_lines(headline, mechanism_records(GRID, context))))


SECTION = Section("limitations", "the records of experiment=paper and of the audit's λ/τ grid", render)
