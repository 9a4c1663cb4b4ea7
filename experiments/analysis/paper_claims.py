"""A verdict for every sentence of the paper's section 6 that makes a claim, decided at the split.

The unit of independence is the split: one per (dataset, N, repetition), shared by the four T and
both methods (and by the nested level-1 forests), so the 16 cells of a table are not 16 pieces of
evidence. Each sentence (``SENTENCES``) names its *rows*: one test per N at the split, or one
contrast fixed by the sentence, never one per cell.

- a claim about the methods (DisDF − gcF): per split the difference averaged over the T the sentence
  names (all four when it names none), one row per N;
- a claim about T: per split a contrast between T (accuracy averaged over the two methods, which
  share the split), one row per N;
- a contrast across N ("the largest difference by N = 50", "more training data"): per-split contrasts
  summed over the independent N (:func:`experiments.analysis.statistics.contrast_over_independent_groups`);
- scanning (sentence 15): accuracy without − with multi-grained scanning, per method and N, on the
  splits of ``experiment=mgs``.

Each row gives one *finding* from one-sided t-tests each way and a TOST at the plan's margin, each
Holm-corrected across the rows of its sentence; the finding decides the row by what the row claims,
the rows decide the sentence by its quantifier (the rule set: :mod:`experiments.analysis.claim_rules`;
the sentences: :mod:`experiments.analysis.paper_sentences`). Rows we add (not named by the paper) are
decided alike, shown marked and never counted. ``experiments.reporting.claims_text`` prints them;
:data:`experiments.reporting.claims_text.TIMELINE` dates the rules. These rules were written on
2026-11-27, after every record existed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from experiments.analysis.cells import LABELS
from experiments.analysis.claim_rules import (
    ABOVE,
    BELOW,
    EVERY,
    INSIDE,
    MARKS,
    NEITHER,
    OVER,
    UNDER,
    VERDICT_OF,
    VERDICTS,
    combine,
    finding,
)
from experiments.analysis.paper_sentences import (
    ACCURACY,
    DIFFERENCE,
    SCANNING,
    SENTENCES,
    Row,
    Sentence,
    Weights,
)
from experiments.analysis.plan import (
    CONFIRMED,
    INTERVAL_LEVEL,
    MARGIN_PP,
    POINTS,
)
from experiments.analysis.statistics import contrast_over_independent_groups, holm, margin_p_values

# --- per-split tables ---------------------------------------------------------------------------


def split_differences(records: pd.DataFrame) -> pd.DataFrame:
    """DisDF − gcF in points: index (dataset, N, repetition), columns T."""
    wide = records.pivot_table(index=["dataset", "N", "T", "repetition"], columns="method", values="accuracy")
    return ((wide["disdf"] - wide["gcforest"]) * POINTS).unstack("T")


def split_mean_accuracy(records: pd.DataFrame) -> pd.DataFrame:
    """Accuracy in percent averaged over gcF and DisDF (they share the split): index (dataset, N,
    repetition), columns T; a split lacking either method is left out."""
    wide = records[records["method"].isin(list(LABELS))].pivot_table(
        index=["dataset", "N", "T", "repetition"], columns="method", values="accuracy"
    )
    return (wide[list(LABELS)].mean(axis=1, skipna=False) * POINTS).unstack("T")


def scanning_differences(pairs: pd.DataFrame) -> pd.DataFrame:
    """Accuracy without − with scanning in points from paired rows (``method``, N, T, repetition, ``d``
    = with − without in points; :func:`experiments.reporting.sections.mgs.paired_differences`):
    index (dataset "mnist", method, N, repetition), columns T."""
    table = pairs.assign(dataset="mnist", d=-pairs["d"]).pivot_table(
        index=["dataset", "method", "N", "repetition"], columns="T", values="d"
    )
    return table


def paper_differences(paper: pd.DataFrame) -> pd.DataFrame:
    """The paper's DisDF − gcF in points (rounded to 1e-6 so printed ties stay ties): index (dataset, N)."""
    wide = paper.pivot_table(index=["dataset", "N", "T"], columns="method", values="accuracy")
    return ((wide["disdf"] - wide["gcforest"]) * POINTS).round(6).unstack("T")


