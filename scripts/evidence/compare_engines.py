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

from experiments.analysis.plan import VARIANT_CELL_MARGIN_PP, VARIANT_MARGIN_PP
from scripts.bench_output import add_record_flag, bench_output, write_csv
from scripts.evidence.two_run_equivalence import Comparison, equivalence_table, load, pair_runs, verdict

#: Equivalence margins in percentage points (declared before the comparison; see the module docstring).
ENGINES = Comparison(
    a="sklearn",
    b="fast",
    pooled_margin_pp=VARIANT_MARGIN_PP,
    cell_margin_pp=VARIANT_CELL_MARGIN_PP,
    experiment="engine_equivalence",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=Path, default=Path("results/engine_equivalence"))
    parser.add_argument("--out", type=Path, help="the CSV to write (overrides --record)")
    add_record_flag(parser)
    args = parser.parse_args()
    output = bench_output(args, "engine_equivalence", args.out)
    runs = [load(args.runs / name, ENGINES.experiment) for name in (ENGINES.a, ENGINES.b)]
    table = equivalence_table(ENGINES, pair_runs(ENGINES, *runs))
    write_csv(output, table, float_format="%.4g")
    with pd.option_context("display.width", 220, "display.max_columns", 20):
        print(table.round(4).to_string(index=False))
    print(f"\n{verdict(ENGINES, table)}\nwrote {output}")


if __name__ == "__main__":
    main()
