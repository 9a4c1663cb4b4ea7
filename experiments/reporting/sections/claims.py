"""REPORT.md section "The paper's claims": each sentence of the paper's section 6 that makes a claim,
decided at the split by one symmetric rule set (:mod:`experiments.analysis.paper_claims`), and what
the rule changes moved (:mod:`experiments.analysis.claim_history`). Each row's statistics, the
qualifiers of the confirmed sentences and the paper's tables' own statistics are APPENDIX.md's
(:mod:`experiments.reporting.sections.claim_rows`).

    python -m experiments.reporting.report --section claims     # after make reproduce (and make mgs)
"""

from __future__ import annotations

import pandas as pd

from experiments.analysis.cells import PAPER_TABLES
from experiments.analysis.claim_history import earlier_columns, read_history, records_digest
from experiments.analysis.paper_claims import Decision, rule_stability, sentence_decisions
from experiments.analysis.plan import CONFIRMED, REFUTED
from experiments.reporting.claims_text import counts_lines, rules_text, sentence_table
from experiments.reporting.section import Rendered, ReportContext, Section
from experiments.reporting.sections import mgs

APPENDIX_TITLE = "The paper's claims: rows, qualifiers and the paper's tables"
#: Every sentence's verdict at 30 to 1,000 simulated splits per N (the observed means and spreads).
STABILITY_CSV = "claims/rule_stability.csv"


def decisions_of(context: ReportContext, headline: pd.DataFrame, paper: pd.DataFrame) -> list[Decision]:
    """Every sentence decided on the headline's records (and experiment=mgs's, for the scanning one),
    once per report build (the claims, their rows and the verdict read them)."""

    def decide() -> list[Decision]:
        scanning, note = mgs.scanning_evidence(context, headline)
        return sentence_decisions(headline, paper, scanning, note)

    return context.once("claim decisions", decide)


def claims_lines(
    decisions: list[Decision], history: pd.DataFrame | None, digest: str, stability: pd.DataFrame
) -> list[str]:
    """The section's Markdown lines: the rules, one line per sentence, the counts, the rules' history."""
    return [
        "## The paper's claims (its section 6)",
        "",
        rules_text(brief=True),
        "",
        sentence_table(decisions, brief=True),
        "",
        *counts_lines(decisions),
        "",
        stability_line(stability),
        "",
        *history_summary(history, decisions, digest),
    ]


def stability_line(stability: pd.DataFrame) -> str:
    """What ``claims/rule_stability.csv`` shows: sentences whose verdict would flip as splits are added
    (none, under one threshold), and those that a larger study would decide."""
    splits = sorted(stability["splits"].unique())
    flips, settles = [], []
    for number, rows in stability.groupby("sentence", sort=False):
        verdicts = set(rows["verdict"])
        if {CONFIRMED, REFUTED} <= verdicts:
            flips.append(number)
        elif len(verdicts) > 1:
            settles.append(number)
    return (
        f"Decided again on {', '.join(f'{n:,}' for n in splits)} simulated splits per N "
        f"(`{STABILITY_CSV}`): {len(flips)} sentences flip between confirmed and refuted"
        + (f" ({', '.join(flips)})" if flips else "")
        + f"; {len(settles)} undecided ones get decided"
        + (f" ({', '.join(settles)})" if settles else "")
        + "."
    )


def history_summary(history: pd.DataFrame | None, decisions: list[Decision], digest: str) -> list[str]:
    """One sentence: the counts under the earlier rule sets, and where the detail is."""
    where = "dates and detail: APPENDIX.md"
    if history is None or set(history["records"]) != {digest}:
        return [f"The earlier rules' verdicts are not computed ({where}).", ""]
    earlier = earlier_columns(history, decisions)
    counts = "; ".join(f"{name} {column[-1]}" for name, column in earlier.items())
    return [f"Earlier rules, same records: {counts}.", ""]


def render(context: ReportContext) -> Rendered | None:
    """The sentences and the rules' history; None without headline records."""
    headline, _ = context.records("paper")
    if headline.empty:
        return None
    paper = pd.read_csv(PAPER_TABLES)
    decisions = decisions_of(context, headline, paper)
    stability = rule_stability(decisions)  # once: the line that reads it and the CSV it writes
    lines = claims_lines(decisions, read_history(context.folder), records_digest(headline), stability)
    return Rendered("\n".join(lines), files={STABILITY_CSV: stability.to_csv(index=False)})


SECTION = Section("claims", "the records of experiment=paper (and of experiment=mgs)", render)
