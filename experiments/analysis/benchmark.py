"""The benchmark's comparison across datasets, by the rules of :mod:`experiments.analysis.benchmark_plan`
(declared before its records): each dataset one unit, its accuracy the mean over its repetitions.

Friedman's test (scipy), Nemenyi's post-hoc test and mean ranks (scikit-posthocs), Wilcoxon's
signed-rank test with Holm's correction (scipy, statistics.holm) and the Bayesian signed-rank test
with a region of practical equivalence (baycomp, Benavoli et al. 2017).
"""

from __future__ import annotations

from dataclasses import dataclass

import baycomp
import numpy as np
import pandas as pd
import scikit_posthocs
from scipy import stats

from experiments.analysis.benchmark_plan import CONTRASTS, TRAITS
from experiments.analysis.plan import (
    ALPHA,
    BETTER,
    DECISION_PROBABILITY,
    EQUIVALENT,
    MARGIN_PP,
    NOT_DECIDED,
    WORSE,
)
from experiments.analysis.statistics import five_by_two_interval, holm, paired_wilcoxon


def complete_repetitions(records: pd.DataFrame, metric: str = "accuracy") -> pd.DataFrame:
    """(dataset, repetition) x methods ``metric``, only the repetitions every method completed."""
    return records.pivot_table(index=["dataset", "repetition"], columns="method", values=metric).dropna()


def dataset_accuracies(records: pd.DataFrame, metric: str = "accuracy") -> pd.DataFrame:
    """Datasets x methods: each method's mean test ``metric`` (accuracy, or the secondary endpoint
    :data:`~experiments.analysis.benchmark_plan.SECONDARY_METRIC`) over a dataset's complete
    repetitions, in percentage points."""
    return 100 * complete_repetitions(records, metric).groupby(level="dataset").mean()


def has_metric(records: pd.DataFrame, metric: str) -> bool:
    """Whether every record carries ``metric`` (records made before it was declared do not)."""
    return metric in records and bool(records[metric].notna().all())


@dataclass(frozen=True)
class Ranking:
    """Friedman's test over the methods, and Nemenyi's pairwise p-values and the mean ranks."""

    statistic: float
    p_value: float
    mean_ranks: pd.Series
    nemenyi: pd.DataFrame


def ranking(accuracies: pd.DataFrame) -> Ranking:
    """The methods ranked per dataset (1 best; ties share their mean rank), tested across datasets."""
    statistic, p_value = stats.friedmanchisquare(*(accuracies[column] for column in accuracies.columns))
    ranks = accuracies.rank(axis=1, ascending=False).mean().sort_values()
    nemenyi = scikit_posthocs.posthoc_nemenyi_friedman(accuracies.to_numpy())
    nemenyi.index = nemenyi.columns = accuracies.columns
    return Ranking(float(statistic), float(p_value), ranks, nemenyi)


class BayesianVerdict:
    """A contrast's verdict from its posterior probabilities (the dataclass's fields ``p_better``,
    ``p_equivalent``, ``p_worse``): the one above DECISION_PROBABILITY, else "not decided"."""

    p_worse: float
    p_equivalent: float
    p_better: float

    @property
    def verdict(self) -> str:
        """ "better", "equivalent" or "worse" where its probability exceeds DECISION_PROBABILITY."""
        for name, p in ((BETTER, self.p_better), (EQUIVALENT, self.p_equivalent), (WORSE, self.p_worse)):
            if p > DECISION_PROBABILITY:
                return name
        return NOT_DECIDED


@dataclass(frozen=True)
class Contrast(BayesianVerdict):
    """One contrast (treatment - baseline) across datasets, by both of the declared tests."""

    treatment: str
    baseline: str
    mean_pp: float
    wilcoxon_p: float
    holm_p: float
    p_worse: float
    p_equivalent: float
    p_better: float


