"""A verdict for every claim of the paper's section 6, each decided by a number from our records.

The claims (``CLAIMS``) and the rules (``RULES``) are fixed here, before anything is computed, and
applied mechanically by ``claim_verdicts``. Every difference is DisDF − gcF in percentage points.
Splits: one per (dataset, N, repetition), shared by every T and both methods, so two cells of the
same N are paired by repetition and cells of different N are independent.

``paper_claims_section`` puts the table into markdown lines for REPORT.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from experiments.reporting.formatting import signed_pp
from experiments.reporting.statistics import holm, paired_wilcoxon, tost_paired, welch_p
from experiments.reporting.tables import paired_tests

ALPHA = 0.05
#: Equivalence margin (percentage points) of the TOST that refutes a T effect (claim kind ``t_effect``).
EQUIVALENCE_MARGIN = 1.0
POINTS = 100.0  # accuracy in [0, 1] -> percent / percentage points
LABELS = {"gcforest": "gcF", "disdf": "DisDF"}
CONFIRMED, REFUTED, UNDECIDED = "confirmed", "refuted", "not decided by our data"

RULES = {
    "outperforms": "DisDF significantly better (paired Wilcoxon, Holm within the dataset's 16 cells, "
    "α = 0.05) in more than half of the cells concerned and significantly worse in none: confirmed; "
    "otherwise refuted.",
    "not_significant": "no cell concerned significant (Holm): confirmed; otherwise refuted.",
    "not_better": "no cell concerned significantly better (Holm): confirmed; otherwise refuted.",
    "largest": "the claimed cell/row is our argmax of the mean difference: confirmed; otherwise refuted "
    "if it is significantly below the argmax (same N: paired Wilcoxon over the shared splits; "
    "different N: Welch t-test; α = 0.05), else not decided.",
    "larger_than_rest": "the cell's mean difference minus the mean of the other cells' mean "
    "differences, a contrast t-test (its variance from the per-split contrasts within each N, "
    "independent across N, Welch–Satterthwaite df): significantly > 0 confirmed, significantly < 0 "
    "refuted, else not decided.",
    "best_accuracy": "per method, the 'largest' rule on mean accuracy with the claimed cells "
    "N = 120, T ∈ {700, 1000} (the better of them is compared with the argmax); the dataset's verdict "
    "combines both methods by the majority rule below.",
    "t_effect": "per (N, method) row: accuracy at the better of T = 400, 700 (by mean) minus T = 1000, "
    "paired over splits: significantly > 0 (Wilcoxon, Holm over all rows tested) confirmed; "
    "significantly < 0, or equivalent by a paired TOST with margin ±1 pp, refuted; else not decided. "
    "The dataset's verdict combines its rows by the majority rule below.",
    "majority": "rows combined: confirmed if more than half are confirmed and none refuted, refuted if "
    "more than half are refuted, else not decided.",
}


@dataclass(frozen=True)
class Claim:
    """One claim: where it applies (``Ns``/``Ts``; None = all) and which rule decides it."""

    number: int
    dataset: str  # a dataset, or "all"
    text: str
    kind: str
    Ns: tuple[int, ...] | None = None
    Ts: tuple[int, ...] | None = None


CLAIMS = (
    Claim(1, "parkinsons", "“the accuracy of the DisDF exceeds … the gcForest in most cases”", "outperforms"),
    Claim(
        2,
        "parkinsons",
        "“The difference is not significant by N=50 and 120”",
        "not_significant",
        Ns=(50, 120),
    ),
    Claim(
        3,
        "parkinsons",
        "“it is larger by N=100 and the small amount of trees T” [N=100, T=100 vs the other cells]",
        "larger_than_rest",
        Ns=(100,),
        Ts=(100,),
    ),
    Claim(
        4, "parkinsons", "“the largest difference … by T=1000 and N=100”", "largest", Ns=(100,), Ts=(1000,)
    ),
    Claim(5, "ecoli", "“the largest difference … by N=50” [row mean]", "largest", Ns=(50,)),
    Claim(
        6,
        "ecoli",
        "“DisDF outperforms the gcForest by the very small amount of training data” [N=50]",
        "outperforms",
        Ns=(50,),
    ),
    Claim(
        7,
        "ecoli",
        "“the DisDF does not outperform the gcForest by N=120 and T=700”",
        "not_better",
        Ns=(120,),
        Ts=(700,),
    ),
    Claim(
        8,
        "ecoli",
        "“the outperformance of the DisDF is observed by T=100 and 400”",
        "outperforms",
        Ts=(100, 400),
    ),
    Claim(9, "ionosphere", "“the largest difference … by T=100 and N=50”", "largest", Ns=(50,), Ts=(100,)),
    Claim(
        10,
        "ionosphere",
        "“the DisDF outperforms the gcForest by the very small amount of training data” [N=50]",
        "outperforms",
        Ns=(50,),
    ),
    *(
        Claim(
            11,
            dataset,
            "“the highest accuracy … by the large number of training data and the large number of trees” "
            "[best cell at N=120, T ≥ 700]",
            "best_accuracy",
            Ns=(120,),
            Ts=(700, 1000),
        )
        for dataset in ("parkinsons", "ecoli", "ionosphere", "mnist")
    ),
    *(
        Claim(
            12,
            dataset,
            "“the largest number of trees by … N=80 and 100 does not provide the largest accuracy … "
            "achieved at T=400 and 700”",
            "t_effect",
            Ns=(80, 100),
        )
        for dataset in ("parkinsons", "ecoli", "ionosphere")
    ),
    Claim(13, "mnist", "“the DisDF outperforms the gcForest in the most cases”", "outperforms"),
    Claim(
        14,
        "mnist",
        "“the largest difference … is observed by T=100 and N=50”",
        "largest",
        Ns=(50,),
        Ts=(100,),
    ),
    Claim(15, "all", "“DisDF outperforms gcForest in most cases” [conclusion, 64 cells]", "outperforms"),
)

Unit = tuple[int, int | None]  # (N, T) a cell, (N, None) a row of the table


# --- per-split tables ---------------------------------------------------------------------------


def split_differences(records: pd.DataFrame) -> pd.DataFrame:
    """DisDF − gcF in points: index (dataset, N, repetition), columns T."""
    wide = records.pivot_table(index=["dataset", "N", "T", "repetition"], columns="method", values="accuracy")
    return ((wide["disdf"] - wide["gcforest"]) * POINTS).unstack("T")


def split_accuracy(records: pd.DataFrame) -> pd.DataFrame:
    """Accuracy in percent: index (dataset, method, N, repetition), columns T."""
    table = records.pivot_table(
        index=["dataset", "method", "N", "repetition"], columns="T", values="accuracy"
    )
    return table * POINTS


def paper_differences(paper: pd.DataFrame) -> pd.DataFrame:
    """The paper's DisDF − gcF in points (rounded to 1e-6 so printed ties stay ties): index (dataset, N)."""
    wide = paper.pivot_table(index=["dataset", "N", "T"], columns="method", values="accuracy")
    return ((wide["disdf"] - wide["gcforest"]) * POINTS).round(6).unstack("T")


