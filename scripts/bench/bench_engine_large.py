"""Forest engines on many examples: seconds per tree on n MNIST images, fast engine against scikit-learn.

The marginal cost of a tree (time of a T2-tree forest minus a T1-tree one,
divided by T2 - T1) separates it from a forest's fixed cost (presorting every
feature, done once per forest), which is reported too. n in {10,000, 40,000}
(40,000 = a fold model's training rows on all of MNIST), both forest kinds of
the cascade. Single-threaded; run on an otherwise idle machine.

Usage: python scripts/bench/bench_engine_large.py [--sizes 10000 40000] [--trees 8 24] [--record]
       -> build/bench/engine_large.csv (results/bench/ with --record; or --out)
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse
from functools import partial

import numpy as np
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier
from threadpoolctl import threadpool_limits

from disdf import load_mnist
from disdf.forests import FastForest, FastForestParams
from scripts.bench_output import add_record_flag, bench_output, timed, write_csv

KINDS = {
    "completely_random": (
        FastForestParams(random_splits=True, max_features=1, bootstrap=False),
        lambda T: ExtraTreesClassifier(T, max_features=1, random_state=0),
    ),
    "random_forest": (
        FastForestParams(random_splits=False, max_features="sqrt", bootstrap=True),
        lambda T: RandomForestClassifier(T, max_features="sqrt", random_state=0),
    ),
}


def fit_seconds(engine: str, kind: str, X: np.ndarray, y: np.ndarray, n_trees: int) -> float:
    params, make_sklearn = KINDS[kind]
    forest = FastForest(params, n_trees, 0, 10) if engine == "fast" else make_sklearn(n_trees)
    return timed(partial(forest.fit, X, y))[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 40_000])
    parser.add_argument("--trees", type=int, nargs=2, default=[8, 24])
    parser.add_argument("--out", type=Path, help="the CSV to write (overrides --record)")
    add_record_flag(parser)
    args = parser.parse_args()
    output = bench_output(args, "engine_large", args.out)
    mnist = load_mnist(download=False)
    few, many = args.trees
    # Load the compiled kernels before timing.
    FastForest(KINDS["random_forest"][0], 1, 0, 10).fit(mnist["X_train"][:100], mnist["y_train"][:100])
    rows = []
    with threadpool_limits(1):
        for n in args.sizes:
            X = np.ascontiguousarray(mnist["X_train"][:n], dtype=np.float32)
            y = mnist["y_train"][:n]
            for kind in KINDS:
                for engine in ("fast", "sklearn"):
                    t_few = fit_seconds(engine, kind, X, y, few)
                    t_many = fit_seconds(engine, kind, X, y, many)
                    per_tree = (t_many - t_few) / (many - few)
                    rows.append(
                        {
                            "n": n,
                            "kind": kind,
                            "engine": engine,
                            "seconds_per_tree": per_tree,
                            "fixed_seconds_per_forest": max(t_few - few * per_tree, 0.0),
                            "trees": f"{few},{many}",
                        }
                    )
                    print(rows[-1], flush=True)
    write_csv(output, rows, float_format="%.4g")
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
