"""The paper's claims as the reports print them: the sentence table with its verdicts and marks, the
rows table, the rules' text and the counts (:mod:`experiments.analysis.paper_claims` decides them)."""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import pandas as pd

from experiments.analysis.cells import DATASET_NAMES, LABELS
from experiments.analysis.claim_history import HISTORY_CSV, earlier_columns
from experiments.analysis.claim_rules import RULES, RULES_BRIEF, SYMBOLS, VERDICTS
from experiments.analysis.paper_claims import Decision, RowResult, verdict_counts
from experiments.analysis.paper_sentences import is_method_sentence
from experiments.analysis.plan import ALPHA, CONFIRMED, INTERVAL_LEVEL, MARGIN_PP, NOT_DECIDED, REFUTED

#: When the records and the rules were committed (UTC, `git log`), in the order it happened.
TIMELINE = (
    "**When the rules were fixed** (`git log`, UTC): the first 100-repetition headline on 2026-11-22 at "
    "00:41 (67f9718; recomputed identically at 01:19, 4b3da83); the first claim rules and the ±1-point "
    "margin (then for the claims about T only) at 03:01 (68e2c32), beside an audit report reading those "
    "records; today's records (DisDF cross-fitted) at 03:37 (8f9dfd2); the rules rewritten on 2026-11-25 "
    "at 15:00 (a5b09ee: “outperforms” no longer refuted by non-significance, “largest” a fixed contrast "
    "instead of our argmax), on 2026-11-27 at 07:28 (a294539: decided at the split, counted as sentences, "
    "equivalence within ±1 checked before a one-sided test against 0) and on 2026-11-28 (these: one "
    "threshold, the margin, for confirming and refuting; sentences 3 and 12 coded as the paper's own "
    "tables read them; a sentence the paper's own table does not satisfy not counted), after an "
    "independent review showed that the 11-27 rule turned a fixed gain from confirmed to refuted as "
    "splits were added. No rule or margin preceded the records, and each rewrite was made after they "
    "had been read. Columns {columns}: those rules' own code from git on today's records (✔ confirmed, "
    "✘ refuted, ? not decided, per table row or sentence they counted; 68e2c32's 20 rows include a claim "
    "it ascribed to the conclusion, which does not make it: ✘; `scripts/tools/claim_rule_history.py` → "
    f"`{HISTORY_CSV}`)."
)


def effect_text(result: dict, digits: int = 1) -> str:
    """An effect and its interval in points: "+0.9 [+0.6, +1.1]"."""
    return f"{result['mean']:+.{digits}f} [{result['ci_low']:+.{digits}f}, {result['ci_high']:+.{digits}f}]"


def counts_text(counts: dict[str, int]) -> str:
    return f"{counts[CONFIRMED]} confirmed, {counts[REFUTED]} refuted, {counts[NOT_DECIDED]} not decided"


# --- rendering ------------------------------------------------------------------------------------


def _number(value: float) -> str:
    return "—" if not np.isfinite(value) else f"{value:+.1f}"


def _by_group(rows: tuple[RowResult, ...], text: Callable[[RowResult], str], labelled: bool = True) -> str:
    """A sentence's rows, grouped by table and method when it names several: "Ecoli: N=80 -0.1≈ N=100
    +0.1≈; Ionosphere: ..." (rows we add marked *; ``labelled`` False: the values alone, "—" if none)."""
    if not labelled and not any(np.isfinite(r.paper) for r in rows):
        return "—"
    groups: dict[tuple[str, str | None, bool], list[RowResult]] = {}
    for r in rows:
        groups.setdefault((*r.row.group, r.row.ours), []).append(r)
    several = len(groups) > 1
    parts = []
    for (dataset, method, ours), members in groups.items():
        name = LABELS[method] if method else DATASET_NAMES.get(dataset, dataset)
        items = " ".join(f"{r.row.short if labelled else ''} {text(r)}".strip() for r in members)
        parts.append(f"{name}{'*' if ours else ''}: {items}" if several else items)
    return "; ".join(parts)


def verdict_cell(d: Decision) -> str:
    """A sentence's verdict as the table shows it: bold when counted; else why it is not."""
    ours = f" (*: {d.ours_verdict})" if d.ours_verdict else ""
    ours += "†" if d.note else ""  # the note itself is the count line's
    if d.counted:
        return f"**{d.verdict}**{ours}"
    return f"{d.verdict}{ours}; not counted (the paper's table: {d.paper_verdict})"


