"""Does tuned DisDF beat gcF where the paper says DisDF does? The tuned headline's decision (#42, item 5),
by the rule declared with its config before its first record
(:data:`~experiments.analysis.benchmark_plan.TUNED_HEADLINE_CONTRASTS`).

Unit of independence: the split. Per dataset, N and contrast (DisDF tuned − gcF; DisDF with
λ = τ = 1 − gcF, the headline's own records of the same 30 splits), the split's difference averaged
over its four T; across the 30 splits a one-sided paired t-test each way, Holm across the dataset's
four N per direction, and TOST within ± :data:`MARGIN_PP` (at α, no adjustment: each N is its own
equivalence question). Verdict: "better" (significant in DisDF's favour), "worse" (significant
against), "equivalent" (TOST), "better, within ±1" (both better and equivalent), else "not decided".
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from experiments.analysis.benchmark_plan import TUNED_HEADLINE_CONTRASTS
from experiments.analysis.plan import ALPHA, BETTER, EQUIVALENT, MARGIN_PP, NOT_DECIDED, WORSE
from experiments.analysis.statistics import holm, mean_ci, tost_paired

POINTS = 100.0
SPLIT = ["dataset", "N", "repetition"]


def split_differences(headline: pd.DataFrame, tuned: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, N, repetition) of the tuned run: each contrast's difference in points, averaged
    over the split's T. The headline's records of those splits must carry the same split seeds."""
    both = pd.concat([headline[headline.repetition < tuned.repetition.max() + 1], tuned], ignore_index=True)
    seeds = both.groupby(SPLIT)["seed"].nunique()
    if (seeds > 1).any():
        raise ValueError(
            f"the tuned and headline records disagree on the split seeds of {list(seeds[seeds > 1].index)}"
        )
    wide = both.pivot_table(index=[*SPLIT, "T"], columns="method", values="accuracy")
    complete = wide.dropna()
    columns = {f"{a} - {b}": POINTS * (complete[a] - complete[b]) for a, b in TUNED_HEADLINE_CONTRASTS}
    return pd.DataFrame(columns).groupby(level=SPLIT).mean()


def decisions(differences: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """One row per (dataset, N, contrast): the mean difference with its 95 % CI, the Holm-adjusted
    one-sided p-values, TOST, the verdict, and the paper's DisDF − gcF averaged over T at that N."""
    paper_wide = paper.pivot_table(index=["dataset", "N", "T"], columns="method", values="accuracy")
    paper_gap = (
        (POINTS * (paper_wide["disdf"] - paper_wide["gcforest"])).groupby(level=["dataset", "N"]).mean()
    )
    rows = []
    for contrast in differences.columns:
        for dataset, per_dataset in differences[contrast].groupby(level="dataset"):
            by_n = {N: values.to_numpy() for N, values in per_dataset.groupby(level="N")}
            better = holm(
                np.array([stats.ttest_1samp(d, 0, alternative="greater").pvalue for d in by_n.values()])
            )
            worse = holm(
                np.array([stats.ttest_1samp(d, 0, alternative="less").pvalue for d in by_n.values()])
            )
            for (N, d), p_better, p_worse in zip(by_n.items(), better, worse, strict=True):
                mean, half = mean_ci(d)
                equivalent = tost_paired(d, MARGIN_PP, ALPHA)["equivalent"]
                rows.append(
                    {
                        "contrast": contrast,
                        "dataset": dataset,
                        "N": N,
                        "splits": len(d),
                        "mean": mean,
                        "ci_low": mean - half,
                        "ci_high": mean + half,
                        "p_better_holm": p_better,
                        "p_worse_holm": p_worse,
                        "equivalent": equivalent,
                        "verdict": verdict(p_better < ALPHA, p_worse < ALPHA, equivalent),
                        "paper": float(paper_gap.get((dataset, N), np.nan)),
                    }
                )
    return pd.DataFrame(rows)


def verdict(better: bool, worse: bool, equivalent: bool) -> str:
    if better:
        return f"{BETTER}, within ±{MARGIN_PP:g}" if equivalent else BETTER
    if worse:
        return WORSE
    return EQUIVALENT if equivalent else NOT_DECIDED


def tuned_choices(tuned: pd.DataFrame) -> pd.Series:
    """The share of kept levels at each chosen (λ, τ), over every tuned record."""
    chosen = [tuple(point) for points in tuned["tuned"] for point in points]
    return pd.Series(chosen).value_counts(normalize=True)
