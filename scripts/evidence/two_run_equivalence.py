"""A TOST of two runs on the same splits: is run B the same learner as run A, within declared margins?

The two runs' raw records are paired by (dataset, N, T, method, repetition) (the split seed depends
only on dataset, N and repetition). Per cell (dataset, N, method) a paired TOST with the cell margin;
pooled, a paired TOST at the unit of independence, the split (dataset, N, repetition), whose
difference is averaged over the methods and T of that split. Margins are the caller's, declared
before the data are read. Used by ``compare_engines.py`` and ``compare_pair_draws.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from experiments.analysis.plan import ALPHA
from experiments.analysis.statistics import tost_paired
from experiments.running.records import RecordStore

KEY = ["dataset", "N", "T", "method", "repetition"]
SPLIT = ["dataset", "N", "repetition"]


@dataclass(frozen=True)
class Comparison:
    """Two runs named ``a`` and ``b`` (the columns' suffixes), and the margins in accuracy points."""

    a: str
    b: str
    pooled_margin_pp: float
    cell_margin_pp: float
    experiment: str  # named in the error when a run has no records


def load(run_dir: Path, experiment: str) -> pd.DataFrame:
    records = RecordStore(run_dir / "raw").read_all()
    if not records:
        raise SystemExit(f"no records under {run_dir / 'raw'}: run the {experiment} experiment first")
    frame = pd.DataFrame(records)
    frame["seconds"] = frame["fit_seconds"] + frame["predict_seconds"]
    return frame[[*KEY, "accuracy", "n_levels", "seconds"]]


def pair_runs(comparison: Comparison, a: pd.DataFrame, b: pd.DataFrame) -> pd.DataFrame:
    """One row per unit run by both, with b − a in percentage points."""
    pairs = a.merge(b, on=KEY, suffixes=(f"_{comparison.a}", f"_{comparison.b}"))
    if pairs.empty:
        raise SystemExit("the two runs share no (dataset, N, T, method, repetition): nothing to compare")
    difference = pairs[f"accuracy_{comparison.b}"] - pairs[f"accuracy_{comparison.a}"]
    return pairs.assign(difference_pp=100 * difference)


def equivalence_row(
    comparison: Comparison, pairs: pd.DataFrame, differences: pd.Series, margin: float
) -> dict:
    tost = tost_paired(differences.to_numpy(), margin, ALPHA)
    a, b = comparison.a, comparison.b
    return {
        "pairs": len(differences),
        "margin_pp": margin,
        f"accuracy_{a}": pairs[f"accuracy_{a}"].mean(),
        f"accuracy_{b}": pairs[f"accuracy_{b}"].mean(),
        "difference_pp": tost["mean"],
        "ci90_low_pp": tost["ci_low"],
        "ci90_high_pp": tost["ci_high"],
        "p_tost": tost["p_tost"],
        "equivalent": tost["equivalent"],
        f"levels_{a}": pairs[f"n_levels_{a}"].mean(),
        f"levels_{b}": pairs[f"n_levels_{b}"].mean(),
        f"seconds_{a}": pairs[f"seconds_{a}"].mean(),
        f"seconds_{b}": pairs[f"seconds_{b}"].mean(),
    }


def equivalence_table(comparison: Comparison, pairs: pd.DataFrame) -> pd.DataFrame:
    """One row per cell (dataset, N, method), then the pooled row per split."""
    rows = [
        {
            "dataset": dataset,
            "N": N,
            "method": method,
            **equivalence_row(comparison, cell, cell["difference_pp"], comparison.cell_margin_pp),
        }
        for (dataset, N, method), cell in pairs.groupby(["dataset", "N", "method"])
    ]
    per_split = pairs.groupby(SPLIT)["difference_pp"].mean()
    methods = sorted(pairs["method"].unique())
    rows.append(
        {
            "dataset": "all",
            "N": "all",
            "method": "both (per split)" if len(methods) > 1 else f"{methods[0]} (per split)",
            **equivalence_row(comparison, pairs, per_split, comparison.pooled_margin_pp),
        }
    )
    return pd.DataFrame(rows)


def verdict(comparison: Comparison, table: pd.DataFrame) -> str:
    cells, pooled = table[table["dataset"] != "all"], table.iloc[-1]
    passed = int(cells["equivalent"].sum())
    every_cell = passed == len(cells)
    return (
        f"Pooled over {int(pooled['pairs'])} splits: {comparison.b} - {comparison.a} = "
        f"{pooled['difference_pp']:+.2f} pp, "
        f"90 % CI [{pooled['ci90_low_pp']:+.2f}, {pooled['ci90_high_pp']:+.2f}], "
        f"TOST p = {pooled['p_tost']:.2g} against ±{comparison.pooled_margin_pp} pp: "
        f"{'equivalent' if pooled['equivalent'] else 'NOT shown equivalent'}.\n"
        f"Per cell (±{comparison.cell_margin_pp} pp, α = {ALPHA}): "
        f"{passed} of {len(cells)} cells equivalent; "
        f"largest TOST p = {cells['p_tost'].max():.2g}; "
        + ("equivalence in every cell (intersection-union test)." if every_cell else "NOT every cell.")
    )
