"""Is ``engine="fast"`` the same learner as ``engine="sklearn"``? Paired comparison of two runs.

Reads the raw records of ``experiment=engine_equivalence`` run once per engine
(same splits: the split seed depends only on dataset, N and repetition), pairs
them by (dataset, N, T, method, repetition) and writes, per (dataset, N,
method) and pooled, the mean accuracies, fast - sklearn in percentage points
with its 95 % t-interval, the paired Wilcoxon p-value (and its Holm adjustment
across the cells), and whether the cell
meets the criterion |mean difference| <= 0.5 pp and p >= 0.05. Also compares
the levels kept and the fit time.

    python -m experiments.run experiment=engine_equivalence model.engine=sklearn
    python -m experiments.run experiment=engine_equivalence model.engine=fast
    python scripts/compare_engines.py   # -> results/bench/engine_equivalence.csv
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from experiments.records import RecordStore
from experiments.stats import holm, mean_ci, paired_wilcoxon

KEY = ["dataset", "N", "T", "method", "repetition"]
TOLERANCE_PP = 0.5


def load(run_dir: Path) -> pd.DataFrame:
    store = RecordStore(run_dir / "raw")
    records = [r for path in sorted(store.raw_dir.glob("*.jsonl")) for r in store.read(path.stem)]
    if not records:
        raise SystemExit(f"no records under {run_dir / 'raw'}: run the engine_equivalence experiment first")
    frame = pd.DataFrame(records)
    frame["seconds"] = frame["fit_seconds"] + frame["predict_seconds"]
    return frame[[*KEY, "accuracy", "n_levels", "seconds"]]


def summarise(pairs: pd.DataFrame) -> dict:
    difference = 100 * (pairs["accuracy_fast"] - pairs["accuracy_sklearn"])
    mean, half = mean_ci(difference.to_numpy())
    p = paired_wilcoxon(pairs["accuracy_fast"].to_numpy(), pairs["accuracy_sklearn"].to_numpy())
    return {
        "pairs": len(pairs),
        "accuracy_sklearn": pairs["accuracy_sklearn"].mean(),
        "accuracy_fast": pairs["accuracy_fast"].mean(),
        "difference_pp": mean,
        "difference_ci95_pp": half,
        "wilcoxon_p": p,
        "same_learner": bool(abs(mean) <= TOLERANCE_PP and p >= 0.05),
        "levels_sklearn": pairs["n_levels_sklearn"].mean(),
        "levels_fast": pairs["n_levels_fast"].mean(),
        "seconds_sklearn": pairs["seconds_sklearn"].mean(),
        "seconds_fast": pairs["seconds_fast"].mean(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=Path, default=Path("results/engine_equivalence"))
    parser.add_argument("--out", type=Path, default=Path("results/bench/engine_equivalence.csv"))
    args = parser.parse_args()
    pairs = load(args.runs / "sklearn").merge(
        load(args.runs / "fast"), on=KEY, suffixes=("_sklearn", "_fast")
    )
    if pairs.empty:
        raise SystemExit("the two runs share no (dataset, N, T, method, repetition): nothing to compare")
    rows = [
        {"dataset": dataset, "N": N, "method": method, **summarise(group)}
        for (dataset, N, method), group in pairs.groupby(["dataset", "N", "method"])
    ]
    for method, group in pairs.groupby("method"):
        rows.append({"dataset": "all", "N": "all", "method": method, **summarise(group)})
    rows.append({"dataset": "all", "N": "all", "method": "both", **summarise(pairs)})
    table = pd.DataFrame(rows)
    # 16 cells are 16 tests: Holm's adjustment says which differences survive multiplicity.
    cells = table["dataset"] != "all"
    table.loc[cells, "wilcoxon_p_holm"] = holm(table.loc[cells, "wilcoxon_p"].to_numpy())
    args.out.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out, index=False, float_format="%.4g")
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(table.round(4).to_string(index=False))
    cells = table[table["dataset"] != "all"]
    print(
        f"\n{int(cells['same_learner'].sum())} of {len(cells)} cells meet "
        f"|fast - sklearn| <= {TOLERANCE_PP} pp "
        f"and Wilcoxon p >= 0.05; pooled difference {table.iloc[-1]['difference_pp']:+.2f} pp "
        f"(95 % CI +-{table.iloc[-1]['difference_ci95_pp']:.2f}), p = {table.iloc[-1]['wilcoxon_p']:.3f}; "
        f"wrote {args.out}"
    )


if __name__ == "__main__":
    main()
