"""What the paper's tables say about themselves, judged against our per-split variability.

Three analyses of the paper's accuracy tables (one value per dataset, N, T and method) that need
only our records' spread from split to split, not our means:

- ``spread_across_T``: how much the paper's values move across T within a row, next to how much
  means of our number of repetitions would move if T had no effect;
- ``repetitions_consistent``: how many repetitions per cell that spread is consistent with;
- ``power_of_our_tests``: the power our paired tests have to detect the paper's DisDF − gcF
  differences, given our paired per-split SD and number of splits.

``paper_statistics_section`` puts them into markdown lines for REPORT.md.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from experiments.analysis.plan import ALPHA, MARGIN_PP, POINTS
from experiments.analysis.statistics import paired_t_power, pearson_r, scaled_chi2_estimate

ROW = ["dataset", "N", "method"]
CELL = ["dataset", "N", "T"]
SPLIT = ["dataset", "N", "T", "repetition"]
HOLM_CELLS = 16  # cells in one dataset's table: Holm's first step tests at alpha / 16
REPETITION_LABELS = {"R": "rows R", "n_hat": "n̂", "ci_low": "95 % CI low", "ci_high": "95 % CI high"}


def paper_spread(paper: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, N, method): the paper's SD (ddof=1) and range across T, and how many T values."""
    grouped = paper.groupby(ROW)["accuracy"]
    return pd.DataFrame(
        {
            "n_T": grouped.size(),
            "paper_sd_across_T": grouped.std(ddof=1),
            "paper_range_across_T": grouped.max() - grouped.min(),
        }
    ).reset_index()


