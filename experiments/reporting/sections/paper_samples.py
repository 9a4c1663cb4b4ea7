"""REPORT.md section "The paper's values as samples of ours": n̂ per dataset, the predictive check of
the paper's table with λ fixed and chosen on the test data, and the scope of our intervals
(:mod:`experiments.analysis.paper_as_samples`).

    python -m experiments.reporting.report --section paper_samples     # after make reproduce and make audit
"""

from __future__ import annotations

import pandas as pd

from experiments.analysis.cells import PAPER_TABLES
from experiments.analysis.paper_as_samples import paper_as_samples_section
from experiments.reporting.section import Rendered, ReportContext, Section
from experiments.reporting.sections.audit import GRID, mechanism_records


def render(context: ReportContext) -> Rendered | None:
    """The section; None without the headline's records."""
    headline, _ = context.records("paper")
    if headline.empty:
        return None
    grid = mechanism_records(GRID, context)
    lines = paper_as_samples_section(headline, pd.read_csv(PAPER_TABLES), None if grid.empty else grid)
    return Rendered("\n".join(["## What the paper's tables can tell", *lines[1:]]))


SECTION = Section("paper_samples", "the records of experiment=paper and of the audit's λ/τ grid", render)
