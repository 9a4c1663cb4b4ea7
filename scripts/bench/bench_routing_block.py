"""Routing examples through a forest: seconds by block size, and the block ``routing_block`` chooses.

    python scripts/bench/bench_routing_block.py --record   # -> results/bench/routing_block.csv

(without ``--record``: build/bench/). The routing kernels send a block of examples through one tree
before the next (disdf/forests/_compiled/prediction_kernels.py); the results are the same for any
block, the time is not. Two shapes of problem, each with a completely-random and a random forest of
``--n-trees`` trees of the compiled engine (exact splits):

* ``higgs_like``: bench_scale's HIGGS-shaped rows (28 float32 features, 112 bytes per row), trees
  grown on 200,000 rows (what a tree draws with ``max_tree_samples=200_000``, or a fold of a
  300,000-row fit), 333,333 other rows routed (a held-out fold of a 10^6-row fit);
* ``mnist``: trees grown on 40,000 MNIST training images (784 features, 3,136 bytes per row; a
  full-MNIST fold model's rows), the other 20,000 routed.

Each block of ``--blocks`` and the block :func:`routing_block` chooses for that forest and X: the
best of ``--repeats`` calls of ``apply_rows`` (the held-out rows' leaves), after one call that
compiles it. Columns: problem, kind, n_fit, n_routed, n_trees, nodes_per_tree, block, chosen (the
block routing_block picks), seconds, ns_per_example_tree, speedup (seconds at block 256 / seconds),
same_leaves (every block's leaves equal block 256's), then the stamp.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse
import time

import numpy as np

from disdf.forests import FastForest, FastForestParams
from disdf.forests._compiled import prediction_kernels
from scripts.bench.bench_scale import problem_data
from scripts.bench_output import add_record_flag, bench_output, write_csv

KINDS = {
    "completely_random": FastForestParams(random_splits=True, max_features=1, bootstrap=False),
    "random_forest": FastForestParams(random_splits=False, max_features="sqrt", bootstrap=True),
}
#: (training rows, routed rows) of each problem.
SIZES = {"higgs_like": (200_000, 333_333), "mnist": (40_000, 20_000)}


def problem(name: str, data_dir: str | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """X (float32, example-major), y, and the rows to route: those after the training rows."""
    n_fit, n_routed = SIZES[name]
    X, y, _, _ = problem_data(name, n_fit + n_routed, data_dir)
    return np.ascontiguousarray(X), y, np.arange(n_fit, n_fit + n_routed, dtype=np.int64)


def best_seconds(call, repeats: int) -> tuple[float, np.ndarray]:
    """The fastest of ``repeats`` calls, and the last call's result."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        result = call()
        best = min(best, time.perf_counter() - start)
    return best, result


def measure(name: str, kind: str, args: argparse.Namespace) -> list[dict]:
    X, y, rows = problem(name, args.data_dir)
    n_fit = SIZES[name][0]
    forest = FastForest(KINDS[kind], args.n_trees, 0, int(y.max()) + 1).fit(X[:n_fit], y[:n_fit])
    nodes = (forest.roots, forest.feature, forest.threshold, forest.left, forest.right)
    chosen = prediction_kernels.routing_block(X, args.n_trees, *nodes[1:])
    blocks = sorted({*args.blocks, chosen, prediction_kernels.ROUTING_BLOCK})
    prediction_kernels.apply_rows(X, rows[:1000], *nodes, chosen)  # compiled, or read from the cache
    timed = {}
    for block in blocks:
        timed[block] = best_seconds(
            lambda b=block: prediction_kernels.apply_rows(X, rows, *nodes, b), args.repeats
        )
        print(f"{name} {kind} block {block:>6}: {timed[block][0]:.3f} s", flush=True)
    base_seconds, base_leaves = timed[prediction_kernels.ROUTING_BLOCK]
    return [
        {
            "problem": name,
            "kind": kind,
            "n_fit": n_fit,
            "n_routed": len(rows),
            "n_trees": args.n_trees,
            "nodes_per_tree": len(forest.feature) / args.n_trees,
            "block": block,
            "chosen": block == chosen,
            "seconds": seconds,
            "ns_per_example_tree": seconds / (len(rows) * args.n_trees) * 1e9,
            "speedup": base_seconds / seconds,
            "same_leaves": bool(np.array_equal(leaves, base_leaves)),
        }
        for block, (seconds, leaves) in timed.items()
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--problems", nargs="+", default=list(SIZES), choices=list(SIZES))
    parser.add_argument("--n-trees", type=int, default=10)
    parser.add_argument("--blocks", nargs="+", type=int, default=[256, 1024, 4096, 16384, 32768])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--data-dir", default=None, help="MNIST's folder (default: DISDF_DATA_DIR)")
    add_record_flag(parser)
    args = parser.parse_args()
    output = bench_output(args, "routing_block")
    rows = [row for name in args.problems for kind in KINDS for row in measure(name, kind, args)]
    write_csv(output, rows, float_format="%.6g")


if __name__ == "__main__":
    main()
