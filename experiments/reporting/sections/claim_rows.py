"""APPENDIX.md section "The paper's claims: rows, qualifiers and the paper's tables": every row of
every sentence of REPORT.md's claims section with its CI and Holm-corrected p-values
(:func:`experiments.analysis.paper_claims.rows_table`), the qualifiers of the confirmed sentences
comparing DisDF with gcF (:mod:`experiments.analysis.claim_qualifiers`), and what the paper's tables
can tell about themselves (:mod:`experiments.analysis.paper_statistics`).

    python -m experiments.reporting.report --section claim_rows   # after make reproduce and make audit
"""

from __future__ import annotations

import pandas as pd

from experiments.analysis.cells import PAPER_TABLES
from experiments.analysis.claim_history import read_history, records_digest
from experiments.analysis.paper_claims import Decision
from experiments.reporting.claims_text import claims_table_lines, rows_table, rules_text
from experiments.reporting.paper_statistics_text import paper_statistics_section
from experiments.reporting.qualifiers_text import qualifiers_section
from experiments.reporting.section import Rendered, ReportContext, Section
from experiments.reporting.sections.audit import MECHANISMS, mechanism_records
from experiments.reporting.sections.claims import APPENDIX_TITLE, decisions_of


def rows_lines(decisions: list[Decision]) -> list[str]:
    """The rows in detail, with how to read them."""
    return [
        f"## {APPENDIX_TITLE}",
        "",
        rules_text(),
        "",
        "Every row of REPORT.md's claims section: our effect in points with its 95 % CI (over splits; a "
        "contrast across N sums independent N), the one-sided t-tests' p-values each way and the TOST's, "
        "each Holm-corrected across the rows of its sentence (rows marked * apart), the finding and what "
        "it does to the row's claim. Sentence 15's cells, and the cell rule of its own section: "
        "“Multi-grained scanning” below.",
        "",
        rows_table(decisions),
        "",
    ]


def render(context: ReportContext) -> Rendered | None:
    """The rows, the qualifiers and the paper's tables' statistics; None without headline records."""
    headline, _ = context.records("paper")
    if headline.empty:
        return None
    paper = pd.read_csv(PAPER_TABLES)
    decisions = decisions_of(context, headline, paper)
    runs = {name: frame for name in MECHANISMS if not (frame := mechanism_records(name, context)).empty}
    history = claims_table_lines(read_history(context.folder), decisions, records_digest(headline))
    lines = [
        *rows_lines(decisions),
        "**The sentences under every rule set the history had** (our rows' verdicts by the rules of each "
        "commit, their own code from git, on today's records):",
        "",
        *history,
        *qualifiers_section(headline, runs, decisions),
        *paper_statistics_section(headline, paper),
    ]
    return Rendered("\n".join(lines))


SECTION = Section(
    "claim_rows", "the records of experiment=paper, experiment=mgs and the audit's mechanisms", render
)
