"""Every statistic the reports use, in one place: confidence intervals, paired tests (Wilcoxon with
or without Pratt's zero handling, paired t) with Holm's correction, TOST equivalence (paired, two
groups, a contrast), minimum-effect tests, contrasts over independent groups (optionally with Nadeau
and Bengio's correction for resampled splits), Welch's test, the exact McNemar test, the power of a
paired t-test, a scaled chi-square estimate with its heterogeneity test, Pearson's correlation, and
the optimism of the out-of-fold scores. The tests are scipy's."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from experiments.analysis.plan import ALPHA, CONFIDENCE


def mean_ci(values: np.ndarray, level: float = CONFIDENCE) -> tuple[float, float]:
    """Mean and the half-width of its Student-t confidence interval (nan for n < 2)."""
    values = np.asarray(values, dtype=float)
    n = values.size
    mean = float(values.mean()) if n else float("nan")
    if n < 2:
        return mean, float("nan")
    half = stats.t.ppf(0.5 + level / 2, n - 1) * values.std(ddof=1) / np.sqrt(n)
    return mean, float(half)


def paired_wilcoxon(treatment: np.ndarray, baseline: np.ndarray, zero_method: str = "wilcox") -> float:
    """Two-sided Wilcoxon signed-rank p-value of treatment - baseline (1.0 if every pair ties);
    ``zero_method`` as scipy.stats.wilcoxon's ("wilcox": zero differences dropped)."""
    differences = np.asarray(treatment, float) - np.asarray(baseline, float)
    if differences.size == 0:
        return float("nan")
    if np.all(differences == 0):
        return 1.0
    return float(stats.wilcoxon(differences, zero_method=zero_method, alternative="two-sided").pvalue)


def holm(p_values: np.ndarray) -> np.ndarray:
    """Holm's step-down adjustment of a family of p-values (nan entries are left out).

    statsmodels' ``multipletests(method="holm")`` gives these numbers bit for bit, but it runs a full
    garbage collection per call (about 33 ms in the report's process): called for every table, it made
    ``python -m experiments.reporting.report`` take 179 s instead of 58 s."""
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


def tost_paired(differences: np.ndarray, margin: float, alpha: float = ALPHA) -> dict:
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


def five_by_two_interval(differences: pd.Series, level: float = CONFIDENCE) -> tuple[float, float]:
    """The mean of 5 x 2-fold CV's ten values (indexed by repetition 0-9: repeat r // 2, fold r % 2) and
    a fold-based half-width: t(5) times s̄, s̄² the mean over repeats of the two folds' variance (ddof 1),
    Dietterich's (1998) estimate of the variance of one fold's value. The ten folds share training
    examples, so their spread would understate it. This is not Dietterich's 5 x 2 cv t-test, whose
    numerator is the first fold's difference alone: centred on the ten folds' mean, and as wide as one
    fold's interval, it is conservative for that mean. mlxtend's paired_ttest_5x2cv refits the
    estimators itself; here the values are already recorded."""
    values = differences.sort_index().to_numpy(dtype=float)
    if values.size != 10:
        raise ValueError(f"5 x 2-fold CV has 10 differences; got {values.size}")
    variance = values.reshape(5, 2).var(axis=1, ddof=1).mean()
    return float(values.mean()), float(stats.t.ppf(0.5 + level / 2, 5) * np.sqrt(variance))


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """Exact McNemar p: a binomial test on the discordant pairs (1 when there are none)."""
    discordant = only_a + only_b
    return float(stats.binomtest(only_a, discordant).pvalue) if discordant else 1.0


def paired_t_power(delta: float, sd: float, n: int, alpha: float = ALPHA) -> float:
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


def one_sample_t(differences: np.ndarray, level: float = CONFIDENCE) -> dict:
    """Mean of independent differences, its Student-t CI and the two-sided p against 0
    (scipy.stats.ttest_1samp)."""
    d = np.asarray(differences, dtype=float)
    mean, half = mean_ci(d, level)
    p = float(stats.ttest_1samp(d, 0.0).pvalue) if d.size > 1 and d.std() > 0 else float("nan")
    return {"mean": mean, "ci_low": mean - half, "ci_high": mean + half, "p": p, "n": int(d.size)}


def minimum_effect_p(differences: np.ndarray, size: float) -> float:
    """One-sided p of H0 "the mean difference is at least ``size``" (a minimum-effect test):
    small p says the true effect is smaller than ``size`` (scipy.stats.ttest_1samp, alternative less)."""
    d = np.asarray(differences, dtype=float)
    return float(stats.ttest_1samp(d, size, alternative="less").pvalue)


def paired_t_p(treatment: np.ndarray, baseline: np.ndarray) -> float:
    """Two-sided p of a paired t-test (scipy.stats.ttest_rel); 1.0 when every pair ties."""
    d = np.asarray(treatment, float) - np.asarray(baseline, float)
    if d.size < 2:
        return float("nan")
    if np.all(d == d[0]):
        return 1.0 if d[0] == 0 else 0.0
    return float(stats.ttest_rel(treatment, baseline).pvalue)


def paired_wilcoxon_pratt(treatment: np.ndarray, baseline: np.ndarray) -> float:
    """Two-sided Wilcoxon signed-rank p with Pratt's handling of zero differences (they are ranked,
    then dropped), which keeps the ties' weight in the ranks (scipy.stats.wilcoxon zero_method='pratt')."""
    return paired_wilcoxon(treatment, baseline, zero_method="pratt")


