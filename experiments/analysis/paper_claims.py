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

Each row gives one *finding* (:data:`FINDINGS`) from one-sided t-tests each way and a TOST at
±:data:`MARGIN_PP`, each Holm-corrected across the rows of its sentence; the finding decides
the row by what the row claims (:data:`VERDICT_OF`, the same table for every sentence); the rows
decide the sentence by its quantifier (:func:`combine`, :func:`sentence_verdict`). Rows we add (not
named by the paper) are decided alike, shown marked and never counted. :data:`RULES` is the text
APPENDIX.md prints (REPORT.md :data:`RULES_BRIEF`); :data:`experiments.analysis.claim_history.TIMELINE`
dates them. These rules were written on 2026-11-27, after every record existed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from experiments.analysis.cells import DATASET_NAMES, LABELS
from experiments.analysis.plan import (
    ALPHA,
    CONFIRMED,
    INTERVAL_LEVEL,
    MARGIN_PP,
    NOT_DECIDED,
    POINTS,
    REFUTED,
)
from experiments.analysis.statistics import contrast_over_independent_groups, holm, margin_p_values

VERDICTS = (CONFIRMED, REFUTED, NOT_DECIDED)
SYMBOLS = {CONFIRMED: "✔", REFUTED: "✘", NOT_DECIDED: "?"}
N_GRID = (50, 80, 100, 120)
T_GRID = (100, 400, 700, 1000)

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


# --- sentences and their rows -----------------------------------------------------------------------

Cell = tuple[int, int]
Weights = dict[Cell, float]
DIFFERENCE, ACCURACY, SCANNING = "DisDF − gcF", "accuracy", "without − with scanning"


def mean_of(cells: Iterable[Cell]) -> Weights:
    """The mean of ``cells``: each weighs 1 / their number."""
    listed = list(cells)
    return {cell: 1.0 / len(listed) for cell in listed}


def minus(first: Weights, second: Weights) -> Weights:
    """The contrast ``first`` − ``second`` (cells in both add up)."""
    out = dict(first)
    for cell, weight in second.items():
        out[cell] = out.get(cell, 0.0) - weight
    return out


def at(N: int, Ts: Iterable[int] = T_GRID) -> Weights:
    """The split's mean over ``Ts`` at ``N``."""
    return mean_of((N, T) for T in Ts)


def cell_vs_rest(N: int, T: int) -> Weights:
    return minus(at(N, (T,)), mean_of((n, t) for n in N_GRID for t in T_GRID if (n, t) != (N, T)))


def row_vs_rest(N: int) -> Weights:
    return minus(at(N), mean_of((n, t) for n in N_GRID if n != N for t in T_GRID))


def t_contrast(N: int, high: tuple[int, ...], low: tuple[int, ...]) -> Weights:
    return minus(at(N, high), at(N, low))


@dataclass(frozen=True)
class Row:
    """One test of a sentence: a quantity of one dataset (and method, for scanning) and the weighted
    sum of its cells that the sentence is about. ``label``: the row in full (APPENDIX.md); ``short``:
    within its sentence's line of REPORT.md (empty: the sentence's one row); ``ours``: a row the
    paper's sentence does not name."""

    dataset: str
    label: str
    quantity: str
    weights: Weights = field(compare=False)
    method: str | None = None
    ours: bool = False
    short: str = ""

    @property
    def group(self) -> tuple[str, str | None]:
        """The table and method the row belongs to (a sentence holds for each it names)."""
        return self.dataset, self.method

    def name(self) -> str:
        """The row in full: "Ecoli N=80: T=400/700 − 1000*"."""
        words = [
            DATASET_NAMES.get(self.dataset, self.dataset),
            *([LABELS[self.method]] if self.method else []),
        ]
        return " ".join([*words, self.label]) + ("*" if self.ours else "")


@dataclass(frozen=True)
class Sentence:
    """A sentence of section 6: the paper's words, what each of its rows claims, its quantifier."""

    number: str
    text: str
    claim: str
    rows: tuple[Row, ...]
    quantifier: str = EVERY
    about: str = DIFFERENCE
    #: Decided on the rows its records have (the full-size scanner ran N = 50 and 80 only), not
    #: left undecided for want of the others.
    rows_as_run: bool = False


def _per_n(dataset: str, Ns: Iterable[int], Ts: tuple[int, ...] = T_GRID) -> tuple[Row, ...]:
    """DisDF − gcF per N, averaged over the split's ``Ts``."""
    suffix = "" if Ts == T_GRID else ", T=" + "/".join(map(str, Ts))
    Ns = tuple(Ns)
    return tuple(
        Row(dataset, f"N={N}{suffix}", DIFFERENCE, at(N, Ts), short=f"N={N}" if len(Ns) > 1 else "")
        for N in Ns
    )


def _cell_rest(dataset: str, N: int, T: int) -> tuple[Row, ...]:
    return (Row(dataset, f"N={N},T={T} − the other cells", DIFFERENCE, cell_vs_rest(N, T)),)