def paper_accuracy(paper: pd.DataFrame) -> pd.DataFrame:
    """The paper's accuracy in percent: index (dataset, method, N), columns T."""
    return (
        paper.pivot_table(index=["dataset", "method", "N"], columns="T", values="accuracy") * POINTS
    ).round(6)


# --- helpers ------------------------------------------------------------------------------------


def _per_split(table: pd.DataFrame, unit: Unit) -> pd.Series:
    """A unit's value per split (index repetition); a row is the mean over its T (complete splits)."""
    N, T = unit
    sub = table.loc[N]
    values = sub.mean(axis=1, skipna=False) if T is None else sub[T]
    return values.dropna()


def _units(table: pd.DataFrame, by_row: bool) -> list[Unit]:
    Ns = sorted(table.index.get_level_values(0).unique())
    return [(N, None) for N in Ns] if by_row else [(N, T) for N in Ns for T in table.columns]


def _paper_means(table: pd.DataFrame, units: list[Unit]) -> dict[Unit, float]:
    """Per unit, the paper's value (a row: the mean over T); table index N, columns T."""
    return {u: float(table.loc[u[0]].mean() if u[1] is None else table.loc[u[0], u[1]]) for u in units}


def _name(unit: Unit) -> str:
    return f"N={unit[0]} row" if unit[1] is None else f"N={unit[0]},T={unit[1]}"


def _names(units: list[Unit]) -> str:
    """Tied units, those of one N together: "N=120,T=400/700/1000"."""
    by_N: dict[int, list] = {}
    for N, T in units:
        by_N.setdefault(N, []).append(T)
    return ", ".join(
        f"N={N} row" if Ts == [None] else f"N={N},T=" + "/".join(str(T) for T in Ts) for N, Ts in by_N.items()
    )


def _p(value: float) -> str:
    return f"p={value:.2g}"