def contrast_over_independent_groups(
    contrasts: list[np.ndarray], resampling_terms: list[float] | None = None, level: float = CONFIDENCE
) -> dict:
    """A contrast summed over independent groups (here: the training sizes N, whose splits are
    independent), each group holding its per-split contrast values.

    Estimate Σ_g mean_g; variance Σ_g var_g/n_g; two-sided t-test with Welch–Satterthwaite degrees of
    freedom; ``ci_low``/``ci_high`` the two-sided interval at ``level`` (95 % unless asked).

    ``resampling_terms`` (one per group, in the order of ``contrasts``) applies Nadeau & Bengio's (2003,
    Machine Learning 52:239) corrected resampled t: when a group's n_g values are random train/test
    splits of one data set, they are correlated by about ρ_g = n_test/(n_train + n_test), and the
    variance of their mean is var_g·(1/n_g + ρ_g/(1 − ρ_g)) = var_g·(1/n_g + term_g), with
    term_g = n_test/n_train in their heuristic. A term of 0 is the uncorrected interval. The
    Welch–Satterthwaite degrees of freedom are computed on the corrected variances (n_g − 1 each).
    """
    if resampling_terms is not None and len(resampling_terms) != len(contrasts):
        raise ValueError(f"{len(resampling_terms)} resampling terms for {len(contrasts)} groups")
    kept = [i for i, c in enumerate(contrasts) if len(c)]
    groups = [np.asarray(contrasts[i], float) for i in kept]
    terms = [0.0] * len(groups) if resampling_terms is None else [float(resampling_terms[i]) for i in kept]
    estimate = float(sum(g.mean() for g in groups))
    variances = [g.var(ddof=1) * (1 / g.size + term) for g, term in zip(groups, terms, strict=True)]
    variance = float(sum(variances))
    denominator = sum(v**2 / (g.size - 1) for v, g in zip(variances, groups, strict=True))
    df = variance**2 / denominator if denominator > 0 else float(sum(g.size - 1 for g in groups))
    se = float(np.sqrt(variance))
    # constant contrasts: certain (p = 0) unless exactly 0 (p = 1)
    p = float(2 * stats.t.sf(abs(estimate / se), df)) if se > 0 else float(estimate == 0)
    half = float(stats.t.ppf(0.5 + level / 2, df) * se) if se > 0 else 0.0
    return {
        "mean": estimate,
        "ci_low": estimate - half,
        "ci_high": estimate + half,
        "p": p,
        "df": df,
        "se": se,
    }


def contrast_below_p(result: dict, size: float) -> float:
    """One-sided p of H0 "the contrast is at least ``size``" (a minimum-effect test) from a result of
    :func:`contrast_over_independent_groups`: small p says the true contrast is smaller than ``size``."""
    if result["se"] == 0:
        return 0.0 if result["mean"] < size else 1.0
    return float(stats.t.cdf((result["mean"] - size) / result["se"], result["df"]))


def margin_p_values(result: dict, margin: float) -> dict[str, float]:
    """The one-sided p-values of a result of :func:`contrast_over_independent_groups` against the
    thresholds ±``margin`` (t with its Welch–Satterthwaite df): ``above_plus`` (H0 "contrast ≤ +m"),
    ``below_plus`` (H0 "≥ +m"), ``above_minus`` (H0 "≤ −m"), ``below_minus`` (H0 "≥ −m") and ``tost``,
    the larger of ``above_minus`` and ``below_plus``. A constant contrast (se = 0) is certain: 0 when the
    inequality holds strictly, else 1."""
    mean, se, df = result["mean"], result["se"], result["df"]

    def above(threshold: float) -> float:
        if se == 0:
            return 0.0 if mean > threshold else 1.0
        return float(stats.t.sf((mean - threshold) / se, df))

    def below(threshold: float) -> float:
        if se == 0:
            return 0.0 if mean < threshold else 1.0
        return float(stats.t.cdf((mean - threshold) / se, df))

    p = {
        "above_plus": above(margin),
        "below_plus": below(margin),
        "above_minus": above(-margin),
        "below_minus": below(-margin),
    }
    return p | {"tost": max(p["above_minus"], p["below_plus"])}


def scaled_chi2_estimate(S: np.ndarray, df: np.ndarray) -> dict:
    """The scale n of n·S_g ~ χ²(df_g), one n per group, and a likelihood-ratio test that the groups
    share one n.

    Per group the maximum-likelihood n̂_g = df_g/S_g with the 95 % CI [χ²_0.025(df_g)/S_g,
    χ²_0.975(df_g)/S_g]; pooled n̂ = Σdf/ΣS. The log-likelihood of group g at n is
    log n + log f_χ²(n·S_g; df_g) (scipy.stats.chi2.logpdf); 2·(Σ_g ℓ_g(n̂_g) − Σ_g ℓ_g(n̂)) is
    χ²(G − 1) when the groups share n. Returns n_hat per group, pooled n_hat, the statistic and p.
    """
    S, df = np.asarray(S, float), np.asarray(df, float)

    def loglik(n, s, k):
        return np.log(n) + stats.chi2.logpdf(n * s, k)

    per_group = df / S
    pooled = df.sum() / S.sum()
    statistic = float(2 * (loglik(per_group, S, df).sum() - loglik(pooled, S, df).sum()))
    p = float(stats.chi2.sf(statistic, len(S) - 1)) if len(S) > 1 else float("nan")
    return {"n_hat": per_group, "pooled": float(pooled), "statistic": statistic, "p": p}


def pearson_r(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson's correlation (scipy.stats.pearsonr); nan with fewer than 3 pairs or no variation."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    if x.size < 3 or x.std() == 0 or y.std() == 0:
        return float("nan")
    return float(stats.pearsonr(x, y).statistic)