def contrasts(accuracies: pd.DataFrame, seed: int = 0) -> list[Contrast]:
    """Every declared contrast: Wilcoxon over datasets (Holm across the contrasts) and the Bayesian
    signed-rank test with a ROPE of +-MARGIN_PP points (its Monte Carlo draws seeded)."""
    rows = []
    for treatment, baseline in CONTRASTS:
        x, y = accuracies[treatment].to_numpy(), accuracies[baseline].to_numpy()
        wilcoxon = stats.wilcoxon(x, y).pvalue if np.any(x != y) else 1.0
        # baycomp gives (P(x better), P(within the rope), P(y better)), its draws seeded here
        p_better, p_equivalent, p_worse = baycomp.SignedRankTest.probs(
            x, y, rope=MARGIN_PP, random_state=seed
        )
        rows.append(
            [treatment, baseline, float(np.mean(x - y)), float(wilcoxon), p_worse, p_equivalent, p_better]
        )
    adjusted = holm(np.array([row[3] for row in rows]))
    return [
        Contrast(t, b, m, w, float(h), float(pw), float(pe), float(pb))
        for (t, b, m, w, pw, pe, pb), h in zip(rows, adjusted, strict=True)
    ]


def trait_correlations(accuracies: pd.DataFrame, traits: pd.DataFrame) -> pd.DataFrame:
    """Spearman's correlation of DisDF's gain over gcF with each declared trait (descriptive only)."""
    gain = accuracies["disdf"] - accuracies["gcforest"]
    table = traits.set_index("dataset").join(accuracies["gcforest"].rename("gcforest_accuracy"))
    rows = []
    for trait in TRAITS:
        rho, p = stats.spearmanr(table.loc[gain.index, trait], gain)
        rows.append({"trait": trait, "spearman_rho": float(rho), "p_uncorrected": float(p)})
    return pd.DataFrame(rows)


def with_df21(
    accuracies: pd.DataFrame, df21: pd.DataFrame, repetitions: int
) -> tuple[pd.DataFrame, pd.Series]:
    """``accuracies`` with DF21's column (points) on the tables where DF21 completed every repetition,
    and the other tables' first non-"ok" status (DF21 fitted in its own venv: df21.csv)."""
    ok = df21[df21["status"] == "ok"]
    complete = ok.groupby("dataset")["repetition"].nunique() == repetitions
    tables = [t for t in complete[complete].index if t in accuracies.index]
    joined = accuracies.loc[tables].assign(df21=100 * ok.groupby("dataset")["accuracy"].mean().loc[tables])
    failed = df21[df21["status"] != "ok"].groupby("dataset")["status"].first()
    return joined, failed


__all__ = [
    "Contrast",
    "Ranking",
    "contrasts",
    "dataset_accuracies",
    "five_by_two_interval",
    "ranking",
    "trait_correlations",
    "with_df21",
]


def per_dataset_differences(
    records: pd.DataFrame, treatment: str, baseline: str, scheme: str
) -> pd.DataFrame:
    """Per dataset: the mean paired difference treatment - baseline over its repetitions (points) and
    its 95 % CI, unadjusted: Student's t over repetitions (holdout), Dietterich's 5 x 2 t (5x2cv)."""
    table = complete_repetitions(records)
    difference = 100 * (table[treatment] - table[baseline])
    rows = []
    for dataset, values in difference.groupby(level="dataset"):
        n = len(values)
        if scheme == "5x2cv":
            mean, half = five_by_two_interval(values.droplevel("dataset"))
        else:
            mean = values.mean()
            half = stats.t.ppf(1 - ALPHA / 2, n - 1) * values.std(ddof=1) / np.sqrt(n) if n > 1 else np.nan
        rows.append({"dataset": dataset.removeprefix("keel_"), "mean": mean, "half": half, "n": n})
    return pd.DataFrame(rows).sort_values("mean")


def critical_difference(n_methods: int, n_datasets: int, alpha: float = ALPHA) -> float:
    """Nemenyi's critical difference of mean ranks (Demšar 2006): q_alpha sqrt(k(k+1) / 6N), q_alpha the
    studentized range quantile over sqrt(2) (scipy)."""
    q = stats.studentized_range.ppf(1 - alpha, n_methods, np.inf) / np.sqrt(2)
    return float(q * np.sqrt(n_methods * (n_methods + 1) / (6 * n_datasets)))


def df21_against_gcforest(joined: pd.DataFrame) -> tuple[float, float]:
    """DF21 − gcF over the tables of ``joined`` (one row per table, points): the mean gap and the
    paired Wilcoxon p over the tables."""
    gap = joined["df21"] - joined["gcforest"]
    return float(gap.mean()), paired_wilcoxon(joined["df21"].to_numpy(), joined["gcforest"].to_numpy())
