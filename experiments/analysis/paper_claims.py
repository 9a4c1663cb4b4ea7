"""A verdict for every claim of the paper's section 6, each decided by a number from our records.

The claims (``CLAIMS``), the equivalence margin and the rules (``RULES``) are fixed here, before
anything is computed, and applied mechanically by ``claim_verdicts``. Every difference is
DisDF − gcF in percentage points. Splits: one per (dataset, N, repetition), shared by every T and
both methods, so cells of the same N are paired by repetition and cells of different N are
independent; every effect below is therefore a contrast computed per split within each N and
summed over the independent N (:func:`experiments.analysis.statistics.contrast_over_independent_groups`).

``paper_claims_section`` puts the rules and the table of verdicts into markdown lines.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from experiments.analysis.cells import DATASET_NAMES, LABELS, paired_tests
from experiments.analysis.statistics import (
    contrast_below_p,
    contrast_equivalent,
    contrast_over_independent_groups,
    holm,
)

ALPHA = 0.05
#: Equivalence margin (percentage points) of every TOST that refutes a claim; declared before any data.
EQUIVALENCE_MARGIN = 1.0
POINTS = 100.0  # accuracy in [0, 1] -> percent / percentage points
CONFIRMED, REFUTED, UNDECIDED = "confirmed", "refuted", "not decided"


RULES = {
    "outperforms": "“DisDF outperforms gcF” over some cells. Confirmed: DisDF significantly better "
    "(paired Wilcoxon per cell, Holm within the dataset's 16 cells) in more than half of the cells "
    "and worse in none. Refuted only by evidence against it: the pooled effect over the cells "
    "significantly below 0 (t-test), or equivalent to 0 (TOST within ±{m} pp), or significantly "
    "smaller than the paper's own pooled difference (minimum-effect t-test). Otherwise not decided.",
    "not_significant": "“the difference is not significant” (the paper ran no test): confirmed when "
    "no cell concerned is significant (Holm), refuted otherwise.",
    "not_better": "“DisDF does not outperform gcF”: confirmed when the pooled effect is equivalent to 0 "
    "(TOST ±{m} pp) or significantly below 0; refuted when significantly above 0; else not decided.",
    "larger_than_rest": "“largest / larger at c”: a contrast fixed by the claim, c's mean minus the mean "
    "of the other cells (rows) of the table, t-test: significantly above 0 confirmed, significantly "
    "below 0 refuted, else not decided (symmetric; no data-chosen argmax).",
    "better_contrast": "“more trees give higher accuracy”: a contrast fixed by the claim, per method (and "
    "N), Holm over the claim's contrasts: significantly above 0 confirmed; significantly below 0 or "
    "equivalent to 0 (TOST ±{m} pp) refuted; else not decided.",
    "majority": "Several contrasts (methods, rows) of one claim: confirmed if more than half are "
    "confirmed and none refuted, refuted if more than half are refuted, else not decided.",
}


@dataclass(frozen=True)
class Claim:
    """One claim: where it applies (``Ns``/``Ts``; None = all) and which rule decides it.

    ``versus``: for a contrast, the other side (None: every other cell of the table; a tuple of
    (N, T) cells otherwise); ``quantity``: "difference" (DisDF − gcF) or "accuracy" (per method);
    ``ours``: a row we add, not named in the paper's text.
    """

    number: str
    dataset: str
    text: str
    kind: str
    Ns: tuple[int, ...] | None = None
    Ts: tuple[int, ...] | None = None
    versus: tuple[tuple[int, int], ...] | None = None
    quantity: str = "difference"
    ours: bool = False


ALL_T = (100, 400, 700, 1000)
CLAIMS = (
    Claim("1", "parkinsons", "DisDF > gcF “in most cases”", "outperforms"),
    Claim("2", "parkinsons", "difference “not significant by N=50 and 120”", "not_significant", Ns=(50, 120)),
    Claim(
        "3",
        "parkinsons",
        "“larger by N=100 and the small amount of trees” [T=100]",
        "larger_than_rest",
        Ns=(100,),
        Ts=(100,),
    ),
    Claim(
        "4",
        "parkinsons",
        "“largest difference … by T=1000 and N=100”",
        "larger_than_rest",
        Ns=(100,),
        Ts=(1000,),
    ),
    Claim("5", "ecoli", "“largest difference … by N=50” [row]", "larger_than_rest", Ns=(50,)),
    Claim(
        "6",
        "ecoli",
        "DisDF > gcF “by the very small amount of training data” [N=50]",
        "outperforms",
        Ns=(50,),
    ),
    Claim(
        "7", "ecoli", "DisDF “does not outperform” gcF by N=120, T=700", "not_better", Ns=(120,), Ts=(700,)
    ),
    Claim("8", "ecoli", "DisDF > gcF “observed by T=100 and 400”", "outperforms", Ts=(100, 400)),
    Claim(
        "9", "ionosphere", "“largest difference … by T=100 and N=50”", "larger_than_rest", Ns=(50,), Ts=(100,)
    ),
    Claim(
        "10",
        "ionosphere",
        "DisDF > gcF “by the very small amount of training data” [N=50]",
        "outperforms",
        Ns=(50,),
    ),
    *(
        Claim(
            "11 (N)",
            dataset,
            "“highest accuracy … by the large number of training data” [N=120 row]",
            "larger_than_rest",
            Ns=(120,),
            quantity="accuracy",
            ours=dataset == "mnist",
        )
        for dataset in ("parkinsons", "ecoli", "ionosphere", "mnist")
    ),
    *(
        Claim(
            "11 (T)",
            dataset,
            "“… and the large number of trees” [N=120: T=700/1000 vs 100/400]",
            "better_contrast",
            Ns=(120,),
            Ts=(700, 1000),
            versus=((120, 100), (120, 400)),
            quantity="accuracy",
            ours=dataset == "mnist",
        )
        for dataset in ("parkinsons", "ecoli", "ionosphere", "mnist")
    ),
    *(
        Claim(
            "12",
            dataset,
            "T=1000 at N=80, 100 “does not provide the largest accuracy” [T=400/700 vs 1000; N=80 / 100]",
            "better_contrast",
            Ns=(80, 100),
            Ts=(400, 700),
            versus=((0, 1000),),
            quantity="accuracy",
            ours=dataset == "parkinsons",
        )
        for dataset in ("ecoli", "ionosphere", "parkinsons")
    ),
    Claim("13", "mnist", "DisDF > gcF “in the most cases”", "outperforms"),
    Claim("14", "mnist", "“largest difference … by T=100 and N=50”", "larger_than_rest", Ns=(50,), Ts=(100,)),
)


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


# --- contrasts ------------------------------------------------------------------------------------

Weights = dict[tuple[int, int], float]


def cells_of(
    table: pd.DataFrame, Ns: tuple[int, ...] | None, Ts: tuple[int, ...] | None
) -> list[tuple[int, int]]:
    """The (N, T) cells of a table (index N or (N, repetition), columns T) that ``Ns``/``Ts`` select."""
    all_N = sorted(table.index.get_level_values(0).unique())
    return [(N, T) for N in all_N if Ns is None or N in Ns for T in table.columns if Ts is None or T in Ts]


def claim_weights(claim: Claim, table: pd.DataFrame) -> Weights:
    """The claim's contrast: the mean over its cells, minus (for a contrast) the mean over the other side.

    ``versus`` None with kind ``larger_than_rest``: every other cell of the table; a cell (0, T) in
    ``versus`` stands for T at each of the claim's N.
    """
    mine = cells_of(table, claim.Ns, claim.Ts)
    weights = {cell: 1.0 / len(mine) for cell in mine}
    if claim.kind == "larger_than_rest":
        rest = [cell for cell in cells_of(table, None, None) if cell not in weights]
    elif claim.versus is not None:
        rest = [(N if n == 0 else n, T) for n, T in claim.versus for N in (claim.Ns if n == 0 else (n,))]
    else:
        return weights
    return weights | {cell: -1.0 / len(rest) for cell in rest}


def per_row_weights(claim: Claim, table: pd.DataFrame) -> list[tuple[int | None, Weights]]:
    """One contrast per N when ``versus`` pairs each N with itself (claim 12), else the claim's one."""
    if claim.versus is not None and any(n == 0 for n, _ in claim.versus):
        return [(N, claim_weights(Claim(**{**claim.__dict__, "Ns": (N,)}), table)) for N in claim.Ns]
    return [(None, claim_weights(claim, table))]


