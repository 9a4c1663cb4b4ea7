"""APPENDIX.md section "The 16-cell tables": every dataset's table in the paper's layout, ours beside the
paper's, with the per-cell paired tests (descriptive: the four T of one N share their split, so the
claims are decided at the split, not by counting cells).

    python -m experiments.reporting.report --section cell_tables     # after make reproduce
"""

from __future__ import annotations

import pandas as pd

from experiments.analysis.cells import PAPER_TABLES, cell_table
from experiments.reporting.section import Rendered, ReportContext, Section
from experiments.reporting.sections.protocol import tables_section


def render(context: ReportContext) -> Rendered | None:
    """The headline's tables; None without its records."""
    headline, _ = context.records("paper")
    if headline.empty:
        return None
    cells = cell_table(headline, pd.read_csv(PAPER_TABLES))
    lines = [
        "## The 16-cell tables",
        "",
        "The four T of one N share their split and their level-1 forests: the cells of a row are not "
        "independent evidence, and the per-cell marks below are descriptive (the claims are decided at the "
        "split, in REPORT.md).",
        "",
        *tables_section(cells),
    ]
    return Rendered("\n".join(lines))


SECTION = Section("cell_tables", "the records of experiment=paper", render)
