"""Forest engines, measured: scikit-learn against the compiled ``fast`` engine.

1. Per forest: fit time per tree and per-tree probability time (an (n, T, C)
   array for 80 new examples), for n in {50, 120} training examples, d in
   {7, 34, 784} features (Ecoli, Ionosphere, MNIST), T in {100, 1000}, both
   forest kinds -> results/bench/engine.csv.
2. One repetition of the protocol at T=1000, N=120 (gcForest and DisDF on one
   split) per dataset: "before" = scikit-learn forests, each method fitted
   alone; "after" = fast engine with level 1 shared. Time split into trees,
   probabilities, weights (pair statistics + solver) and other
   -> results/bench/repetition.csv.

Single-threaded (one core); run it on an otherwise idle machine.

Usage: python scripts/bench/bench_engine.py [--part forests|repetition|both] [--repeats 3]
       [--engines sklearn fast] [--variants before after]   (re-measure only these rows)
       [--record]   (into results/bench/, as `make bench`; else build/bench/: scripts/bench_output.py)
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse
import time
from collections import defaultdict
from contextlib import contextmanager
from functools import partial

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

import disdf.cascade._discriminative
import disdf.cascade._level_growth
from disdf.forests import FastForest, SklearnFoldModel
from disdf.forests._specs import fit_fold_model
from disdf.weights import PairStatistics
from experiments.running.composition import compose_config, estimator_specs
from experiments.running.protocol import Unit, draw_split, load_pool, split_seed, test_size
from experiments.running.unit import make_estimator, run_split
from scripts.bench_output import add_record_flag, bench_output, best_of, measurement_stamp, timed, write_csv

DATASET_OF_D = {7: "ecoli", 34: "ionosphere", 784: "mnist"}


def method_specs(engine: str) -> dict[str, dict]:
    """The protocol's gcForest and DisDF (configs/method/) with this engine and the solver's defaults."""
    cfg = compose_config(f"model.engine={engine}", "solver.options={}")
    return estimator_specs(cfg, ("gcforest", "disdf"))


def bench_forests(repeats: int, engines: list[str]) -> pd.DataFrame:
    rows = []
    for d, dataset in DATASET_OF_D.items():
        pool = load_pool(dataset, None)
        _, y_all = np.unique(pool.y_train, return_inverse=True)
        n_classes = int(y_all.max()) + 1
        rng = np.random.default_rng(0)
        for n in (50, 120):
            order = rng.permutation(len(y_all))
            train, new = order[:n], order[n : n + 80]
            X, y, X_new = pool.X_train[train], y_all[train], pool.X_train[new]
            for kind in ("completely_random", "random_forest"):
                for T in (100, 1000):
                    for engine in engines:
                        fit = partial(
                            fit_fold_model,
                            kind,
                            {},
                            engine,
                            X,
                            y,
                            n_classes=n_classes,
                            n_trees=T,
                            random_state=1,
                            tree_params={},
                        )
                        model = fit()  # also compiles the fast kernels once
                        fit_s = best_of(repeats, fit)
                        proba_s = best_of(repeats, partial(model.probabilities, X_new))
                        rows.append(
                            {
                                "dataset": dataset,
                                "d": d,
                                "n": n,
                                "kind": kind,
                                "T": T,
                                "engine": engine,
                                "fit_us_per_tree": 1e6 * fit_s / T,
                                "proba_ns_per_tree_example": 1e9 * proba_s / (T * len(X_new)),
                            }
                        )
                        print(rows[-1], flush=True)
    return pd.DataFrame(rows)


def with_speedups(frame: pd.DataFrame) -> pd.DataFrame:
    """Add sklearn / fast ratios of fit and probability time to every row of a configuration."""
    frame = frame.drop(columns=["fit_speedup", "proba_speedup"], errors="ignore")
    wide = frame.pivot_table(
        index=["dataset", "d", "n", "kind", "T"],
        columns="engine",
        values=["fit_us_per_tree", "proba_ns_per_tree_example"],
    )
    speedup = pd.DataFrame(
        {
            "fit_speedup": wide["fit_us_per_tree"]["sklearn"] / wide["fit_us_per_tree"]["fast"],
            "proba_speedup": wide["proba_ns_per_tree_example"]["sklearn"]
            / wide["proba_ns_per_tree_example"]["fast"],
        }
    ).reset_index()
    merged = frame.merge(speedup, on=["dataset", "d", "n", "kind", "T"])
    return merged.sort_values(["d", "n", "kind", "T", "engine"], ascending=[True, True, True, True, False])


@contextmanager
def clock_calls(owner, name: str, bucket: str, clock: dict):
    """Add the time spent in owner.name to clock[bucket] while the block runs."""
    original = getattr(owner, name)
    raw = original.__func__ if isinstance(original, classmethod) else original

    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return raw(*args, **kwargs)
        finally:
            clock[bucket] += time.perf_counter() - start

    setattr(owner, name, wrapper)
    try:
        yield
    finally:
        setattr(owner, name, original)


VARIANTS = {"before": ("sklearn", False), "after": ("fast", True)}


def bench_repetition(datasets: list[str], variants: list[str]) -> pd.DataFrame:
    rows = []
    for dataset in datasets:
        pool = load_pool(dataset, None)
        seed = split_seed(dataset, 120, 0, 0)
        split = draw_split(pool, 120, test_size(120, 2 / 3), seed, dataset, cap_test=True)
        units = [Unit(dataset, 120, 1000, method, 0) for method in ("gcforest", "disdf")]
        for variant in variants:
            engine, share = VARIANTS[variant]
            specs = method_specs(engine)
            if engine == "fast":  # compile outside the clock
                make_estimator(Unit(dataset, 120, 5, "disdf", 0), specs, seed).fit(
                    split.X_train, split.y_train
                )
            clock: dict[str, float] = defaultdict(float)
            with (
                clock_calls(disdf.cascade._level_growth, "fit_fold_model", "trees", clock),
                clock_calls(SklearnFoldModel, "probabilities", "probabilities", clock),
                clock_calls(SklearnFoldModel, "weighted_probabilities", "probabilities", clock),
                clock_calls(FastForest, "probabilities", "probabilities", clock),
                clock_calls(FastForest, "weighted_probabilities", "probabilities", clock),
                clock_calls(PairStatistics, "from_tree_probabilities", "weights", clock),
                clock_calls(disdf.cascade._discriminative, "solve_weights", "weights", clock),
            ):
                records, total = timed(partial(run_split, units, split, specs, seed, {}, share=share))
            rows.append(
                {
                    "dataset": dataset,
                    "variant": variant,
                    "engine": engine,
                    "share_first_level": share,
                    "total_seconds": total,
                    "trees_seconds": clock["trees"],
                    "probabilities_seconds": clock["probabilities"],
                    "weights_seconds": clock["weights"],
                    "other_seconds": total - clock["trees"] - clock["probabilities"] - clock["weights"],
                    "levels_gcforest": records[0]["n_levels"],
                    "levels_disdf": records[1]["n_levels"],
                }
            )
            print(rows[-1], flush=True)
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["forests", "repetition", "both"], default="both")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--datasets", nargs="+", default=["parkinsons", "ecoli", "ionosphere", "mnist"])
    parser.add_argument("--engines", nargs="+", choices=["sklearn", "fast"], default=["sklearn", "fast"])
    parser.add_argument("--variants", nargs="+", choices=sorted(VARIANTS), default=["before", "after"])
    add_record_flag(parser)
    args = parser.parse_args()
    threadpool_limits(1)  # one core: BLAS threads would fight any other process for the second one
    if args.part in ("forests", "both"):
        path = bench_output(args, "engine")
        forests = bench_forests(args.repeats, args.engines).assign(**measurement_stamp())
        if path.exists():  # keep the rows of engines not re-measured now (their stamps too)
            old = pd.read_csv(path)
            forests = pd.concat([old[~old["engine"].isin(args.engines)], forests])
        forests = with_speedups(forests)  # every row's ratios, so the file is rewritten, stamped above
        write_csv(path, forests, stamp={}, float_format="%.4g")
        print(forests.groupby(["kind", "d"])[["fit_speedup", "proba_speedup"]].median())
    if args.part in ("repetition", "both"):
        path = bench_output(args, "repetition")
        repetition = bench_repetition(args.datasets, args.variants)
        # The rows of (dataset, variant) pairs not re-measured now stay.
        write_csv(path, repetition, float_format="%.4g")
        print(repetition.round(2).to_string(index=False))


if __name__ == "__main__":
    main()