def contrast(table: pd.DataFrame, weights: Weights) -> dict:
    """The weighted sum of cell means, per split within each N, summed over the independent N."""
    groups = []
    for N in sorted({n for n, _ in weights}):
        sub = table.loc[N]
        groups.append(sum(w * sub[T] for (n, T), w in weights.items() if n == N).dropna().to_numpy())
    return contrast_over_independent_groups(groups)


def paper_contrast(table: pd.DataFrame, weights: Weights) -> float:
    """The same weighted sum of the paper's values (index N, columns T)."""
    return float(sum(w * table.loc[N, T] for (N, T), w in weights.items()))


def effect_text(result: dict, digits: int = 1) -> str:
    """An effect and its 95 % CI in points: "+0.9 [+0.6, +1.1]"."""
    return f"{result['mean']:+.{digits}f} [{result['ci_low']:+.{digits}f}, {result['ci_high']:+.{digits}f}]"


def _majority(verdicts: list[str]) -> str:
    """More than half confirmed and none refuted: confirmed; more than half refuted: refuted."""
    half = len(verdicts) / 2
    if verdicts.count(CONFIRMED) > half and REFUTED not in verdicts:
        return CONFIRMED
    if verdicts.count(REFUTED) > half:
        return REFUTED
    return UNDECIDED