PAPER_DATASETS = ("parkinsons", "ecoli", "ionosphere", "mnist")
SENTENCES: tuple[Sentence, ...] = (
    Sentence("1", "Parkinsons: DisDF > gcF “in most cases”", GREATER, _per_n("parkinsons", N_GRID), MOST),
    Sentence(
        "2",
        "Parkinsons: the difference “is not significant by N=50 and 120”",
        NO_DIFFERENCE,
        _per_n("parkinsons", (50, 120)),
    ),
    Sentence(
        "3",
        # "not significant by N=50 and 120. However, it is larger by N=100 and the small amount of
        # trees": the difference itself, at N=100 and the smallest T (the paper's own +2.7)
        "Parkinsons: the difference “is larger by N=100 and the small amount of trees” [N=100, T=100]",
        GREATER,
        _per_n("parkinsons", (100,), (100,)),
    ),
    Sentence(
        "4",
        "Parkinsons: “the largest difference … by T=1000 and N=100” [− the other cells]",
        GREATER,
        _cell_rest("parkinsons", 100, 1000),
    ),
    Sentence(
        "5",
        "Ecoli: “the largest difference … by N=50” [row − the other rows]",
        GREATER,
        (Row("ecoli", "N=50 row − the other rows", DIFFERENCE, row_vs_rest(50)),),
    ),
    Sentence(
        "6",
        "Ecoli: DisDF > gcF “by the very small amount of training data” [N=50]",
        GREATER,
        _per_n("ecoli", (50,)),
    ),
    Sentence(
        "7",
        "Ecoli: DisDF “does not outperform” gcF “by N=120 and T=700”",
        NOT_GREATER,
        _per_n("ecoli", (120,), (700,)),
    ),
    Sentence(
        "8",
        "Ecoli: “outperformance of the DisDF is observed by T=100 and 400” [their mean]",
        GREATER,
        _per_n("ecoli", N_GRID, (100, 400)),
    ),
    Sentence(
        "9",
        "Ionosphere: “the largest difference … by T=100 and N=50” [− the other cells]",
        GREATER,
        _cell_rest("ionosphere", 50, 100),
    ),
    Sentence(
        "10",
        "Ionosphere: DisDF > gcF “by the very small amount of training data” [N=50]",
        GREATER,
        _per_n("ionosphere", (50,)),
    ),
    Sentence(
        "11",
        "“the highest accuracy … by the large number of training data and the large number of trees” "
        "[N: N=120 row − other rows; T: N=120, T=700/1000 − 100/400]",
        GREATER,
        # MNIST is ours: the sentence precedes MNIST's table
        tuple(
            row
            for dataset, ours in zip(PAPER_DATASETS, (False, False, False, True), strict=True)
            for row in (
                Row(dataset, "N=120 row − the other rows", ACCURACY, row_vs_rest(120), ours=ours, short="N"),
                Row(
                    dataset,
                    "N=120: T=700/1000 − 100/400",
                    ACCURACY,
                    t_contrast(120, (700, 1000), (100, 400)),
                    ours=ours,
                    short="T",
                ),
            )
        ),
        about="N and T",
    ),
    Sentence(
        "12",
        # a negation, as sentence 7: T = 1000 does not give more than the other T at "some fixed values
        # of N, for example, N=80 and 100" (the paper's own values: Ecoli −0.3 at N=80, Ionosphere +0.8
        # at N=100, within the margin; +6.0 and +3.8 at the other two)
        "“the largest number of trees by … N=80 and 100, does not provide the largest accuracy” [T=1000 − "
        "the other T; “some fixed values of N”]",
        NOT_GREATER,
        tuple(
            Row(
                dataset,
                f"N={N}: T=1000 − the other T",
                ACCURACY,
                t_contrast(N, (1000,), (100, 400, 700)),
                ours=dataset == "parkinsons",  # the sentence names the other tables
                short=f"N={N}",
            )
            for dataset in ("ecoli", "ionosphere", "parkinsons")
            for N in (80, 100)
        ),
        SOME,
        about="T",
    ),
    Sentence("13", "MNIST: DisDF > gcF “in the most cases”", GREATER, _per_n("mnist", N_GRID), MOST),
    Sentence(
        "14",
        "MNIST: “the largest difference … by T=100 and N=50” [− the other cells]",
        GREATER,
        _cell_rest("mnist", 50, 100),
    ),
    Sentence(
        "15",
        "MNIST: scanning “may deteriorate” DisDF “as well as the gcForest” “by the very small training data” "
        "[without − with, T=100/1000]",
        GREATER,
        tuple(
            Row("mnist", f"N={N}", SCANNING, at(N, (100, 1000)), method=method, short=f"N={N}")
            for method in LABELS
            for N in N_GRID
        ),
        SOME,
        about="scanning",
        rows_as_run=True,
    ),
)


def is_method_sentence(sentence: Sentence) -> bool:
    """Whether the sentence compares DisDF with gcF (the paper's point)."""
    return sentence.about == DIFFERENCE


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


def effect_text(result: dict, digits: int = 1) -> str:
    """An effect and its interval in points: "+0.9 [+0.6, +1.1]"."""
    return f"{result['mean']:+.{digits}f} [{result['ci_low']:+.{digits}f}, {result['ci_high']:+.{digits}f}]"


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