def paper_accuracy(paper: pd.DataFrame) -> pd.DataFrame:
    """The paper's accuracy in percent: index (dataset, method, N), columns T."""
    return (
        paper.pivot_table(index=["dataset", "method", "N"], columns="T", values="accuracy") * POINTS
    ).round(6)


def paper_mean_accuracy(paper: pd.DataFrame) -> pd.DataFrame:
    """The paper's accuracy in percent averaged over gcF and DisDF: index (dataset, N), columns T."""
    return paper_accuracy(paper).groupby(level=["dataset", "N"]).mean()


# --- contrasts ------------------------------------------------------------------------------------


def cells_of(
    table: pd.DataFrame, Ns: tuple[int, ...] | None, Ts: tuple[int, ...] | None
) -> list[tuple[int, int]]:
    """The (N, T) cells of a table (index N or (N, repetition), columns T) that ``Ns``/``Ts`` select."""
    all_N = sorted(table.index.get_level_values(0).unique())
    return [(N, T) for N in all_N if Ns is None or N in Ns for T in table.columns if Ts is None or T in Ts]


def contrast(table: pd.DataFrame, weights: Weights) -> dict:
    """The weighted sum of cell means, per split within each N, summed over the independent N
    (index (N, repetition), columns T), with its :data:`INTERVAL_LEVEL` interval, its one-sided
    p-values against the margin (:func:`~experiments.analysis.statistics.margin_p_values`) and each
    N's variance and number of splits (what :func:`at_splits` rescales)."""
    groups = []
    for N in sorted({n for n, _ in weights}):
        sub = table.loc[N]
        groups.append(sum(w * sub[T] for (n, T), w in weights.items() if n == N).dropna().to_numpy())
    result = contrast_over_independent_groups(groups, level=INTERVAL_LEVEL)
    return result | {
        "p_margin": margin_p_values(result, MARGIN_PP),
        "group_variances": [float(g.var(ddof=1)) for g in groups if len(g)],
        "group_sizes": [len(g) for g in groups if len(g)],
    }


def at_splits(result: dict, splits: int) -> dict:
    """``result`` (of :func:`contrast`) as if each N had ``splits`` splits with the same means and
    spreads: the variance Σ v_N / splits, Welch–Satterthwaite degrees of freedom, the p-values again."""
    variances = [v / splits for v in result["group_variances"]]
    variance = sum(variances)
    denominator = sum(v**2 / (splits - 1) for v in variances)
    df = variance**2 / denominator if denominator > 0 else float(len(variances) * (splits - 1))
    scaled = result | {"se": float(np.sqrt(variance)), "df": df}
    return scaled | {"p_margin": margin_p_values(scaled, MARGIN_PP)}


def paper_contrast(table: pd.DataFrame, weights: Weights) -> float:
    """The same weighted sum of the paper's values (index N, columns T)."""
    return float(sum(w * table.loc[N, T] for (N, T), w in weights.items()))


# --- decisions ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RowResult:
    """A row decided: its statistics, its Holm-corrected one-sided p-values against the margin
    (:func:`~experiments.analysis.statistics.margin_p_values`), finding, verdict and the paper's value."""

    row: Row
    result: dict = field(compare=False)
    p: dict = field(compare=False)
    finding: str
    verdict: str
    paper: float

    @property
    def mark(self) -> str:
        return MARKS[self.finding]