def _select(frame: pd.DataFrame, claim: Claim) -> pd.DataFrame:
    """The rows of a per-cell frame (dataset, N, T columns) that the claim concerns."""
    keep = pd.Series(True, index=frame.index)
    if claim.dataset != "all":
        keep &= frame["dataset"] == claim.dataset
    if claim.Ns is not None:
        keep &= frame["N"].isin(claim.Ns)
    if claim.Ts is not None:
        keep &= frame["T"].isin(claim.Ts)
    return frame[keep]


def _paper_cells(paper_diff: pd.DataFrame, claim: Claim) -> pd.DataFrame:
    long = paper_diff.stack().rename("difference").reset_index()
    return _select(long, claim)


def _compare(table: pd.DataFrame, low: Unit, high: Unit) -> tuple[float, str]:
    """Two-sided p of ``low`` against ``high``: paired Wilcoxon for the same N, else Welch t-test."""
    a, b = _per_split(table, low), _per_split(table, high)
    if low[0] == high[0]:
        a, b = a.align(b, join="inner")
        return paired_wilcoxon(a.to_numpy(), b.to_numpy()), "Wilcoxon"
    return welch_p(a.to_numpy(), b.to_numpy()), "Welch"


def _majority(verdicts: list[str]) -> str:
    """More than half confirmed and none refuted: confirmed; more than half refuted: refuted."""
    half = len(verdicts) / 2
    if verdicts.count(CONFIRMED) > half and REFUTED not in verdicts:
        return CONFIRMED
    if verdicts.count(REFUTED) > half:
        return REFUTED
    return UNDECIDED


# --- one function per claim kind: each returns (ours, paper, verdict) ----------------------------


def significance_counts(claim: Claim, tests: pd.DataFrame, paper_diff: pd.DataFrame) -> tuple[str, str, str]:
    """Rules ``outperforms``, ``not_significant`` and ``not_better`` on the Holm-corrected cell tests."""
    cells = _select(tests, claim)
    theirs = _paper_cells(paper_diff, claim)
    paper_text = (
        f"DisDF higher in {int((theirs['difference'] > 0).sum())}/{len(theirs)} cells, lower in "
        f"{int((theirs['difference'] < 0).sum())} ({signed_pp(theirs['difference'].min())} to "
        f"{signed_pp(theirs['difference'].max())})"
        if len(theirs) > 1
        else f"DisDF − gcF {signed_pp(theirs['difference'].sum())}"
    )
    if cells.empty:
        return "no records", paper_text, UNDECIDED
    better = int((cells["verdict"] == "DisDF better").sum())
    worse = int((cells["verdict"] == "DisDF worse").sum())
    n = len(cells)
    mean = signed_pp(cells["difference"].mean() * POINTS)
    ours = f"DisDF better in {better}/{n} cells, worse in {worse} (Holm); mean {mean}"
    if claim.kind == "outperforms":
        verdict = CONFIRMED if better > n / 2 and worse == 0 else REFUTED
    elif claim.kind == "not_significant":
        verdict = CONFIRMED if better + worse == 0 else REFUTED
    else:  # not_better
        verdict = CONFIRMED if better == 0 else REFUTED
    return ours, paper_text, verdict


def largest_at(
    table: pd.DataFrame, paper_table: pd.DataFrame, claimed: list[Unit], by_row: bool, unit_label: str = "pp"
) -> tuple[str, str, str]:
    """Rule ``largest``: is the (best of the) claimed unit(s) our argmax, or significantly below it?

    ``table``: per-split values, index (N, repetition), columns T; ``paper_table``: index N, columns T.
    """
    units = _units(table, by_row)
    means = {u: float(_per_split(table, u).mean()) for u in units}
    fmt = signed_pp if unit_label == "pp" else (lambda v: f"{v:.1f} %")
    best = max(means, key=means.get)
    mine = max(claimed, key=means.get)
    theirs = _paper_means(paper_table, units)
    top = max(theirs.values())
    paper_text = f"argmax {_names([u for u in units if theirs[u] == top])}: {fmt(top)}"
    if len(claimed) == 1:
        paper_text = f"{_name(claimed[0])}: {fmt(theirs[claimed[0]])}; {paper_text}"
    if best == mine:
        runner_up = max((u for u in units if u != best), key=means.get)
        next_best = f"next {_name(runner_up)}: {fmt(means[runner_up])}"
        return f"{_name(mine)}: {fmt(means[mine])} is the argmax ({next_best})", paper_text, CONFIRMED
    p, test = _compare(table, mine, best)
    ours = f"{_name(mine)}: {fmt(means[mine])} vs argmax {_name(best)}: {fmt(means[best])}, {_p(p)} ({test})"
    return ours, paper_text, REFUTED if p < ALPHA else UNDECIDED


