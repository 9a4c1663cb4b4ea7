"""REPORT.md section "The paper's claims": each claim of the paper's section 6 decided by rules fixed
before computing (:mod:`experiments.analysis.paper_claims`), the qualifiers of the confirmed ones
(:mod:`experiments.analysis.claim_qualifiers`), and what the paper's tables can tell about
themselves (:mod:`experiments.analysis.paper_statistics`).

    python -m experiments.reporting.report --section claims     # after make reproduce and make audit
"""

from __future__ import annotations

import pandas as pd

from experiments.analysis.cells import PAPER_TABLES
from experiments.analysis.claim_qualifiers import qualifiers_section
from experiments.analysis.paper_claims import paper_claims_section
from experiments.analysis.paper_statistics import paper_statistics_section
from experiments.reporting.section import Rendered, ReportContext, Section
from experiments.reporting.sections import mgs
from experiments.reporting.sections.audit import MECHANISMS, mechanism_records


def render(context: ReportContext) -> Rendered | None:
    """The claims, their qualifiers and the paper's tables' own statistics; None without headline records."""
    headline, _ = context.records("paper")
    if headline.empty:
        return None
    paper = pd.read_csv(PAPER_TABLES)
    runs = {name: frame for name in MECHANISMS if not (frame := mechanism_records(name, context)).empty}
    lines = [
        *paper_claims_section(headline, paper),
        *scanning_claim(headline, context),
        *qualifiers_section(headline, runs, paper),
        *paper_statistics_section(headline, paper),
    ]
    return Rendered("\n".join(lines))


def scanning_claim(headline: pd.DataFrame, context: ReportContext) -> list[str]:
    """Section 6's claim on multi-grained scanning, decided by its own rule (sections/mgs.py), in one line."""
    scanned, _ = context.records("mgs")
    if scanned.empty:
        return []
    row = mgs.claims_row(mgs.cell_effects(mgs.paired_differences(scanned, headline)))
    return [
        f"MNIST, “{row['claim']}”: **{row['verdict']}** ({row['evidence']}; "
        f"{int(scanned['repetition'].nunique())} repetitions; rule and per-cell table: APPENDIX.md, "
        "“Multi-grained scanning”).",
        "",
    ]


SECTION = Section("claims", "the records of experiment=paper and of the audit's mechanisms", render)
