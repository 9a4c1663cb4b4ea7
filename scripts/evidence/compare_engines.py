"""Is ``engine="fast"`` the same learner as ``engine="sklearn"``? An equivalence test (TOST) of two runs.

Reads the raw records of ``experiment=engine_equivalence`` run once per engine
(same splits: the split seed depends only on dataset, N and repetition) and
pairs them by (dataset, N, T, method, repetition). The margins are declared
here, before looking at the data, and never moved:

* **Primary, pooled**: a paired TOST on fast − sklearn with margin ±0.5
  percentage points. The independent unit is the split (dataset, N,
  repetition): its difference is averaged over the methods and T of that split,
  since gcF and DisDF on one split are not independent observations.
* **Per cell** (dataset, N, method): a paired TOST with margin ±1.5 points,
  inside the resolution of the headline tables (cell CIs ±0.5–2 points).
  Equivalence in every cell is claimed only if every cell passes at α = 0.05
  (an intersection-union test: no multiplicity correction is needed for that
  claim). A cell whose interval is too wide to decide gets more repetitions for
  both engines; the margins stay.

Writes one row per cell and the pooled row with the mean difference, its 90 %
t-interval (the TOST's), the TOST p-value and the verdict, plus the levels kept
and the time per unit.

    python -m experiments.run experiment=engine_equivalence model.engine=sklearn
    python -m experiments.run experiment=engine_equivalence model.engine=fast
    python scripts/evidence/compare_engines.py --record   # -> results/bench/engine_equivalence.csv

(without ``--record``: build/bench/engine_equivalence.csv; ``--out`` names another file).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse

import pandas as pd

from experiments.analysis.statistics import tost_paired
from experiments.running.records import RecordStore
from scripts.bench_output import add_record_flag, bench_output, write_csv

KEY = ["dataset", "N", "T", "method", "repetition"]
SPLIT = ["dataset", "N", "repetition"]
#: Equivalence margins in percentage points (declared before the comparison; see the module docstring).
POOLED_MARGIN_PP = 0.5
CELL_MARGIN_PP = 1.5
ALPHA = 0.05


def load(run_dir: Path) -> pd.DataFrame:
    store = RecordStore(run_dir / "raw")
    records = store.read_all()
    if not records:
        raise SystemExit(f"no records under {run_dir / 'raw'}: run the engine_equivalence experiment first")
    frame = pd.DataFrame(records)
    frame["seconds"] = frame["fit_seconds"] + frame["predict_seconds"]
    return frame[[*KEY, "accuracy", "n_levels", "seconds"]]


def pair_runs(sklearn: pd.DataFrame, fast: pd.DataFrame) -> pd.DataFrame:
    """One row per unit run by both engines, with fast − sklearn in percentage points."""
    pairs = sklearn.merge(fast, on=KEY, suffixes=("_sklearn", "_fast"))
    if pairs.empty:
        raise SystemExit("the two runs share no (dataset, N, T, method, repetition): nothing to compare")
    return pairs.assign(difference_pp=100 * (pairs["accuracy_fast"] - pairs["accuracy_sklearn"]))


def equivalence_row(pairs: pd.DataFrame, differences: pd.Series, margin: float) -> dict:
    tost = tost_paired(differences.to_numpy(), margin, ALPHA)
    return {
        "pairs": len(differences),
        "margin_pp": margin,
        "accuracy_sklearn": pairs["accuracy_sklearn"].mean(),
        "accuracy_fast": pairs["accuracy_fast"].mean(),
        "difference_pp": tost["mean"],
        "ci90_low_pp": tost["ci_low"],
        "ci90_high_pp": tost["ci_high"],
        "p_tost": tost["p_tost"],
        "equivalent": tost["equivalent"],
        "levels_sklearn": pairs["n_levels_sklearn"].mean(),
        "levels_fast": pairs["n_levels_fast"].mean(),
        "seconds_sklearn": pairs["seconds_sklearn"].mean(),
        "seconds_fast": pairs["seconds_fast"].mean(),
    }


def equivalence_table(pairs: pd.DataFrame) -> pd.DataFrame:
    rows = [
        {
            "dataset": dataset,
            "N": N,
            "method": method,
            **equivalence_row(cell, cell["difference_pp"], CELL_MARGIN_PP),
        }
        for (dataset, N, method), cell in pairs.groupby(["dataset", "N", "method"])
    ]
    per_split = pairs.groupby(SPLIT)["difference_pp"].mean()
    rows.append(
        {
            "dataset": "all",
            "N": "all",
            "method": "both (per split)",
            **equivalence_row(pairs, per_split, POOLED_MARGIN_PP),
        }
    )
    return pd.DataFrame(rows)


def verdict(table: pd.DataFrame) -> str:
    cells, pooled = table[table["dataset"] != "all"], table.iloc[-1]
    passed = int(cells["equivalent"].sum())
    every_cell = passed == len(cells)
    return (
        f"Pooled over {int(pooled['pairs'])} splits: fast - sklearn = {pooled['difference_pp']:+.2f} pp, "
        f"90 % CI [{pooled['ci90_low_pp']:+.2f}, {pooled['ci90_high_pp']:+.2f}], "
        f"TOST p = {pooled['p_tost']:.2g} against ±{POOLED_MARGIN_PP} pp: "
        f"{'equivalent' if pooled['equivalent'] else 'NOT shown equivalent'}.\n"
        f"Per cell (±{CELL_MARGIN_PP} pp, α = {ALPHA}): {passed} of {len(cells)} cells equivalent; "
        f"largest TOST p = {cells['p_tost'].max():.2g}; "
        + ("equivalence in every cell (intersection-union test)." if every_cell else "NOT every cell.")
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=Path, default=Path("results/engine_equivalence"))
    parser.add_argument("--out", type=Path, help="the CSV to write (overrides --record)")
    add_record_flag(parser)
    args = parser.parse_args()
    output = bench_output(args, "engine_equivalence", args.out)
    table = equivalence_table(pair_runs(load(args.runs / "sklearn"), load(args.runs / "fast")))
    write_csv(output, table, float_format="%.4g")
    with pd.option_context("display.width", 220, "display.max_columns", 20):
        print(table.round(4).to_string(index=False))
    print(f"\n{verdict(table)}\nwrote {output}")


if __name__ == "__main__":
    main()
