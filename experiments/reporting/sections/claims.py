"""REPORT.md section "The paper's claims": each claim of the paper's section 6 decided by rules fixed
before computing (:mod:`experiments.analysis.paper_claims`), the qualifiers of the confirmed ones
(:mod:`experiments.analysis.claim_qualifiers`), what the paper's tables can tell about
themselves (:mod:`experiments.analysis.paper_statistics`), and the paper's values as samples of ours
(:mod:`experiments.analysis.paper_as_samples`).

    python -m experiments.reporting.report --section claims     # after make reproduce and make audit
"""

from __future__ import annotations

import pandas as pd

from experiments.analysis.cells import PAPER_TABLES
from experiments.analysis.claim_qualifiers import qualifiers_section
from experiments.analysis.paper_as_samples import paper_as_samples_section
from experiments.analysis.paper_claims import paper_claims_section
from experiments.analysis.paper_statistics import paper_statistics_section
from experiments.reporting.section import Rendered, ReportContext, Section
from experiments.reporting.sections import mgs
from experiments.reporting.sections.audit import GRID, MECHANISMS, mechanism_records


def render(context: ReportContext) -> Rendered | None:
    """The claims, their qualifiers, the paper's tables' own statistics and its values as samples of ours;
    None without headline records."""
    headline, _ = context.records("paper")
    if headline.empty:
        return None
    paper = pd.read_csv(PAPER_TABLES)
    runs = {name: frame for name in MECHANISMS if not (frame := mechanism_records(name, context)).empty}
    grid = mechanism_records(GRID, context)
    lines = [
        *paper_claims_section(headline, paper),
        *scanning_claim(headline, context),
        *qualifiers_section(headline, runs, paper),
        *paper_statistics_section(headline, paper),
        *paper_as_samples_section(headline, paper, None if grid.empty else grid),
    ]
    return Rendered("\n".join(lines))


def scanning_claim(headline: pd.DataFrame, context: ReportContext) -> list[str]:
    """Section 6's claim on multi-grained scanning, decided by its own rule (sections/mgs.py), in one line."""
    scanned, _ = context.records("mgs")
    if scanned.empty:
        return []
    row = mgs.claims_row(mgs.cell_effects(mgs.paired_differences(scanned, headline)))
    return [
        f"MNIST, “{row['claim']}”: **{row['verdict']}** for {row['scanner']} ({row['evidence']}; "
        f"{int(scanned['repetition'].nunique())} repetitions; rule and per-cell table: APPENDIX.md, "
        "“Multi-grained scanning”).",
        "",
    ]


SECTION = Section(
    "claims", "the records of experiment=paper and of the audit's mechanisms and λ/τ grid", render
)