@dataclass(frozen=True)
class Decision:
    """A sentence decided: its rows (the paper's, then ours), the verdicts of each set, and the
    verdict the paper's own table gets under the same rule (None: the paper gives no table for it). A
    sentence the paper's own table does not satisfy is shown and not counted."""

    sentence: Sentence
    rows: tuple[RowResult, ...]
    ours: tuple[RowResult, ...]
    verdict: str
    ours_verdict: str | None
    paper_verdict: str | None = None
    #: What the verdict rests on beyond the records' own rule (e.g. "reduced scanner"), shown beside it.
    note: str = ""

    @property
    def counted(self) -> bool:
        return self.paper_verdict in (None, CONFIRMED)


class Tables:
    """The per-split tables of the records (and of the scanning pairs), and the paper's."""

    def __init__(
        self, records: pd.DataFrame, paper: pd.DataFrame, scanning: pd.DataFrame | None = None
    ) -> None:
        self.ours = {DIFFERENCE: split_differences(records), ACCURACY: split_mean_accuracy(records)}
        if scanning is not None and not scanning.empty:
            self.ours[SCANNING] = scanning_differences(scanning)
        self.paper = {DIFFERENCE: paper_differences(paper), ACCURACY: paper_mean_accuracy(paper)}

    def has(self, row: Row) -> bool:
        """Whether the records hold every cell of ``row``."""
        table = self.ours.get(row.quantity)
        if table is None or row.dataset not in table.index.get_level_values(0):
            return False
        ours = self.ours_of(row)
        return all(N in ours.index.get_level_values(0) and T in ours.columns for N, T in row.weights)

    def ours_of(self, row: Row) -> pd.DataFrame:
        table = self.ours[row.quantity].loc[row.dataset]
        return table.loc[row.method] if row.method else table

    def paper_of(self, row: Row) -> float:
        table = self.paper.get(row.quantity)
        if table is None or row.dataset not in table.index.get_level_values(0):
            return float("nan")
        return paper_contrast(table.loc[row.dataset], row.weights)


P_NAMES = ("above_plus", "below_plus", "above_minus", "below_minus", "tost")


def decide_results(
    rows: list[Row], results: list[dict], claim: str, papers: list[float]
) -> tuple[RowResult, ...]:
    """Rows of one family (a sentence's paper rows, or its rows we add) from their statistics: Holm
    across them for each one-sided test, then the finding and the row's verdict."""
    adjusted = {name: holm(np.array([r["p_margin"][name] for r in results])) for name in P_NAMES}
    decided = []
    for i, (row, result, paper) in enumerate(zip(rows, results, papers, strict=True)):
        p = {name: float(adjusted[name][i]) for name in P_NAMES}
        found = finding(p)
        decided.append(RowResult(row, result, p, found, VERDICT_OF[claim][found], paper))
    return tuple(decided)


def decide_rows(rows: list[Row], claim: str, tables: Tables) -> tuple[RowResult, ...]:
    """The rows of one family decided on the records."""
    results = [contrast(tables.ours_of(row), row.weights) for row in rows]
    return decide_results(rows, results, claim, [tables.paper_of(row) for row in rows])


def paper_finding(value: float) -> str:
    """Where a paper value, taken as exact, lies against the margin (nan: no finding)."""
    if not np.isfinite(value):
        return NEITHER
    m = MARGIN_PP
    if value > m:
        return ABOVE
    if value < -m:
        return BELOW
    if abs(value) < m:
        return INSIDE
    return UNDER if value < m else OVER  # on a threshold: below +m (at −m) or above −m (at +m)


def paper_verdict(sentence: Sentence, tables: Tables) -> str | None:
    """The sentence decided on the paper's own values (the same rule, the values taken as exact);
    None when the paper gives no value for it."""
    rows = [row for row in sentence.rows if not row.ours]
    values = [tables.paper_of(row) for row in rows]
    if not any(np.isfinite(v) for v in values):
        return None
    decided = tuple(
        RowResult(row, {}, {}, paper_finding(v), VERDICT_OF[sentence.claim][paper_finding(v)], v)
        for row, v in zip(rows, values, strict=True)
    )
    return sentence_verdict(decided, sentence.quantifier)


