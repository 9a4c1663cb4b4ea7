"""Confidence intervals and paired tests for the accuracy tables."""

from __future__ import annotations

import numpy as np
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