def larger_than_rest(table: pd.DataFrame, paper_table: pd.DataFrame, cell: Unit) -> tuple[str, str, str]:
    """Rule ``larger_than_rest``: contrast (cell − mean of the other cells), t-test over independent Ns.

    Within an N the cells share splits, so the contrast is computed per split; its variance is the
    sum over N of var(per-split contrast)/n, with Welch–Satterthwaite degrees of freedom.
    """
    units = _units(table, by_row=False)
    others = [u for u in units if u != cell]
    weight = {u: -1.0 / len(others) for u in others} | {cell: 1.0}
    estimate, variance, df_denominator = 0.0, 0.0, 0.0
    for N in sorted({u[0] for u in units}):
        sub = table.loc[N]
        contrast = sum(w * sub[T] for (n, T), w in weight.items() if n == N).dropna()
        v = float(contrast.var(ddof=1)) / len(contrast)
        estimate += float(contrast.mean())
        variance += v
        df_denominator += v**2 / (len(contrast) - 1)
    t = estimate / np.sqrt(variance)
    p = float(2 * stats.t.sf(abs(t), variance**2 / df_denominator))
    mean_cell = float(_per_split(table, cell).mean())
    ours = (
        f"{_name(cell)}: {signed_pp(mean_cell)} vs the other cells' mean {signed_pp(mean_cell - estimate)}: "
        f"contrast {signed_pp(estimate)}, {_p(p)}"
    )
    theirs = _paper_means(paper_table, units)
    rest = float(np.mean([theirs[u] for u in others]))
    paper_text = f"{_name(cell)}: {signed_pp(theirs[cell])} vs the other cells' mean {signed_pp(rest)}"
    if p < ALPHA:
        return ours, paper_text, CONFIRMED if estimate > 0 else REFUTED
    return ours, paper_text, UNDECIDED


def best_accuracy(claim: Claim, accuracy: pd.DataFrame, paper_acc: pd.DataFrame) -> tuple[str, str, str]:
    """Rule ``best_accuracy``: ``largest_at`` on each method's accuracy, combined by ``_majority``."""
    claimed = [(N, T) for N in claim.Ns for T in claim.Ts]
    parts, paper_parts, verdicts = [], [], []
    for method in LABELS:
        ours, theirs, verdict = largest_at(
            accuracy.loc[(claim.dataset, method)],
            paper_acc.loc[(claim.dataset, method)],
            claimed,
            by_row=False,
            unit_label="%",
        )
        parts.append(f"{LABELS[method]}: {ours}")
        paper_parts.append(f"{LABELS[method]}: {theirs}")
        verdicts.append(verdict)
    return "; ".join(parts), "; ".join(paper_parts), _majority(verdicts)


def t_effect_rows(claims: list[Claim], accuracy: pd.DataFrame, paper_acc: pd.DataFrame) -> pd.DataFrame:
    """Rule ``t_effect`` per (dataset, N, method): better of T=400/700 minus T=1000, Holm over all rows."""
    rows = []
    for claim in claims:
        for N in claim.Ns:
            for method in LABELS:
                table = accuracy.loc[(claim.dataset, method, N)]
                chosen = max((400, 700), key=lambda T: table[T].mean())
                paired = table[[chosen, 1000]].dropna()
                d = (paired[chosen] - paired[1000]).to_numpy()
                tost = tost_paired(d, margin=EQUIVALENCE_MARGIN, alpha=ALPHA)
                theirs = paper_acc.loc[(claim.dataset, method, N)]
                rows.append(
                    {
                        "dataset": claim.dataset,
                        "N": N,
                        "method": method,
                        "T": chosen,
                        "difference": float(d.mean()),
                        "p_value": paired_wilcoxon(paired[chosen].to_numpy(), paired[1000].to_numpy()),
                        "equivalent": tost["equivalent"],
                        "paper": float(max(theirs[400], theirs[700]) - theirs[1000]),
                    }
                )
    frame = pd.DataFrame(rows)
    frame["p_holm"] = holm(frame["p_value"].to_numpy())
    significant = frame["p_holm"] < ALPHA
    frame["verdict"] = np.select(
        [
            significant & (frame["difference"] > 0),
            (significant & (frame["difference"] < 0)) | frame["equivalent"],
        ],
        [CONFIRMED, REFUTED],
        UNDECIDED,
    )
    return frame


