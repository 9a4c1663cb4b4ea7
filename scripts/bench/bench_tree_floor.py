"""Per-tree fit time of the fast engine against scikit-learn and against a floor from the operation count.

    python scripts/bench/bench_tree_floor.py --record   # -> results/bench/tree_floor.csv (else build/bench/)

For each dataset, a protocol fold (n = 80 examples: two thirds of N = 120) and, for MNIST, a
fold of the full-MNIST run (n = 40,000), both forest kinds of a level are grown by the fast
engine and by scikit-learn (``forest_specs.fit_fold_model``, one core), and every fast tree is
measured by its work:

* element visits: a split search must read every candidate feature's value of every example of
  a node at least once (best split: ``max_features`` features; completely random: one feature,
  read twice, for its range and then its side of the threshold), and the partition reads the
  node's examples once more. Summed over a tree's internal nodes, with each node's distinct
  examples found by routing the tree's sample (its bootstrap counts) through it. Features drawn
  beyond ``max_features`` (constant ones) are not counted: the floor is a lower bound.
* nanoseconds per visit: a compiled loop that does only that work on the same data (read the
  example's index, its value of one feature, its class and weight; add its weight to a class
  total), over the examples in a random order, as nodes hold them after partitions.

floor = visits x ns per visit; ``fast_over_floor`` is how far the engine is from it. Run it on
an otherwise idle machine. On pixels the floor is not strictly a lower bound: the engine knows
a node's all-zero features from the OR of the node's nonzero bits and does not read them.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse
import time
from functools import partial

import numba as nb
import numpy as np
from threadpoolctl import threadpool_limits

from disdf.forests import FastForest
from disdf.forests._compiled import kernels
from disdf.forests._compiled.forest import n_candidate_features
from disdf.forests._specs import fit_fold_model
from experiments.running.config import default_data_dir
from experiments.running.protocol import load_pool
from scripts.bench_output import add_record_flag, bench_output, best_of, write_and_show

KINDS = ("random_forest", "completely_random")
#: (dataset, examples, T): protocol folds, and one full-MNIST fold. A tree's time is the marginal
#: one, (time of 3T trees - time of T trees) / 2T, without the forest's fixed cost.
CASES = [
    ("parkinsons", 80, 500),
    ("ecoli", 80, 500),
    ("ionosphere", 80, 500),
    ("mnist", 80, 500),
    ("mnist", 40_000, 4),
]


@nb.njit(cache=True)
def _node_sizes(Xt, sample, roots, feature, threshold, left, right):
    """Distinct examples reaching each internal node, summed over the trees (one row per tree)."""
    visits = np.zeros(roots.shape[0])
    for t in range(roots.shape[0]):
        for i in range(Xt.shape[1]):
            if sample[t, i] == 0:
                continue
            code = roots[t]
            while code >= 0:
                visits[t] += 1
                code = left[code] if Xt[feature[code], i] <= threshold[code] else right[code]
    return visits


@nb.njit(cache=True)
def _visit_loop(Xt, y, weight, order, n_features, totals):
    """The floor's unit of work, once per (feature, example): read, then add the weight to a class."""
    for f in range(n_features):
        for s in range(order.shape[0]):
            i = order[s]
            if Xt[f, i] <= 0.5:
                totals[y[i]] += weight[i]


def ns_per_visit(X: np.ndarray, y: np.ndarray) -> float:
    Xt = np.ascontiguousarray(X.T, dtype=np.float64)
    order = np.random.default_rng(0).permutation(X.shape[0])
    weight, totals = np.ones(X.shape[0]), np.zeros(int(y.max()) + 1)
    n_features = Xt.shape[0]
    repeats = max(1, 20_000_000 // (n_features * X.shape[0]))
    _visit_loop(Xt, y, weight, order, 1, totals)  # compile
    start = time.perf_counter()
    for _ in range(repeats):
        _visit_loop(Xt, y, weight, order, n_features, totals)
    return 1e9 * (time.perf_counter() - start) / (repeats * n_features * X.shape[0])


def visits_per_tree(forest: FastForest, X: np.ndarray, kind: str) -> float:
    """Element visits of the forest's trees, averaged (see the module docstring)."""
    n = X.shape[0]
    if kind == "random_forest":
        sample = np.array([kernels.bootstrap_counts(forest.seed, t, n) for t in range(forest.n_trees)])
    else:
        sample = np.ones((forest.n_trees, n))
    Xt = np.ascontiguousarray(X.T, dtype=np.float64)
    node_examples = _node_sizes(
        Xt, sample, forest.roots, forest.feature, forest.threshold, forest.left, forest.right
    )
    reads = n_candidate_features("sqrt", X.shape[1]) if kind == "random_forest" else 2
    return float(np.mean(node_examples) * (reads + 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    add_record_flag(parser)
    args = parser.parse_args()
    output = bench_output(args, "tree_floor")
    rows = []
    with threadpool_limits(1):
        for dataset, n, n_trees in CASES:
            pool = load_pool(dataset, default_data_dir())
            rng = np.random.default_rng(0)
            rows_of_fold = rng.permutation(len(pool.y_train))[:n]
            X = np.ascontiguousarray(pool.X_train[rows_of_fold], dtype=np.float32)
            _, y = np.unique(pool.y_train[rows_of_fold], return_inverse=True)
            y = y.astype(np.int64)
            unit = ns_per_visit(X, y)
            for kind in KINDS:
                row = {"dataset": dataset, "n": n, "d": X.shape[1], "kind": kind, "trees": n_trees}
                for engine in ("fast", "sklearn"):
                    fit = partial(
                        fit_fold_model,
                        kind,
                        {},
                        engine,
                        X,
                        y,
                        n_classes=int(y.max()) + 1,
                        n_trees=n_trees,
                        random_state=1,
                        tree_params={},
                    )
                    model = fit()  # compiles the fast kernels once
                    more = partial(fit, n_trees=3 * n_trees)
                    # Marginal time of a tree: a forest's fixed cost (presorting) is not a tree's.
                    marginal = (best_of(args.repeats, more) - best_of(args.repeats, fit)) / (2 * n_trees)
                    row[f"{engine}_us_per_tree"] = 1e6 * marginal
                    if engine == "fast":
                        row["visits_per_tree"] = visits_per_tree(model, X, kind)
                row["ns_per_visit"] = unit
                row["floor_us_per_tree"] = row["visits_per_tree"] * unit / 1e3
                row["fast_over_floor"] = row["fast_us_per_tree"] / row["floor_us_per_tree"]
                row["sklearn_over_fast"] = row["sklearn_us_per_tree"] / row["fast_us_per_tree"]
                rows.append(row)
                print(row, flush=True)
    write_and_show(output, rows, float_format="%.4g")


if __name__ == "__main__":
    main()