# --- one function per rule: each returns {ours, paper, verdict, by} ----------------------------------


def cell_counts(claim: Claim, tests: pd.DataFrame, paper_diff: pd.DataFrame) -> tuple[int, int, int, str]:
    """Cells concerned: (DisDF better, worse, all) by the Holm-corrected tests, and the paper's count."""
    cells = tests[(tests["dataset"] == claim.dataset)]
    keep = cells["N"].isin(claim.Ns or cells["N"]) & cells["T"].isin(claim.Ts or cells["T"])
    cells = cells[keep]
    theirs = [paper_diff.loc[(claim.dataset, N), T] for N, T in zip(cells["N"], cells["T"], strict=True)]
    paper_count = f"{sum(v > 0 for v in theirs)}/{len(theirs)}"
    better = int((cells["verdict"] == "DisDF better").sum())
    return better, int((cells["verdict"] == "DisDF worse").sum()), len(cells), paper_count


def decide_difference(claim: Claim, differences, paper_diff, tests) -> dict:
    """Rules ``outperforms``, ``not_significant`` and ``not_better`` on DisDF − gcF."""
    table, paper_table = differences.loc[claim.dataset], paper_diff.loc[claim.dataset]
    weights = claim_weights(claim, table)
    result, theirs = contrast(table, weights), paper_contrast(paper_table, weights)
    better, worse, n, paper_count = cell_counts(claim, tests, paper_diff)
    significant = result["p"] < ALPHA
    equivalent = contrast_equivalent(result, EQUIVALENCE_MARGIN, ALPHA)
    if claim.kind == "outperforms":
        if better > n / 2 and worse == 0:
            verdict, by = CONFIRMED, f"cells: {better}/{n} better, 0 worse"
        elif significant and result["mean"] < 0:
            verdict, by = REFUTED, "opposite effect (t-test)"
        elif equivalent:
            verdict, by = REFUTED, f"equivalent (TOST ±{EQUIVALENCE_MARGIN:g} pp)"
        elif contrast_below_p(result, theirs) < ALPHA:
            verdict, by = REFUTED, "smaller than the paper's (minimum-effect test)"
        else:
            verdict, by = UNDECIDED, f"cells: {better}/{n} better"
    elif claim.kind == "not_significant":
        verdict = CONFIRMED if better + worse == 0 else REFUTED
        by = f"cells significant: {better + worse}/{n}"
    else:  # not_better
        if significant and result["mean"] > 0:
            verdict, by = REFUTED, "DisDF significantly better (t-test)"
        elif equivalent or (significant and result["mean"] < 0):
            verdict, by = (
                CONFIRMED,
                f"equivalent (TOST ±{EQUIVALENCE_MARGIN:g} pp)" if equivalent else "opposite",
            )
        else:
            verdict, by = UNDECIDED, "neither"
    ours = f"{effect_text(result)}; better in {better}/{n}, worse in {worse}"
    return {"ours": ours, "paper": f"{theirs:+.1f}; higher in {paper_count}", "verdict": verdict, "by": by}


def decide_contrasts(claim: Claim, table: pd.DataFrame, paper_table: pd.DataFrame) -> list[dict]:
    """Rules ``larger_than_rest`` and ``better_contrast`` for each contrast of the claim (per method
    when the quantity is accuracy, per N when ``versus`` pairs each N): effect, paper's value, verdict."""
    methods = list(LABELS) if claim.quantity == "accuracy" else [None]
    rows = []
    for method in methods:
        values = table.loc[(claim.dataset, method)] if method else table.loc[claim.dataset]
        theirs = paper_table.loc[(claim.dataset, method)] if method else paper_table.loc[claim.dataset]
        for _, weights in per_row_weights(claim, values):
            result = contrast(values, weights)
            label = LABELS.get(method, "")
            rows.append({"label": label, "result": result, "paper": paper_contrast(theirs, weights)})
    adjusted = holm(np.array([row["result"]["p"] for row in rows]))
    for row, p in zip(rows, adjusted, strict=True):
        result = row["result"]
        if p < ALPHA:
            row["verdict"] = CONFIRMED if result["mean"] > 0 else REFUTED
        elif claim.kind == "better_contrast" and contrast_equivalent(result, EQUIVALENCE_MARGIN, ALPHA):
            row["verdict"] = REFUTED
        else:
            row["verdict"] = UNDECIDED
    return rows


