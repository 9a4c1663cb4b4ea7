"""The paper's values as samples of ours, the repetitions per paper cell per dataset, and the scope of
our intervals (issue #43, items 5-7).

The report's other sections set the paper's values against our 95 % CIs of a mean, as if they were
exact constants; by :mod:`experiments.analysis.paper_statistics` a paper cell behaves like one or two
of our splits. Three analyses take that seriously:

- :func:`repetitions_by_dataset`: n̂, the repetitions a paper cell is consistent with, per dataset
  with the paper's gcF and DisDF rows averaged (they move together, so they count once), the
  likelihood-ratio test that the datasets share one n, and the pooled n̂ only where it does not reject;
- :func:`predictive_check`: how likely a table of the paper's kind is under "each paper cell is the
  mean of n of our splits": a Monte Carlo draw of whole tables from our splits, and the probability of
  a mean DisDF − gcF over the 16 cells and a count of cells with DisDF > gcF as high as the paper's,
  with our fixed λ = τ = 1 and with the paper's choice of λ on the test data emulated on the audit's
  λ/τ grid;
- :func:`scope_intervals`: Nadeau and Bengio's corrected resampled t interval beside the conditional
  interval the report gives. Our splits resample small fixed files, so our CIs are conditional on each
  file: right for "do we reproduce the paper's table", too narrow for "what will a user see on new data
  of this kind".

``paper_as_samples_section`` renders the three as markdown lines.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from experiments.analysis.paper_claims import split_differences
from experiments.analysis.paper_statistics import (
    averaged_methods,
    heterogeneity,
    paper_differences,
    repetitions_estimate,
)
from experiments.analysis.plan import ALPHA, DRAWS, INTERVAL_LEVEL
from experiments.analysis.statistics import contrast_over_independent_groups

#: The predictive check's seed (issue #43); each (dataset, n, grid or not, T shared or not) derives its
#: own stream from it.
SEED = 43
#: The only T at which the audit ran its λ/τ grid.
GRID_T = 100
#: The grid's honest point, the headline's fixed λ = τ = 1.
GRID_HONEST = "disdf_lam1_tau1"
#: The DisDFs of the predictive check: the headline's (no selection), and λ/τ chosen on the test data
#: from the audit's grid, the best point of each split (as the issue asks: the most the choice can add)
#: or of each cell's mean of n splits (what a table of means can choose on; the same for n = 1).
SELECTIONS = {"λ = τ = 1": None, "λ best per split": "split", "λ best per cell": "cell"}
#: The paper's differences are printed to 2-3 decimals: compare at 1e-9 points, so a printed tie is a tie.
DECIMALS = 9


# --- n̂ per dataset -----------------------------------------------------------------------------------


def repetitions_by_dataset(
    records: pd.DataFrame, paper: pd.DataFrame, alpha: float = ALPHA
) -> tuple[pd.DataFrame, dict]:
    """n̂ per dataset with the paper's two methods averaged, and whether one n fits every dataset.

    The model and its biases are :func:`experiments.analysis.paper_statistics.repetitions_consistent`'s;
    here each (dataset, N) row is the mean of the paper's gcF and DisDF (and of ours), because the
    paper's two values move together across T
    (:func:`experiments.analysis.paper_statistics.method_correlation`) and would otherwise be counted
    as independent evidence.

    Returns the per-dataset frame (``dataset``, ``R`` rows used, ``n_hat``, ``ci_low``, ``ci_high``,
    ``below_one``: n̂ < 1, impossible under the model, since means of n ≥ 1 splits vary no more than
    single splits; ``n_check``: n̂ rounded up to at least 1, the n the predictive check uses)
    and the test: ``statistic``, ``p``, ``groups`` of the likelihood-ratio test of one n for all
    datasets (:func:`experiments.analysis.paper_statistics.heterogeneity`), and ``pooled``: the pooled
    estimate (``n_hat``, ``ci_low``, ``ci_high``) when the test does not reject at ``alpha``, else None.
    """
    spread = averaged_methods(records, paper)
    cap = int(spread["n_repetitions"].min()) if len(spread) else 1
    rows = [{"dataset": name, **repetitions_estimate(group)} for name, group in spread.groupby("dataset")]
    frame = pd.DataFrame(rows, columns=["dataset", "R", "n_hat", "ci_low", "ci_high"])
    frame["below_one"] = frame["n_hat"] < 1
    frame["n_check"] = [_repetitions_to_draw(n, cap) for n in frame["n_hat"]]
    test = heterogeneity(spread)
    agrees = bool(np.isfinite(test["p"]) and test["p"] >= alpha)
    test["pooled"] = repetitions_estimate(spread) if agrees else None
    return frame, test


def _repetitions_to_draw(n_hat: float, cap: int) -> int:
    """n̂ rounded up, at least 1 and at most ``cap`` (n̂ infinite: the paper's values never moved). An n̂
    within 1e-6 of a whole number is that number: 4.0000000001 is 4 repetitions, not 5."""
    if not np.isfinite(n_hat):
        return cap if n_hat > 0 else 1
    return int(min(max(1, np.ceil(round(n_hat, 6))), cap))


# --- the predictive check -----------------------------------------------------------------------------


def selection_gains(grid: pd.DataFrame) -> pd.DataFrame:
    """The audit's λ/τ grid at T = 100 in points: index (dataset, N, repetition), one column per grid
    point (complete splits only)."""
    at_t = grid[grid["T"] == GRID_T] if "T" in grid else grid
    wide = at_t.pivot_table(index=["dataset", "N", "repetition"], columns="method", values="accuracy")
    return wide.dropna() * 100


def table_sampler(
    differences: pd.DataFrame,
    n: int,
    grid: pd.DataFrame | None = None,
    shared_T: bool = True,
    choose: str = "split",
) -> Callable[[np.random.Generator, int], np.ndarray]:
    """A function (rng, draws) -> (draws, cells) of simulated paper tables of one dataset.

    ``differences``: our DisDF − gcF in points, index (N, repetition), columns T (one dataset of
    :func:`experiments.analysis.paper_claims.split_differences`). A simulated cell is the mean of ``n``
    of our splits drawn with replacement; the N are drawn independently (their splits are). With
    ``shared_T`` (the default) the n splits of an N serve its four T together, as in our protocol,
    where the T of a split share it; otherwise each T draws its own. Cells are ordered by N, then T.

    With ``grid`` (:func:`selection_gains` of the dataset: index (N, repetition), columns grid points)
    the paper's choice of λ on the test data is emulated at T = 100, where the grid ran, and its gain
    over λ = τ = 1 on the drawn splits is added to their DisDF − gcF at every T (the same split's
    T = 100 gain: the grid has no other T). ``choose="split"``: each split's best grid point (the
    cell's gain the mean of the n splits' gains); ``choose="cell"``: the grid point with the best mean
    over the cell's n splits. Only splits in both frames are drawn from.
    """
    if choose not in ("split", "cell"):
        raise ValueError(f"choose must be 'split' or 'cell'; got {choose!r}")
    blocks = []
    for N, block in differences.dropna().groupby(level="N"):
        values = block.droplevel("N")
        gains = None
        if grid is not None:
            if N not in grid.index.get_level_values("N"):
                raise ValueError(f"N={N}: no λ/τ grid records")
            points = grid.xs(N, level="N")
            shared = values.index.intersection(points.index)
            values, points = values.loc[shared], points.loc[shared]
            gains = (points.to_numpy(), list(points.columns).index(GRID_HONEST))
        blocks.append((values.to_numpy(), gains))

    def draw(rng: np.random.Generator, draws: int) -> np.ndarray:
        cells = []
        for values, gains in blocks:
            splits, n_T = values.shape
            index = rng.integers(0, splits, size=(draws, n, 1 if shared_T else n_T))
            cell = values[index, np.arange(n_T)].mean(axis=1)  # (draws, T)
            if gains is not None:
                points, honest = gains
                drawn = points[index]  # (draws, n, 1 or T, grid points)
                if choose == "split":
                    cell = cell + (drawn.max(axis=-1) - drawn[..., honest]).mean(axis=1)
                else:
                    means = drawn.mean(axis=1)
                    cell = cell + (means.max(axis=-1) - means[..., honest])
            cells.append(cell)
        return np.concatenate(cells, axis=1)

    return draw


def _mean(x: np.ndarray, axis: int = -1) -> Any:
    """The mean along ``axis``, rounded as the paper prints (an array, or a scalar for 1-d ``x``)."""
    return np.round(np.mean(x, axis=axis), DECIMALS)


def _count(x: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.sum(np.round(x, DECIMALS) > 0, axis=axis)


def tail_probabilities(
    observed: np.ndarray, sampler: Callable[[np.random.Generator, int], np.ndarray], seed, draws: int = DRAWS
) -> dict:
    """P(mean ≥ observed mean), P(count of cells > 0 ≥ observed count) and the joint P of both, for
    tables drawn by ``sampler``: scipy.stats.monte_carlo_test, one-sided (greater), P = (1 + hits)/
    (1 + draws). The three use the same draws (the sampler's generator is seeded afresh each time),
    so the joint P is at most either marginal."""
    observed = np.asarray(observed, float)
    m0, c0 = float(_mean(observed)), int(_count(observed))

    def rvs(size: tuple[int, ...]) -> np.ndarray:
        tables = sampler(np.random.default_rng(seed), size[0])
        if tables.shape != tuple(size):
            raise ValueError(f"the sampler drew tables of shape {tables.shape}, not {size}")
        return tables

    def joint(x: np.ndarray, axis: int = -1) -> np.ndarray:  # ≥ 0 exactly when both are as high
        return np.minimum(_mean(x, axis) - m0, _count(x, axis) - c0)

    def p(statistic: Callable[..., np.ndarray]) -> float:
        result = stats.monte_carlo_test(
            observed, rvs, statistic, vectorized=True, n_resamples=draws, alternative="greater"
        )
        return float(result.pvalue)

    return {"p_mean": p(_mean), "p_count": p(_count), "p_joint": p(joint)}


def _seed(dataset: str, n: int, with_grid: bool, shared_T: bool, seed: int) -> list[int]:
    """A stream per (dataset, n, grid or not, sharing), stable whatever else is checked (the two grid
    selections draw the same splits, so at n = 1, where they coincide, they give the same P)."""
    return [seed, zlib.crc32(dataset.encode()), n, int(with_grid), int(shared_T)]


def predictive_check(
    records: pd.DataFrame,
    paper: pd.DataFrame,
    repetitions: dict[str, list[int]],
    grid: pd.DataFrame | None = None,
    draws: int = DRAWS,
    seed: int = SEED,
    shared_T: bool = True,
) -> pd.DataFrame:
    """Per dataset and n in ``repetitions[dataset]``: how extreme the paper's table is if each of its
    cells were the mean of n of our splits.

    One row per (dataset, n, selection of :data:`SELECTIONS`) with the paper's ``paper_mean``
    (DisDF − gcF over the cells it shares with ours, in points) and ``paper_count`` (cells with
    DisDF > gcF) out of ``cells``, and :func:`tail_probabilities` of tables drawn by
    :func:`table_sampler` (``draws`` each, ``seed``, ``shared_T``): "λ = τ = 1" draws from every split
    of ours, the grid selections from the splits the ``grid`` (the audit's λ/τ records; its T = 100
    is used) also ran (nan without it). ``splits``: the fewest splits per N drawn from.
    """
    ours = split_differences(records)
    theirs = paper_differences(paper).set_index(["dataset", "N", "T"])["paper_delta"]
    gains = selection_gains(grid) if grid is not None and not grid.empty else None
    rows = []
    for dataset in sorted(set(ours.index.get_level_values("dataset")) & set(repetitions)):
        if dataset not in theirs.index.get_level_values("dataset"):
            continue
        printed = theirs.loc[dataset]  # index (N, T)
        table = ours.loc[dataset]
        Ns = sorted(set(table.index.get_level_values("N")) & set(printed.index.get_level_values("N")))
        Ts = [T for T in table.columns if all((N, T) in printed.index for N in Ns)]
        table = table.loc[table.index.get_level_values("N").isin(Ns), Ts]
        observed = np.array([printed[(N, T)] for N in Ns for T in Ts])  # the sampler's order
        mine = gains.loc[dataset] if gains is not None and dataset in gains.index else None
        for n in repetitions[dataset]:
            for selection, choose in SELECTIONS.items():
                row = {
                    "dataset": dataset,
                    "n": n,
                    "selection": selection,
                    "paper_mean": float(_mean(observed)),
                    "paper_count": int(_count(observed)),
                    "cells": len(observed),
                }
                if choose is not None and mine is None:
                    rows.append({**row, "p_mean": np.nan, "p_count": np.nan, "p_joint": np.nan, "splits": 0})
                    continue
                used = table if choose is None or mine is None else table[table.index.isin(mine.index)]
                sampler = table_sampler(
                    used, n, None if choose is None else mine, shared_T, choose or "split"
                )
                stream = _seed(dataset, n, choose is not None, shared_T, seed)
                probabilities = tail_probabilities(observed, sampler, stream, draws)
                splits = int(used.dropna().groupby(level="N").size().min())
                rows.append({**row, **probabilities, "splits": splits})
    return pd.DataFrame(rows)


# --- the scope of our intervals ----------------------------------------------------------------------


def scope_intervals(records: pd.DataFrame, level: float = INTERVAL_LEVEL) -> pd.DataFrame:
    """Per dataset: DisDF − gcF over its cells (points), with the report's conditional interval and
    Nadeau and Bengio's corrected one, both two-sided at ``level`` (the level of the report's one-sided
    decisions at α, :data:`experiments.analysis.plan.INTERVAL_LEVEL`).

    Each split's differences are averaged over its T first (they share the split); within an N the
    J splits' mean has variance s²/J conditionally on the file (``cond``, the report's interval), and
    s²·(1/J + n_test/n_train) by Nadeau and Bengio's correction for train/test splits of one data set
    (``nb``: n_train = N, n_test the records' test size at that N, e.g. 75 for Parkinsons at N = 120).
    The N are combined as the report combines them (:func:`experiments.analysis.paper_claims.contrast`):
    the mean over N of the per-N means, variance the sum of the per-N variances / (number of N)²,
    Welch-Satterthwaite degrees of freedom
    (:func:`experiments.analysis.statistics.contrast_over_independent_groups`). A variant of the
    correction scaled by the share of the file a split uses, shown until 2026-11-28, was the report's
    own and not validated: it is dropped.
    """
    per_split = split_differences(records).mean(axis=1, skipna=False).dropna()
    test_size = records.groupby(["dataset", "N"])["n_test"].mean()
    rows = []
    for dataset, part in per_split.groupby(level="dataset"):
        Ns = sorted(part.index.get_level_values("N").unique())
        groups = [part.xs(N, level="N").to_numpy() / len(Ns) for N in Ns]
        ratio = [test_size[(dataset, N)] / N for N in Ns]
        row: dict = {"dataset": dataset, "splits": min(len(g) for g in groups)}
        for name, terms in (("cond", None), ("nb", ratio)):
            result = contrast_over_independent_groups(groups, terms, level=level)
            row.update(
                {"mean": result["mean"], f"{name}_low": result["ci_low"], f"{name}_high": result["ci_high"]}
            )
        rows.append(row)
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class PaperSampleCheck:
    """What every reader of the predictive check shares: n̂ per dataset and the pooled test
    (:func:`repetitions_by_dataset`), the n drawn per dataset (1 and n̂ rounded up), the check
    itself (:func:`predictive_check`, T shared by a split), and the λ/τ grid, draws and seed it was
    made with (APPENDIX.md's variants draw with the same)."""

    estimates: pd.DataFrame
    test: dict
    repetitions: dict[str, list[int]]
    check: pd.DataFrame
    grid: pd.DataFrame | None
    draws: int
    seed: int


def paper_sample_check(
    records: pd.DataFrame,
    paper: pd.DataFrame,
    grid: pd.DataFrame | None = None,
    draws: int = DRAWS,
    seed: int = SEED,
) -> PaperSampleCheck:
    """n̂ per dataset, the n drawn (1 and n̂) and the predictive check at those n: computed once per
    report build and read by the verdict, REPORT.md's compact section and APPENDIX.md's."""
    estimates, test = repetitions_by_dataset(records, paper)
    repetitions = {row.dataset: sorted({1, int(row.n_check)}) for row in estimates.itertuples(index=False)}
    check = predictive_check(records, paper, repetitions, grid, draws, seed)
    return PaperSampleCheck(estimates, test, repetitions, check, grid, draws, seed)