def our_spread(records: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, N, method): our per-split SD pooled over T, our means' SD across T, and n.

    The pooled SD is the square root of the mean of the per-cell variances, so a T effect on the
    means does not leak into it.
    """
    cells = records.groupby([*ROW, "T"])["accuracy"].agg(mean="mean", var=lambda a: a.var(ddof=1), n="size")
    rows = cells.groupby(ROW)
    return pd.DataFrame(
        {
            "sigma_per_split": np.sqrt(rows["var"].mean()),
            "our_sd_across_T": rows["mean"].std(ddof=1),
            "n_repetitions": rows["n"].min(),
        }
    ).reset_index()


def spread_across_T(records: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:  # noqa: N802 (the paper's T)
    """One row per (dataset, N, method): the paper's spread across T next to ours.

    Columns: ``n_T`` (the paper's T values in the row), ``paper_sd_across_T`` (ddof=1),
    ``paper_range_across_T``, ``sigma_per_split`` (σ: SD of one repetition's accuracy, pooled over
    the row's T cells), ``our_sd_across_T`` (SD of our per-cell means across T), ``n_repetitions``
    (our fewest repetitions in a cell of the row) and ``expected_sd_across_T`` = σ/√n_repetitions,
    the SD across T that means of independent repetitions would show if T had no effect.
    """
    spread = paper_spread(paper).merge(our_spread(records), on=ROW, how="inner")
    spread["expected_sd_across_T"] = spread["sigma_per_split"] / np.sqrt(spread["n_repetitions"])
    return spread.sort_values(ROW, ignore_index=True)


def repetitions_estimate(spread: pd.DataFrame) -> dict:
    """n̂ and its 95 % chi-square CI from the rows of ``spread`` (see ``repetitions_consistent``)."""
    usable = spread[(spread["sigma_per_split"] > 0) & (spread["n_T"] > 1)].dropna(
        subset=["paper_sd_across_T", "sigma_per_split"]
    )
    df_per_row = usable["n_T"] - 1
    S = float((df_per_row * usable["paper_sd_across_T"] ** 2 / usable["sigma_per_split"] ** 2).sum())
    df = int(df_per_row.sum())
    if df == 0:
        return {"R": 0, "n_hat": np.nan, "ci_low": np.nan, "ci_high": np.nan}
    if S == 0:  # the paper's values never move: any n, however large, fits
        return {"R": len(usable), "n_hat": np.inf, "ci_low": np.inf, "ci_high": np.inf}
    return {
        "R": len(usable),
        "n_hat": df / S,
        "ci_low": stats.chi2.ppf(ALPHA / 2, df) / S,
        "ci_high": stats.chi2.ppf(1 - ALPHA / 2, df) / S,
    }


def repetitions_consistent(spread: pd.DataFrame) -> pd.DataFrame:
    """How many repetitions per cell the paper's spread across T is consistent with.

    Model: in row r (a dataset, N and method), the paper's k_r = 4 values are means of n independent
    repetitions, one independent set per T cell, with our per-repetition SD σ_r and a common mean
    (T has no effect: in our committed runs the 100-repetition means' SD across T is only
    0.0002–0.007). Then (k_r − 1)·s_r²·n/σ_r² ~ χ²(k_r − 1) for the paper's SD s_r across T, and
    summed over R rows n·S ~ χ²(3R) with S = Σ_r 3·s_r²/σ_r² (the code uses k_r − 1 per row).
    Estimate n̂ = 3R/S, with the 95 % CI [χ²_0.025(3R)/S, χ²_0.975(3R)/S]. Rows with σ_r = 0
    carry no information and are left out.

    What would bias it, and which way:

    - Any variance between the paper's T cells beyond split sampling (a real T effect in the
      paper's implementation, rounding to two decimals — about 0.01²/12 per value — or changes
      between its runs) adds to E[s_r²] = σ_r²/n + τ², so n̂ is biased low: the paper may have
      averaged more than n̂ repetitions, but only if its values carry such extra between-T
      variation, which our runs do not show. Extra variance only makes S stochastically larger,
      so under independence the CI's low end stays a valid (conservative) 97.5 % lower
      confidence limit on n; it is the high end that the no-T-effect assumption props up.
    - Cells that share splits (our runs use one split for every T) are positively correlated,
      shrinking E[s_r²] to (1 − ρ)·σ_r²/n, and then n̂ overstates n.
    - If the paper's per-repetition SD differs from ours, n̂ scales with σ_paper²/σ_ours².

    Returns one row per dataset and an ``all`` row: ``R`` rows used, ``n_hat``, ``ci_low``, ``ci_high``.
    """
    rows = [{"dataset": name, **repetitions_estimate(group)} for name, group in spread.groupby("dataset")]
    rows.append({"dataset": "all", **repetitions_estimate(spread)})
    if "ionosphere" in set(spread["dataset"]) and spread["dataset"].nunique() > 1:
        rows.append(
            {
                "dataset": "all but ionosphere",
                **repetitions_estimate(spread[spread["dataset"] != "ionosphere"]),
            }
        )
    return pd.DataFrame(rows)


def heterogeneity(spread: pd.DataFrame) -> dict:
    """Do the datasets share one n? The likelihood-ratio test of :func:`scaled_chi2_estimate` on each
    dataset's S = Σ_r (k_r − 1)·s_r²/σ_r² and its degrees of freedom Σ_r (k_r − 1)."""
    usable = spread[(spread["sigma_per_split"] > 0) & (spread["n_T"] > 1)].dropna(
        subset=["paper_sd_across_T", "sigma_per_split"]
    )
    usable = usable.assign(
        df=usable["n_T"] - 1,
        S=(usable["n_T"] - 1) * usable["paper_sd_across_T"] ** 2 / usable["sigma_per_split"] ** 2,
    )
    by_dataset = usable.groupby("dataset")[["S", "df"]].sum()
    if len(by_dataset) < 2 or (by_dataset["S"] <= 0).any():
        return {"statistic": np.nan, "p": np.nan, "groups": len(by_dataset)}
    result = scaled_chi2_estimate(by_dataset["S"].to_numpy(), by_dataset["df"].to_numpy())
    return {"statistic": result["statistic"], "p": result["p"], "groups": len(by_dataset)}


def averaged_methods(records: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """``spread_across_T`` of the two methods' mean (one row per dataset and N): the paper's gcF and
    DisDF deviations are correlated, so its 2 rows per (dataset, N) are not independent."""
    keys = ["dataset", "N", "T", "repetition"]
    ours = records.groupby(keys, as_index=False)["accuracy"].mean().assign(method="mean of both")
    theirs = (
        paper.groupby(["dataset", "N", "T"], as_index=False)["accuracy"].mean().assign(method="mean of both")
    )
    return spread_across_T(ours, theirs)


def method_correlation(paper: pd.DataFrame) -> pd.DataFrame:
    """Per dataset: Pearson's r between the paper's gcF and DisDF deviations from their row means
    (a row: one N, across T), over the dataset's cells."""
    centred = paper.assign(
        deviation=paper["accuracy"] - paper.groupby(["dataset", "N", "method"])["accuracy"].transform("mean")
    )
    wide = centred.pivot_table(index=["dataset", "N", "T"], columns="method", values="deviation")
    rows = [
        {"dataset": dataset, "r": pearson_r(group["gcforest"], group["disdf"])}
        for dataset, group in wide.groupby(level="dataset")
    ]
    return pd.DataFrame(rows)


def single_split_bands(
    records: pd.DataFrame, by: tuple[str, ...] = ("dataset", "N", "T", "method")
) -> pd.DataFrame:
    """Per group of ``by`` (a cell): the central 95 % of our single splits, ``low`` and ``high`` the
    2.5th and 97.5th percentiles of its accuracies (pandas' linear interpolation): where one split's
    accuracy, what the paper reports per cell, falls 95 % of the time."""
    cells = records.groupby(list(by))["accuracy"]
    return pd.DataFrame(
        {"low": cells.quantile(ALPHA / 2), "high": cells.quantile(1 - ALPHA / 2)}
    ).reset_index()


def single_split_coverage(records: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """Per dataset: the paper's values inside our 95 % CI of the mean (as in the summary) and inside the
    central 95 % of our single splits (:func:`single_split_bands`)."""
    bands = single_split_bands(records)
    both = bands.merge(paper, on=["dataset", "N", "T", "method"])
    both["inside"] = (both["accuracy"] >= both["low"]) & (both["accuracy"] <= both["high"])
    counts = both.groupby("dataset")["inside"].agg(["sum", "size"])
    return pd.DataFrame(
        {"dataset": counts.index, "inside single-split 95 %": [f"{a}/{b}" for a, b in counts.to_numpy()]}
    )


def sign_pattern(records: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """Per dataset: share of the paper's cells with DisDF > gcF, and of our single splits (every cell)
    with DisDF > gcF, DisDF < gcF and ties."""
    wide = records.pivot_table(index=SPLIT, columns="method", values="accuracy").dropna()
    d = (wide["disdf"] - wide["gcforest"]).groupby(level="dataset")
    theirs = paper_differences(paper).groupby("dataset")["paper_delta"]
    return pd.DataFrame(
        {
            "paper: DisDF > gcF": theirs.apply(lambda v: f"{(v > 0).mean():.0%}"),
            "our splits: DisDF > gcF": d.apply(lambda v: f"{(v > 0).mean():.0%}"),
            "ties": d.apply(lambda v: f"{(v == 0).mean():.0%}"),
            "DisDF < gcF": d.apply(lambda v: f"{(v < 0).mean():.0%}"),
        }
    ).reset_index()


def paper_differences(paper: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, N, T): the paper's DisDF − gcF in points."""
    wide = paper.pivot_table(index=CELL, columns="method", values="accuracy")
    # The paper prints two or three decimals: round off float noise so 1.0 points compares as 1.0.
    delta = ((wide["disdf"] - wide["gcforest"]) * POINTS).round(9)
    return delta.rename("paper_delta").reset_index()


def our_differences(records: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, N, T): our number of pairs, paired SD and mean of DisDF − gcF per split, in points."""
    wide = records.pivot_table(index=SPLIT, columns="method", values="accuracy").dropna(
        subset=["disdf", "gcforest"]
    )
    differences = ((wide["disdf"] - wide["gcforest"]) * POINTS).groupby(CELL)
    return pd.DataFrame(
        {
            "n_pairs": differences.size(),
            "our_sd_difference": differences.std(ddof=1),
            "our_mean_difference": differences.mean(),
        }
    ).reset_index()


def power_of_our_tests(records: pd.DataFrame, paper: pd.DataFrame, alpha: float = ALPHA) -> pd.DataFrame:
    """One row per (dataset, N, T): could our paired t-test detect the paper's DisDF − gcF?

    Columns (differences in accuracy points): ``paper_delta`` δ, ``n_pairs`` n, ``our_sd_difference``
    σ_d (paired per-split SD of DisDF − gcF), ``power`` of a two-sided paired t-test at ``alpha``
    to detect a true mean difference δ, ``power_holm16`` the same at alpha/16 (Holm's most
    stringent step in a 16-cell table), and ``our_mean_difference``. Where δ = 0 the power is
    alpha: there is nothing to detect, and the test rejects only at its false-positive rate.
    """
    cells = paper_differences(paper).merge(our_differences(records), on=CELL, how="inner")

    def power_at(level: float) -> list[float]:
        return [
            paired_t_power(delta, sd, n, level)
            for delta, sd, n in zip(
                cells["paper_delta"], cells["our_sd_difference"], cells["n_pairs"], strict=True
            )
        ]

    cells["power"] = power_at(alpha)
    cells["power_holm16"] = power_at(alpha / HOLM_CELLS)
    columns = [*CELL, "paper_delta", "our_sd_difference", "n_pairs", "power", "power_holm16"]
    return cells[[*columns, "our_mean_difference"]].sort_values(CELL, ignore_index=True)


def spread_summary(spread: pd.DataFrame) -> pd.DataFrame:
    """Per dataset, in points: median paper SD across T, median expected σ/√n, median of ours."""
    labels = {
        "paper_sd_across_T": "paper SD across T",
        "expected_sd_across_T": "σ/√n (no T effect)",
        "our_sd_across_T": "our SD across T",
    }
    medians = spread.groupby("dataset")[list(labels)].median() * POINTS
    return medians.rename(columns=labels).reset_index()


def power_summary(power: pd.DataFrame, min_delta: float = MARGIN_PP) -> pd.DataFrame:
    """Per dataset: cells, cells where the paper's δ ≥ ``min_delta`` points and their median power,
    and cells (of all) with power ≥ 0.8."""
    rows = []
    for name, group in power.groupby("dataset"):
        claimed = group[group["paper_delta"] >= min_delta]
        rows.append(
            {
                "dataset": name,
                "cells": len(group),
                f"cells with δ ≥ {min_delta:g}": len(claimed),
                "median power": claimed["power"].median(),
                "median power at α/16": claimed["power_holm16"].median(),
                "lowest power": claimed["power"].min(),
                "cells with power ≥ 0.8": int((group["power"] >= 0.8).sum()),
                "… at α/16": int((group["power_holm16"] >= 0.8).sum()),
                "median σ_d (points)": group["our_sd_difference"].median(),
            }
        )
    return pd.DataFrame(rows)
