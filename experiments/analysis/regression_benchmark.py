"""The regression benchmark's analysis, by the rules declared before its records
(:mod:`experiments.analysis.regression_plan`): it returns data; the report's sections render it.

Unit: the dataset, over the datasets on which every method completed its 10 splits. Scores are
per-dataset means over the splits (R^2, RMSE); fit times per-dataset medians of the process CPU seconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import baycomp
import numpy as np
import pandas as pd

from experiments.analysis.benchmark import BayesianVerdict, Ranking, ranking
from experiments.analysis.plan import ROPE_R2
from experiments.analysis.regression_plan import ADDED_CONTRASTS, ADDED_METHODS, CONTRASTS, METHODS, REPEATS

RECORDS = Path("results/regression/records.csv")
#: The baseline every fit time is divided by.
SPEED_BASELINE = "df21"


def complete(records: pd.DataFrame, methods: tuple[str, ...] = METHODS) -> pd.DataFrame:
    """The "ok" rows of the datasets on which every one of ``methods`` has all its 2 x REPEATS splits."""
    ok = records[records["status"] == "ok"]
    counts = ok.groupby(["dataset", "method"]).size().unstack("method").reindex(columns=list(methods))
    full = counts.index[(counts == 2 * REPEATS).all(axis=1)]
    return ok[ok["dataset"].isin(full)]


def per_dataset(
    records: pd.DataFrame, column: str, how: str = "mean", methods: tuple[str, ...] = METHODS
) -> pd.DataFrame:
    """dataset x method: the splits' mean (or median) of ``column``, methods in the plan's order."""
    table = records.groupby(["dataset", "method"])[column].agg(how).unstack("method")
    return table.reindex(columns=list(methods))


@dataclass(frozen=True)
class RegressionContrast(BayesianVerdict):
    """treatment - baseline in mean R^2 across datasets, by the Bayesian signed-rank test."""

    treatment: str
    baseline: str
    mean_difference: float
    p_worse: float
    p_equivalent: float
    p_better: float


def contrasts(
    r2: pd.DataFrame, pairs: tuple[tuple[str, str], ...] = CONTRASTS, seed: int = 0
) -> list[RegressionContrast]:
    """Every contrast of ``pairs`` (the declared ones by default), with a ROPE of +-ROPE_R2 (the test's
    Monte Carlo draws seeded)."""
    found = []
    for treatment, baseline in pairs:
        x, y = r2[treatment].to_numpy(), r2[baseline].to_numpy()
        p_better, p_equivalent, p_worse = baycomp.SignedRankTest.probs(x, y, rope=ROPE_R2, random_state=seed)
        difference = float(np.mean(x - y))
        probabilities = (float(p_worse), float(p_equivalent), float(p_better))
        found.append(RegressionContrast(treatment, baseline, difference, *probabilities))
    return found


@dataclass(frozen=True)
class Ratio:
    """A per-dataset ratio summarised over the datasets: geometric mean, smallest, largest."""

    geometric_mean: float
    low: float
    high: float


def ratios(table: pd.DataFrame, numerator: str | None, denominator: str | None) -> dict[str, Ratio]:
    """Per method, ``table[numerator]`` (None: the method's own column) over ``table[denominator]``
    (None: the method's), summarised (:class:`Ratio`)."""
    found = {}
    for method in table.columns:
        top = table[numerator if numerator else method]
        bottom = table[denominator if denominator else method]
        ratio = (top / bottom).to_numpy(dtype=float)
        found[method] = Ratio(float(np.exp(np.mean(np.log(ratio)))), float(ratio.min()), float(ratio.max()))
    return found


@dataclass(frozen=True)
class AddedMethods:
    """The methods added after the records were seen (:data:`~experiments.analysis.regression_plan.
    ADDED_METHODS`), on the datasets complete for every declared and added method: their mean R^2 per
    dataset, their contrasts against DF21 and DF21's fit CPU seconds over theirs; reported as post hoc."""

    r2: pd.DataFrame  # dataset x (the baseline, then each added method)
    fit_seconds: pd.DataFrame  # the same columns: median fit CPU seconds
    levels: pd.DataFrame  # dataset x added method: mean levels kept
    contrasts: list[RegressionContrast]
    speedups: dict[str, Ratio]
    n_datasets: int


def analyse_added(records: pd.DataFrame) -> AddedMethods | None:
    """The added methods' analysis (:class:`AddedMethods`); None before two datasets are complete."""
    every = (*METHODS, *ADDED_METHODS)
    done = complete(records, every)
    if done["dataset"].nunique() < 2:
        return None
    r2 = per_dataset(done, "r2", methods=every)
    shown = [SPEED_BASELINE, *ADDED_METHODS]
    seconds = per_dataset(done, "fit_cpu_seconds", "median", every)[shown]
    speedups = ratios(seconds, SPEED_BASELINE, None)
    return AddedMethods(
        r2=r2[shown],
        fit_seconds=seconds,
        levels=per_dataset(done, "n_levels", methods=ADDED_METHODS),
        contrasts=contrasts(r2, ADDED_CONTRASTS),
        speedups={method: speedups[method] for method in ADDED_METHODS},
        n_datasets=len(r2),
    )


@dataclass(frozen=True)
class RegressionAnalysis:
    """Everything the sections render: per-dataset tables, the ranking, the contrasts, the ratios."""

    r2: pd.DataFrame
    rmse: pd.DataFrame
    fit_seconds: pd.DataFrame
    levels: pd.DataFrame
    ranking: Ranking
    contrasts: list[RegressionContrast]
    speedups: dict[str, Ratio]  # per method: DF21's fit CPU seconds over the method's
    relative_rmse: dict[str, Ratio]  # per method: its RMSE over DF21's
    n_datasets: int
    n_declared: int


def analyse(records: pd.DataFrame, n_declared: int) -> RegressionAnalysis | None:
    """The declared analysis of the records; None before two datasets are complete."""
    done = complete(records)
    if done["dataset"].nunique() < 2:
        return None
    r2 = per_dataset(done, "r2")
    rmse = per_dataset(done, "rmse")
    seconds = per_dataset(done, "fit_cpu_seconds", "median")
    return RegressionAnalysis(
        r2=r2,
        rmse=rmse,
        fit_seconds=seconds,
        levels=per_dataset(done, "n_levels"),
        ranking=ranking(r2),
        contrasts=contrasts(r2),
        speedups=ratios(seconds, SPEED_BASELINE, None),
        relative_rmse=ratios(rmse, None, SPEED_BASELINE),
        n_datasets=len(r2),
        n_declared=n_declared,
    )


#: The regressor's fit at 10^4 and 10^5 rows (``make bench-regression-scale``).
SCALE_CSV = Path("results/bench/regression_scale.csv")


def scale_table(scale: pd.DataFrame) -> pd.DataFrame:
    """Per (method, rows) measured: wall and CPU seconds, peak and estimated GiB, levels, test R^2, and
    DF21's fit CPU seconds at the same rows over the method's (NaN where DF21 was not measured)."""
    ok = scale[scale["status"] == "ok"].set_index(["method", "n_train"])
    columns = ["fit_seconds", "fit_cpu_seconds", "peak_memory_gib", "estimate_grown_levels_gib", "n_levels"]
    table = ok[[*columns, "test_r2"]].copy()
    df21 = ok[ok.index.get_level_values("method") == SPEED_BASELINE]["fit_cpu_seconds"].droplevel("method")
    baseline = df21.reindex(table.index.get_level_values("n_train")).to_numpy()
    table["df21_cpu_ratio"] = baseline / table["fit_cpu_seconds"].to_numpy()
    return table
