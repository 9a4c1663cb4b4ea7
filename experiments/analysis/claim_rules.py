"""The rule set that decides the paper's claims (:mod:`experiments.analysis.paper_claims`): what a row
finds against the margin m, what that finding makes of what the row claims, how a sentence's rows
combine by its quantifier, and the rules' text as the reports print it. Written on 2026-11-27, after
every record existed."""

from __future__ import annotations

from collections.abc import Iterable

from experiments.analysis.plan import ALPHA, CONFIRMED, NOT_DECIDED, REFUTED

VERDICTS = (CONFIRMED, REFUTED, NOT_DECIDED)
SYMBOLS = {CONFIRMED: "✔", REFUTED: "✘", NOT_DECIDED: "?"}

# --- the rule set ---------------------------------------------------------------------------------

#: A row's finding, read against the margin m alone (one threshold for confirming and refuting): the
#: quantity shown above +m, inside ±m (TOST), below −m, below +m only, above −m only, or none of them;
#: each a one-sided test at α (Holm across the sentence's rows), i.e. where the (1 − 2α) interval lies.
ABOVE, INSIDE, BELOW, UNDER, OVER, NEITHER = (
    "above +m",
    "inside ±m",
    "below −m",
    "below +m",
    "above −m",
    "neither",
)
FINDINGS = (ABOVE, INSIDE, BELOW, UNDER, OVER, NEITHER)
MARKS = {ABOVE: "▲", INSIDE: "≈", BELOW: "▼", UNDER: "<", OVER: ">", NEITHER: "?"}
#: What a row claims about its quantity: a gain of at least the margin, its negation, or none either way.
GREATER, NOT_GREATER, NO_DIFFERENCE = "greater", "not greater", "no difference"
#: The one decision table. "Greater" (a difference the report counts) is confirmed when the quantity is
#: shown above +m and refuted when shown below +m; "not greater" the reverse; "no difference" confirmed
#: inside ±m and refuted beyond it. A fixed effect away from the thresholds moves, as splits are added,
#: from not decided to one verdict and never to the other (results/claims/rule_stability.csv).
_GAIN = {ABOVE: CONFIRMED, INSIDE: REFUTED, BELOW: REFUTED, UNDER: REFUTED}
VERDICT_OF = {
    GREATER: {f: _GAIN.get(f, NOT_DECIDED) for f in FINDINGS},
    NOT_GREATER: {
        f: {CONFIRMED: REFUTED, REFUTED: CONFIRMED}.get(_GAIN.get(f, NOT_DECIDED), NOT_DECIDED)
        for f in FINDINGS
    },
    NO_DIFFERENCE: {
        f: {INSIDE: CONFIRMED, ABOVE: REFUTED, BELOW: REFUTED}.get(f, NOT_DECIDED) for f in FINDINGS
    },
}
#: A sentence's quantifier over its rows (within each table and method it names; across those: every).
EVERY, MOST, SOME = "every", "most", "some"

RULES = (
    "Rules (`experiments/analysis/paper_claims.py`, α = {alpha}, one threshold: the margin m = {m} point). "
    "Unit: the split, shared by the four T and both methods. Methods: DisDF − gcF per split averaged over "
    "the T the sentence names (else all four), one row per N; T: a contrast of T within each split (both "
    "methods' mean accuracy); a contrast across N sums per-split contrasts over the independent N. Per "
    "row, one-sided t-tests at α against +m and −m and a TOST at ±m, Holm across the sentence's rows, "
    "say where the quantity lies: ▲ above +m, ≈ inside ±m, ▼ below −m, < below +m only, > above −m "
    "only, ? none (the {level:.0%} intervals shown are these tests'). A claimed gain (“higher”, "
    "“outperforms”, “largest”) is confirmed by ▲ and refuted by ≈, ▼ or <; its negation (“does not "
    "outperform”) the reverse; “not significant” is confirmed by ≈ and refuted by ▲ or ▼. A sentence is "
    "confirmed (refuted) when its confirmed (refuted) rows alone settle it: “in most cases” needs more "
    "than half of its rows, “may” and “some” one, any other all, per table and method named. A sentence "
    "whose claim the paper's own table does not satisfy under these rules (its values taken as exact) is "
    "shown and not counted. Rows we add (*) are decided alike and not counted."
)
#: The rules in brief, for REPORT.md (in full: :data:`RULES`, APPENDIX.md).
RULES_BRIEF = (
    "Rules (α = {alpha}, Holm within a sentence; APPENDIX.md; set after the records were read): a row per "
    "N at the split; a claimed gain is confirmed when its {level:.0%} interval lies above +{m} point, "
    "refuted below; “not significant” is confirmed inside ±{m}, refuted beyond. “Most”: over half the rows; "
    "“may”, “some”: one; else all."
)


def combine(verdicts: Iterable[str], quantifier: str) -> str:
    """Rows' verdicts combined by a quantifier, three-valued: a sentence is confirmed when the rows'
    confirmations alone make it true, refuted when their refutations alone make it false (an
    undecided row may go either way), else not decided; no rows: not decided.

    ``EVERY``: confirmed if every row is, refuted if one is. ``MOST`` (more than half hold): confirmed
    if more than half are confirmed, refuted if at least half are refuted. ``SOME`` (at least one
    holds): confirmed if one is confirmed, refuted if every row is refuted.
    """
    verdicts = list(verdicts)
    n, confirmed, refuted = len(verdicts), verdicts.count(CONFIRMED), verdicts.count(REFUTED)
    if n == 0:
        return NOT_DECIDED
    if quantifier == EVERY:
        return REFUTED if refuted else CONFIRMED if confirmed == n else NOT_DECIDED
    if quantifier == MOST:
        return CONFIRMED if confirmed > n / 2 else REFUTED if refuted >= n / 2 else NOT_DECIDED
    if quantifier == SOME:
        return CONFIRMED if confirmed else REFUTED if refuted == n else NOT_DECIDED
    raise ValueError(f"unknown quantifier {quantifier!r}; expected one of {EVERY!r}, {MOST!r}, {SOME!r}")


def finding(p: dict[str, float]) -> str:
    """A row's finding from its Holm-corrected one-sided p-values (``above_plus``: H0 "≤ +m";
    ``below_minus``: H0 "≥ −m"; ``tost``; ``below_plus``: H0 "≥ +m"; ``above_minus``: H0 "≤ −m"),
    the most informative first."""
    for name, found in (
        ("above_plus", ABOVE),
        ("below_minus", BELOW),
        ("tost", INSIDE),
        ("below_plus", UNDER),
        ("above_minus", OVER),
    ):
        if p[name] < ALPHA:
            return found
    return NEITHER