def t_effect(claim: Claim, rows: pd.DataFrame) -> tuple[str, str, str]:
    """Rule ``t_effect`` for one dataset: its rows of ``t_effect_rows``, combined by ``_majority``."""
    mine = rows[rows["dataset"] == claim.dataset]
    mark = {CONFIRMED: ">", REFUTED: "≤", UNDECIDED: "?"}
    details = ", ".join(
        f"N={r.N} {LABELS[r.method]} T={r.T}: {signed_pp(r.difference)}"
        + (" (equiv.)" if r.equivalent else f" ({mark[r.verdict]}, p_Holm={r.p_holm:.2g})")
        for r in mine.itertuples()
    )
    counts = mine["verdict"].value_counts()
    equivalent = f"{int(mine['equivalent'].sum())} equivalent within ±{EQUIVALENCE_MARGIN:g} pp"
    ours = (
        f"T=400/700 above T=1000 in {counts.get(CONFIRMED, 0)}/{len(mine)} rows, not above in "
        f"{counts.get(REFUTED, 0)} ({equivalent}): {details}"
    )
    paper_text = f"T=400/700 above T=1000 in {int((mine['paper'] > 0).sum())}/{len(mine)} rows: " + ", ".join(
        f"N={r.N} {LABELS[r.method]}: {signed_pp(r.paper)}" for r in mine.itertuples()
    )
    return ours, paper_text, _majority(list(mine["verdict"]))


# --- public API -----------------------------------------------------------------------------------


def claim_verdicts(records: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """One row per claim (``CLAIMS``): claim, dataset, text, ours, paper, verdict."""
    tests = paired_tests(records)
    differences, accuracy = split_differences(records), split_accuracy(records)
    paper_diff, paper_acc = paper_differences(paper), paper_accuracy(paper)
    t_rows = t_effect_rows([c for c in CLAIMS if c.kind == "t_effect"], accuracy, paper_acc)
    rows = []
    for claim in CLAIMS:
        if claim.kind in ("outperforms", "not_significant", "not_better"):
            result = significance_counts(claim, tests, paper_diff)
        elif claim.kind == "largest":
            cell = (claim.Ns[0], None if claim.Ts is None else claim.Ts[0])
            result = largest_at(
                differences.loc[claim.dataset], paper_diff.loc[claim.dataset], [cell], by_row=claim.Ts is None
            )
        elif claim.kind == "larger_than_rest":
            result = larger_than_rest(
                differences.loc[claim.dataset], paper_diff.loc[claim.dataset], (claim.Ns[0], claim.Ts[0])
            )
        elif claim.kind == "best_accuracy":
            result = best_accuracy(claim, accuracy, paper_acc)
        else:
            result = t_effect(claim, t_rows)
        ours, theirs, verdict = result
        rows.append(
            {
                "claim": claim.number,
                "dataset": claim.dataset,
                "text": claim.text,
                "ours": ours,
                "paper": theirs,
                "verdict": verdict,
            }
        )
    return pd.DataFrame(rows, columns=["claim", "dataset", "text", "ours", "paper", "verdict"])


def paper_claims_section(records: pd.DataFrame, paper: pd.DataFrame) -> list[str]:
    """Markdown lines for REPORT.md: the rules, the table of verdicts and their count."""
    table = claim_verdicts(records, paper)
    counts = table["verdict"].value_counts()
    rules = (
        "Each claim of the paper's section 6 is decided mechanically by rules fixed before computing "
        "(differences DisDF − gcF in percentage points, α = 0.05, cell tests paired Wilcoxon with Holm "
        "within each dataset's 16 cells as in the tables): “outperforms / in most cases” is confirmed "
        "when DisDF is significantly better in more than half of the cells concerned and worse in none "
        "(else refuted); “not significant” / “does not outperform” is confirmed when no cell concerned "
        "is significant / significantly better (else refuted); “largest at c” is confirmed when c is "
        "our argmax, refuted when c is significantly below the argmax (same N: paired Wilcoxon; "
        "different N: Welch t-test), else not decided; “larger by c” is a contrast t-test of c against "
        "the mean of the other cells; the T claims compare accuracy at the better of T = 400/700 with "
        f"T = 1000 per (N, method) row (paired Wilcoxon, Holm over the rows; refuted also by a paired "
        f"TOST equivalence within ±{EQUIVALENCE_MARGIN:g} pp) and combine rows (and methods) by "
        "majority: confirmed if more than half are confirmed and none refuted, refuted if more than "
        "half are refuted, else not decided. The paper's column gives its own values for the same "
        "quantity (it reports no tests)."
    )
    return [
        "### The paper's claims (section 6)",
        "",
        rules,
        "",
        table.to_markdown(index=False),
        "",
        f"Verdicts: {counts.get(CONFIRMED, 0)} confirmed, {counts.get(REFUTED, 0)} refuted, "
        f"{counts.get(UNDECIDED, 0)} not decided by our data (of {len(table)}).",
        "",
    ]