def sentence_table(
    decisions: list[Decision], earlier: dict[str, list[str]] | None = None, brief: bool = False
) -> str:
    """One line per sentence: its rows with our effect and finding, the paper's, the verdict; then a
    column per entry of ``earlier`` (an earlier rule set's verdict of each sentence, and last its count,
    :func:`experiments.analysis.claim_history.earlier_columns`) and a line of counts. ``brief``
    (REPORT.md): the paper's words without our bracketed coding, which APPENDIX.md's rows spell out."""
    earlier = earlier or {}
    lines = []
    for i, d in enumerate(decisions):
        rows = (*d.rows, *d.ours)
        text = re.sub(r"\s*\[[^]]*\]$", "", d.sentence.text) if brief else d.sentence.text
        line = {
            "#": d.sentence.number,
            "the paper says": text,
            "ours (pp)": _by_group(rows, lambda r: f"{r.result['mean']:+.1f}{r.mark}"),
            "paper (pp)": _by_group(rows, lambda r: _number(r.paper), labelled=False),
            "verdict": verdict_cell(d),
        }
        lines.append(line | {name: cells[i] for name, cells in earlier.items()})
    if earlier:
        counts = verdict_counts(decisions)
        counted = sum(d.counted for d in decisions)
        count = " ".join(f"{counts[v]}{SYMBOLS[v]}" for v in VERDICTS) + f" of {counted}"
        lines.append(
            {"#": "", "the paper says": "count", "verdict": count} | {n: c[-1] for n, c in earlier.items()}
        )
    return pd.DataFrame(lines).fillna("").to_markdown(index=False, disable_numparse=True)


def rows_table(decisions: list[Decision]) -> str:
    """Every row in detail (APPENDIX.md): effect with its :data:`INTERVAL_LEVEL` interval, the
    Holm-corrected one-sided p-values against +m and −m, the TOST's, the finding, the row's verdict,
    the paper's value."""
    m = f"{MARGIN_PP:g}"
    lines = []
    for d in decisions:
        for r in (*d.rows, *d.ours):
            lines.append(
                {
                    "#": d.sentence.number,
                    "row": r.row.name(),
                    "quantity (pp)": r.row.quantity,
                    f"ours [{INTERVAL_LEVEL:.0%} CI]": effect_text(r.result),
                    f"p > +{m} / < +{m} (Holm)": f"{r.p['above_plus']:.2g} / {r.p['below_plus']:.2g}",
                    f"p < −{m} / > −{m} (Holm)": f"{r.p['below_minus']:.2g} / {r.p['above_minus']:.2g}",
                    f"TOST ±{m} p (Holm)": f"{r.p['tost']:.2g}",
                    "finding": f"{r.mark} {r.finding}",
                    "row verdict": r.verdict,
                    "paper (pp)": _number(r.paper),
                }
            )
    return pd.DataFrame(lines).to_markdown(index=False, disable_numparse=True)


def rules_text(brief: bool = False) -> str:
    """The rules for REPORT.md (``brief``) or APPENDIX.md, with the margin and α."""
    return (RULES_BRIEF if brief else RULES).format(m=f"{MARGIN_PP:g}", alpha=ALPHA, level=INTERVAL_LEVEL)


def _sentences(numbers: list[str]) -> str:
    return ("sentence " if len(numbers) == 1 else "sentences ") + ", ".join(numbers)


def counts_lines(decisions: list[Decision]) -> list[str]:
    """The count of the counted sentences, and of those comparing DisDF with gcF apart; the sentences
    the paper's own table does not satisfy, named."""
    counted = [d for d in decisions if d.counted]
    methods = [d for d in counted if is_method_sentence(d.sentence)]
    left_out = [d.sentence.number for d in decisions if not d.counted]
    m = f"{MARGIN_PP:g}"
    return [
        f"**Sentences: {counts_text(verdict_counts(counted))}** (of {len(counted)} counted"
        + (f"; {_sentences(left_out)} not counted: the paper's own table contradicts it" if left_out else "")
        + "".join(f"; † {d.sentence.number}: {d.note}" for d in counted if d.note)
        + f"); the {len(methods)} comparing DisDF with gcF: {counts_text(verdict_counts(methods))}. "
        f"▲ above +{m}, ≈ inside ±{m}, ▼ below −{m}, < below +{m}, > above −{m}, ? none; * our rows, "
        "not counted.",
    ]


def claims_table_lines(history: pd.DataFrame | None, decisions: list[Decision], digest: str) -> list[str]:
    """The sentence table with the earlier rule sets' columns, then the dated facts; without the
    earlier verdicts (no CSV, or one computed on other records) the table alone and how to make them."""
    remedy = "run `python scripts/tools/claim_rule_history.py`"
    if history is None:
        return [sentence_table(decisions), "", f"`{HISTORY_CSV}` is not there: {remedy}.", ""]
    if set(history["records"]) != {digest}:
        return [
            sentence_table(decisions),
            "",
            f"`{HISTORY_CSV}` was computed on other records than these: {remedy} again.",
            "",
        ]
    earlier = earlier_columns(history, decisions)
    names = " and ".join(earlier)
    return [sentence_table(decisions, earlier), "", TIMELINE.format(columns=names), ""]