def decide_contrast_claim(claim: Claim, table: pd.DataFrame, paper_table: pd.DataFrame) -> dict:
    """The contrasts of one claim in one row of the verdicts (combined by ``_majority``)."""
    rows = decide_contrasts(claim, table, paper_table)
    ours = _by_label(rows, lambda row: effect_text(row["result"]))
    paper = _by_label(rows, lambda row: f"{row['paper']:+.1f}")
    verdicts = [row["verdict"] for row in rows]
    if len(rows) == 1:
        by = f"contrast t-test, p={rows[0]['result']['p']:.2g}"
    else:
        counts = ", ".join(
            f"{verdicts.count(v)} {v}" for v in (CONFIRMED, REFUTED, UNDECIDED) if v in verdicts
        )
        by = f"majority of {len(rows)} ({counts})"
    return {"ours": ours, "paper": paper, "verdict": _majority(verdicts), "by": by}


def _by_label(rows: list[dict], text) -> str:
    """Contrasts grouped by method: "gcF a / b; DisDF c / d" (the N in the claim's order)."""
    labels = list(dict.fromkeys(row["label"] for row in rows))
    parts = [(label, " / ".join(text(row) for row in rows if row["label"] == label)) for label in labels]
    return "; ".join(f"{label} {values}" if label else values for label, values in parts)


# --- public API -----------------------------------------------------------------------------------

COLUMNS = ["claim", "dataset", "the paper says", "ours (pp) [95% CI]", "paper (pp)", "verdict", "decided by"]


def claim_verdicts(records: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """One row per claim (``CLAIMS``): claim, dataset, text, ours, paper, verdict, the deciding rule."""
    tests = paired_tests(records)
    differences, accuracy = split_differences(records), split_accuracy(records)
    paper_diff, paper_acc = paper_differences(paper), paper_accuracy(paper)
    rows = []
    for claim in CLAIMS:
        if claim.dataset not in differences.index.get_level_values(0):
            continue
        if claim.kind in ("outperforms", "not_significant", "not_better"):
            result = decide_difference(claim, differences, paper_diff, tests)
        elif claim.quantity == "accuracy":
            result = decide_contrast_claim(claim, accuracy, paper_acc)
        else:
            result = decide_contrast_claim(claim, differences, paper_diff)
        rows.append(
            {
                "claim": claim.number + ("*" if claim.ours else ""),
                "dataset": DATASET_NAMES.get(claim.dataset, claim.dataset),
                "the paper says": claim.text,
                "ours (pp) [95% CI]": result["ours"],
                "paper (pp)": result["paper"],
                "verdict": result["verdict"],
                "decided by": result["by"],
            }
        )
    return pd.DataFrame(rows, columns=COLUMNS)


def rules_text() -> list[str]:
    """The rules, as fixed before computing, for REPORT.md: an introduction and one bullet per rule."""
    return [
        "Rules, fixed in `experiments/analysis/paper_claims.py` before any verdict was computed "
        f"(α = {ALPHA}, "
        f"equivalence margin ±{EQUIVALENCE_MARGIN:g} pp; effects in percentage points with 95 % CIs over "
        "independent splits; the paper's column is the same quantity from its tables, which carry no tests):",
        "",
        *(f"- {text.format(m=f'{EQUIVALENCE_MARGIN:g}')}" for text in RULES.values()),
    ]


def paper_claims_section(records: pd.DataFrame, paper: pd.DataFrame) -> list[str]:
    """Markdown lines for REPORT.md: the rules, the table of verdicts and their count."""
    table = claim_verdicts(records, paper)
    counts = table["verdict"].value_counts()
    return [
        "## The paper's claims (its section 6)",
        "",
        *rules_text(),
        "",
        table.to_markdown(index=False),
        "",
        "\\* A row we add: the paper's sentence names other tables (claim 12: Ecoli and Ionosphere) or "
        "precedes this table (claim 11: MNIST).",
        "",
        f"Verdicts: {counts.get(CONFIRMED, 0)} confirmed, {counts.get(REFUTED, 0)} refuted, "
        f"{counts.get(UNDECIDED, 0)} not decided (of {len(table)} rows).",
        "",
    ]