def sentence_verdict(rows: tuple[RowResult, ...], quantifier: str) -> str:
    """The sentence's quantifier within each (table, method) it names, and every one of those."""
    groups: dict[tuple[str, str | None], list[str]] = {}
    for r in rows:
        groups.setdefault(r.row.group, []).append(r.verdict)
    return combine((combine(verdicts, quantifier) for verdicts in groups.values()), EVERY)


def decide(sentence: Sentence, tables: Tables) -> Decision | None:
    """One sentence decided; None when the records lack its rows (a dataset, or scanning, not run)."""
    paper_rows = [row for row in sentence.rows if not row.ours]
    if sentence.rows_as_run:
        paper_rows = [row for row in paper_rows if tables.has(row)]
    if not paper_rows or not all(tables.has(row) for row in paper_rows):
        return None
    our_rows = [row for row in sentence.rows if row.ours and tables.has(row)]
    rows = decide_rows(paper_rows, sentence.claim, tables)
    ours = decide_rows(our_rows, sentence.claim, tables) if our_rows else ()
    return Decision(
        sentence,
        rows,
        ours,
        sentence_verdict(rows, sentence.quantifier),
        sentence_verdict(ours, sentence.quantifier) if ours else None,
        paper_verdict(sentence, tables),
    )


def sentence_decisions(
    records: pd.DataFrame, paper: pd.DataFrame, scanning: pd.DataFrame | None = None, scanning_note: str = ""
) -> list[Decision]:
    """Every sentence the records can decide, in the paper's order. ``scanning``: the paired rows of
    experiment=mgs against the headline (sentence 15), or None; ``scanning_note``: what its verdict
    rests on (e.g. "reduced scanner"), shown and counted beside it."""
    tables = Tables(records, paper, scanning)
    decided = [d for sentence in SENTENCES if (d := decide(sentence, tables)) is not None]
    scans = {id(d) for d in decided if any(row.quantity == SCANNING for row in d.sentence.rows)}
    return [replace(d, note=scanning_note) if id(d) in scans else d for d in decided]


def at_splits_decision(decision: Decision, splits: int) -> Decision:
    """``decision`` again as if every N had ``splits`` splits with the observed means and spreads."""

    def again(rows: tuple[RowResult, ...]) -> tuple[RowResult, ...]:
        if not rows:
            return ()
        results = [at_splits(r.result, splits) for r in rows]
        return decide_results(
            [r.row for r in rows], results, decision.sentence.claim, [r.paper for r in rows]
        )

    rows, ours = again(decision.rows), again(decision.ours)
    quantifier = decision.sentence.quantifier
    return Decision(
        decision.sentence,
        rows,
        ours,
        sentence_verdict(rows, quantifier),
        sentence_verdict(ours, quantifier) if ours else None,
        decision.paper_verdict,
    )


#: The numbers of splits per N at which :func:`rule_stability` decides every sentence again.
STABILITY_SPLITS = (30, 100, 300, 1000)


def rule_stability(decisions: list[Decision], splits: Iterable[int] = STABILITY_SPLITS) -> pd.DataFrame:
    """Every sentence's verdict at each number of simulated splits per N (the observed means and
    spreads): columns ``sentence``, ``splits``, ``verdict``, ``counted``. Under one threshold a sentence
    may move from not decided to a verdict, never from confirmed to refuted or back."""
    return pd.DataFrame(
        [
            {
                "sentence": d.sentence.number,
                "splits": n,
                "verdict": at_splits_decision(d, n).verdict,
                "counted": d.counted,
            }
            for d in decisions
            for n in splits
        ]
    )


def verdict_counts(decisions: Iterable[Decision]) -> dict[str, int]:
    """Counted sentences per verdict (rows we add, and sentences the paper's own table does not
    satisfy, never count)."""
    verdicts = [d.verdict for d in decisions if d.counted]
    return {v: verdicts.count(v) for v in VERDICTS}
