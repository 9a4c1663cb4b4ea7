"""Is DisDF on drawn pairs (``max_pairs``) as accurate as on every pair? An equivalence test (TOST).

Reads the raw records of ``experiment=pair_draws_protocol`` and ``experiment=pair_draws_mnist``, each
run once with every pair (``model.max_pairs=null``) and once with drawn pairs, on the same splits,
and pairs them by (dataset, N, T, method, repetition). Declared on 2026-11-28, before any record of
either arm, and never moved:

* **Primary, per part, pooled**: a paired TOST on drawn − every pair with margin ±0.5 accuracy
  points at α = 0.05 (its 90 % interval inside ±0.5), the unit the split (dataset, N, repetition).
  Part (a), the protocol's four datasets at N = 120 with max_pairs = 100 (a third to a seventh of
  the pairs drawn, far fewer than the default's 5,000); part (b), MNIST slices of N = 1,000 and
  1,500 with the default 5,000 (a tenth and a twenty-second drawn).
* **Per cell** (dataset, N): a paired TOST with margin ±1.5 points, as for the engines; every cell
  must pass for "equivalent in every cell" (an intersection-union test).

Writes one row per cell and each part's pooled row (``part`` column) with the mean difference, its
90 % interval, the TOST p-value and verdict, and the levels kept and seconds per unit of each arm.

    make pair-draws    # both parts, both arms, then this script with --record -> results/bench/pair_draws.csv
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse

import pandas as pd

from experiments.analysis.plan import VARIANT_CELL_MARGIN_PP, VARIANT_MARGIN_PP
from scripts.bench_output import add_record_flag, bench_output, write_csv
from scripts.evidence.two_run_equivalence import Comparison, equivalence_table, load, pair_runs, verdict

#: The two parts: their run folder under --runs and the drawn arm's max_pairs.
PARTS = {"protocol": 100, "mnist": 5_000}


def comparison(part: str) -> Comparison:
    """Every pair against drawn pairs; the margins declared in the module docstring."""
    return Comparison(
        a="every_pair",
        b="drawn",
        pooled_margin_pp=VARIANT_MARGIN_PP,
        cell_margin_pp=VARIANT_CELL_MARGIN_PP,
        experiment=f"pair_draws_{part}",
    )


def part_table(runs: Path, part: str) -> tuple[pd.DataFrame, str]:
    compared = comparison(part)
    every = load(runs / part / "max_pairs_None", compared.experiment)
    drawn = load(runs / part / f"max_pairs_{PARTS[part]}", compared.experiment)
    table = equivalence_table(compared, pair_runs(compared, every, drawn))
    table.insert(0, "max_pairs", PARTS[part])
    table.insert(0, "part", part)
    return table, verdict(compared, table)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=Path, default=Path("results/pair_draws"))
    parser.add_argument("--out", type=Path, help="the CSV to write (overrides --record)")
    add_record_flag(parser)
    args = parser.parse_args()
    output = bench_output(args, "pair_draws", args.out)
    tables, verdicts = zip(*(part_table(args.runs, part) for part in PARTS), strict=True)
    table = pd.concat(tables, ignore_index=True)
    write_csv(output, table, float_format="%.4g")
    with pd.option_context("display.width", 220, "display.max_columns", 24):
        print(table.round(4).to_string(index=False))
    for part, said in zip(PARTS, verdicts, strict=True):
        print(f"\n{part}: {said}")
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
