"""REPORT.md section "Limitations": what these records cannot show, with the numbers that bound it.

The grid's size and the audit's T are read from the audit's records, the ties from the headline's,
Parkinsons' size from the headline's split sizes; the rest are facts of the code and the protocol.
"""

from __future__ import annotations

import pandas as pd

from experiments.analysis.scanning_claim import FULL_SCANNER_UNITS
from experiments.paths import ROOT
from experiments.reporting.section import Rendered, ReportContext, Section
from experiments.reporting.sections.audit import AUDIT_T, GRID, mechanism_records
from experiments.reporting.sections.mgs import SCANNER

#: The paper's count of Parkinsons examples (its section 6); the UCI file has 195.
PAPER_PARKINSONS_ROWS = 197


#: What gcForest's own scanner costs (scripts/bench/bench_mgs_full_cost.py --record).
FULL_SCANNER_COST = ROOT / "results" / "bench" / "mgs_full_cost.csv"


def scanning_line(cost: pd.DataFrame | None, full_scanner: bool = False) -> str:
    """Sentence 15's limit: the scanner it was decided on, and what gcForest's own would cost or, once
    ``full_scanner`` (experiment=mgs_full complete: it decides), where it was run."""
    if full_scanner:
        return (
            "- **Scanning's verdict** (sentence 15) rests on gcForest's own scanner (500 trees per scanning "
            f"forest, stride 1) at N = 50 and 80 only, 30 splits each; the other N ran with {SCANNER}."
        )
    line = f"- **Scanning's verdict** (sentence 15) holds for {SCANNER}"
    if cost is None or cost.empty:
        return line + "."
    measured = cost[cost["measured"]].iloc[0]
    hours = float(cost["declared_run_hours"].iloc[0])
    complete = bool(measured.get("complete", True))
    verdict = "within" if bool(cost["fits"].iloc[0]) else "past"
    return (
        f"{line}; gcForest's {'took' if complete else 'was stopped after'} "
        f"{measured['split_seconds'] / 60:.0f} min a split ({'' if complete else 'at least '}{hours:.0f} h "
        f"for the 60 asked, {verdict} the {cost['budget_hours'].iloc[0]:g}-hour budget: `make mgs-full`)."
    )


def limitations_lines(
    headline: pd.DataFrame,
    grid: pd.DataFrame,
    full_scanner_cost: pd.DataFrame | None = None,
    full_scanner: bool = False,
) -> list[str]:
    """The section's Markdown lines."""
    points = grid["method"].nunique() if not grid.empty else 0
    parkinsons = headline[headline["dataset"] == "parkinsons"]
    rows = int((parkinsons["N"] + parkinsons["n_test"]).max()) if not parkinsons.empty else None
    return [
        "## Limitations",
        "",
        "- **Four datasets, one file each** (Parkinsons: "
        + (f"{rows} examples, the paper's {PAPER_PARKINSONS_ROWS}" if rows else "an unknown count")
        + "): our intervals are conditional on each file but Nadeau–Bengio's; the advice leans on the 43 "
        "other tables.",
        "- **λ and τ are fixed** at 1 in every headline number; tuned DisDF ran on 30 splits per cell and "
        "the 43 tables.",
        f"- **The λ/τ grid ({points} points) and the mechanisms ran at T = {AUDIT_T} only**; the emulated "
        "test-set choice of λ is a lower bound on a finer search's."
        if points
        else f"- **The mechanisms ran at T = {AUDIT_T} only**; no λ/τ grid was run (`make audit`).",
        scanning_line(full_scanner_cost, full_scanner),
        "",
    ]


def render(context: ReportContext) -> Rendered | None:
    """The limitations; None without headline records."""
    headline, _ = context.records("paper")
    if headline.empty:
        return None
    cost = pd.read_csv(FULL_SCANNER_COST) if FULL_SCANNER_COST.is_file() else None
    full_scanner = len(context.records("mgs_full")[0]) == FULL_SCANNER_UNITS
    lines = limitations_lines(headline, mechanism_records(GRID, context), cost, full_scanner)
    return Rendered("\n".join(lines))


SECTION = Section("limitations", "the records of experiment=paper and of the audit's λ/τ grid", render)
