"""Every statistic the reports use, in one place: confidence intervals, paired tests with Holm's
correction, TOST equivalence, Welch's test for unpaired groups, the exact McNemar test, the power of
a paired t-test, and the optimism of the out-of-fold scores."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats


def mean_ci(values: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """Mean and the half-width of its Student-t confidence interval (nan for n < 2)."""
    values = np.asarray(values, dtype=float)
    n = values.size
    mean = float(values.mean()) if n else float("nan")
    if n < 2:
        return mean, float("nan")
    half = stats.t.ppf(0.5 + level / 2, n - 1) * values.std(ddof=1) / np.sqrt(n)
    return mean, float(half)


def paired_wilcoxon(treatment: np.ndarray, baseline: np.ndarray) -> float:
    """Two-sided Wilcoxon signed-rank p-value of treatment - baseline (1.0 if every pair ties)."""
    differences = np.asarray(treatment, float) - np.asarray(baseline, float)
    if differences.size == 0:
        return float("nan")
    if np.all(differences == 0):
        return 1.0
    return float(stats.wilcoxon(differences, zero_method="wilcox", alternative="two-sided").pvalue)


def holm(p_values: np.ndarray) -> np.ndarray:
    """Holm's step-down adjustment of a family of p-values (nan entries are left out)."""
    p = np.asarray(p_values, dtype=float)
    adjusted = np.full_like(p, np.nan)
    valid = np.flatnonzero(~np.isnan(p))
    order = valid[np.argsort(p[valid], kind="stable")]
    m = order.size
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[index]))
        adjusted[index] = running
    return adjusted


def tost_paired(differences: np.ndarray, margin: float, alpha: float = 0.05) -> dict:
    """Two one-sided paired t-tests (TOST) of equivalence: is the mean difference inside ±margin?

    H0: mean ≤ −margin or mean ≥ +margin; rejected (equivalence) when both
    one-sided p-values are below ``alpha``. The TOST p-value is the larger of
    the two, and equivalence at ``alpha`` is the same as the (1 − 2α)
    t-interval lying inside (−margin, +margin).
    """
    d = np.asarray(differences, dtype=float)
    if d.size < 2:
        raise ValueError(f"TOST needs at least 2 paired differences; got {d.size}")
    if d.std() == 0:
        # A t-test is undefined on constant differences: equivalence iff the constant is inside.
        p = 0.0 if abs(d[0]) < margin else 1.0
    else:
        above = stats.ttest_1samp(d, -margin, alternative="greater").pvalue
        below = stats.ttest_1samp(d, margin, alternative="less").pvalue
        p = float(max(above, below))
    _, half = mean_ci(d, level=1 - 2 * alpha)
    mean = float(d.mean())
    return {
        "mean": mean,
        "ci_low": mean - half,
        "ci_high": mean + half,
        "p_tost": p,
        "equivalent": bool(p < alpha),
    }


def welch_p(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sided p of Welch's t-test (unequal variances) for two independent groups."""
    return float(stats.ttest_ind(a, b, equal_var=False).pvalue)


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """Exact McNemar p: a binomial test on the discordant pairs (1 when there are none)."""
    discordant = only_a + only_b
    return float(stats.binomtest(only_a, discordant).pvalue) if discordant else 1.0


def paired_t_power(delta: float, sd: float, n: int, alpha: float = 0.05) -> float:
    """Power of a two-sided one-sample (paired) t-test at level ``alpha`` against a true mean ``delta``.

    Noncentral t with df = n − 1 and nc = δ√n/σ. δ = 0 gives exactly ``alpha``; σ = 0 with δ ≠ 0
    gives 1 (an infinite t statistic always rejects); fewer than 2 pairs gives nan.
    """
    if n < 2:
        return float("nan")
    if delta == 0:
        return float(alpha)
    if sd == 0:
        return 1.0
    df = n - 1
    critical = stats.t.ppf(1 - alpha / 2, df)
    nc = abs(delta) * np.sqrt(n) / sd  # the power is symmetric in δ
    # Both tails as upper tails: scipy's nct.cdf(-c, df, nc) returns nan for nc ≳ 10 (scipy 1.17),
    # while nct.sf(c, df, -nc), the same far tail by symmetry, stays finite.
    return float(stats.nct.sf(critical, df, nc) + stats.nct.sf(critical, df, -nc))


def with_optimism(records: pd.DataFrame) -> pd.DataFrame:
    """``records`` of cascades (a baseline has no levels) with ``kept_score`` (out-of-fold accuracy
    of the kept level) and ``optimism`` (kept_score − test accuracy, in percentage points)."""
    records = records[records["n_levels"] > 0]
    kept = [scores[n - 1] for scores, n in zip(records["level_scores"], records["n_levels"], strict=True)]
    return records.assign(kept_score=kept, optimism=100 * (np.asarray(kept, float) - records["accuracy"]))


def split_mean_ci(frame: pd.DataFrame, column: str) -> tuple[float, float]:
    """Mean of ``column`` and its 95 % CI with the split (N, repetition) as the independent unit:
    the T of one split share their trees, so they are averaged first."""
    per_split = frame.groupby(["N", "repetition"])[column].mean()
    return mean_ci(per_split.to_numpy())
