"""Where one split's time goes: growing trees, per-tree probabilities, weights, everything else.

    python scripts/bench_split_breakdown.py   # -> results/bench/split_breakdown.csv

Runs the protocol's split job (every T and both methods of experiment=paper, level 1 shared, as
`make reproduce` does) for a few headline splits per dataset at N = 120, in one process under
cProfile, and sums the time spent inside each category's functions (cumulative time of the
outermost call of each, so nothing is counted twice):

* trees: FastForest.fit (the compiled grow_forest and its presorting);
* probabilities: FastForest.probabilities and weighted_probabilities (per-tree class
  probabilities and class vectors, training folds and test examples);
* weights: solve_weights and the pair statistics (pi, Q) of DisDF's weight problems;
* other: the rest of the split (validation, stacking, bookkeeping).

Compilation is warmed up first. One process, one core: these are CPU shares, not wall time.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time
from pathlib import Path

import pandas as pd

from experiments.composition import compose_config, estimator_specs
from experiments.config import default_data_dir
from experiments.protocol import Unit, draw_split, load_pool, split_seed, test_size
from experiments.unit import run_split

OUTPUT = Path(__file__).resolve().parents[1] / "results" / "bench" / "split_breakdown.csv"
#: (file suffix, function name) of each category's outermost functions.
CATEGORIES = {
    "trees": [("fast_forest/forest.py", "fit")],
    "probabilities": [
        ("fast_forest/forest.py", "probabilities"),
        ("fast_forest/forest.py", "weighted_probabilities"),
    ],
    "weights": [("weights/__init__.py", "solve_weights"), ("forest_fit.py", "compute_pair_statistics")],
}


def split_job(dataset: str, N: int, repetition: int):
    cfg = compose_config("experiment=paper")
    methods = list(cfg.protocol.methods)
    units = [Unit(dataset, N, T, method, repetition) for T in cfg.protocol.Ts for method in methods]
    seed = split_seed(dataset, N, repetition, cfg.protocol.seed)
    pool = load_pool(dataset, default_data_dir())
    split = draw_split(pool, N, test_size(N, cfg.protocol.test_fraction), seed, dataset, cap_test=True)
    specs = estimator_specs(cfg, methods)
    return lambda: run_split(units, split, specs, seed, {}, share=True)


def category_seconds(stats: pstats.Stats) -> dict[str, float]:
    """Cumulative seconds of each category's functions (the largest entry per function name)."""
    seconds = {}
    for category, functions in CATEGORIES.items():
        total = 0.0
        for (filename, _, name), (_, _, _, cumulative, _) in stats.stats.items():
            if any(filename.endswith(suffix) and name == function for suffix, function in functions):
                total += cumulative
        seconds[category] = total
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", type=int, default=3)
    parser.add_argument("--N", type=int, default=120)
    parser.add_argument("--datasets", nargs="+", default=["parkinsons", "ecoli", "ionosphere", "mnist"])
    args = parser.parse_args()
    split_job(args.datasets[0], 50, 0)()  # compile the kernels before any clock starts
    rows = []
    for dataset in args.datasets:
        profiler, start = cProfile.Profile(), time.perf_counter()
        for repetition in range(args.splits):
            job = split_job(dataset, args.N, repetition)
            profiler.enable()
            job()
            profiler.disable()
        total = profiler.getstats() and pstats.Stats(profiler)
        seconds = category_seconds(total)
        split_total = sum(
            v for (_, _, _, v, _) in [total.stats[k] for k in total.stats if k[2] == "run_split"]
        )
        row = {
            "dataset": dataset,
            "N": args.N,
            "splits": args.splits,
            "seconds_per_split": split_total / args.splits,
        }
        for category, value in seconds.items():
            row[f"{category}_share"] = value / split_total
        row["other_share"] = 1 - sum(seconds.values()) / split_total
        row["wall_seconds"] = time.perf_counter() - start
        rows.append(row)
    frame = pd.DataFrame(rows)
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(OUTPUT, index=False, float_format="%.4f")
    print(frame.to_string(index=False))


if __name__ == "__main__":
    main()
