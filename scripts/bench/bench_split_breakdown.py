"""Where one split's time goes: growing trees, per-tree probabilities, weights, everything else.

    python scripts/bench/bench_split_breakdown.py --label after --record
    # -> results/bench/split_breakdown.csv

(without ``--record``: build/bench/split_breakdown.csv).

Runs the protocol's split job (every T and both methods of experiment=paper, level 1 shared, as
`make reproduce` does) for a few headline splits per dataset at N = 120, in one process with one
BLAS thread (as each worker of the protocol runs), and adds up wall-clock timers around each
category's outermost calls:

* trees: FastForest.fit (the compiled grow_forest and its presorting);
* probabilities: FastForest.probabilities and weighted_probabilities (per-tree class
  probabilities and class vectors, training folds and test examples);
* weights: solve_weights and the pair statistics (pi, Q) of DisDF's weight problems (the
  cross-fitted parts' too: ``of_examples``, where the code has it);
* other: the rest of the split (validation, stacking, bookkeeping).

Timers, not a profiler: a profiler charges every Python call and inflates the weights (many
small numpy calls) against the trees (one compiled call per forest). Compilation is warmed up
first. The rows of ``--label`` replace that label's earlier rows, so the file keeps a "before"
measured on an older commit (run this script of that commit, e.g. from a git worktree) beside
the "after".
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse
import time
from collections import defaultdict

from threadpoolctl import threadpool_limits

import disdf.cascade._discriminative
from disdf.cascade._forest_fit import LevelFit
from disdf.forests import FastForest
from disdf.forests._tree_leaves import TreeLeaves
from disdf.weights import PairStatistics
from experiments.running.composition import compose_config, estimator_specs
from experiments.running.config import default_data_dir
from experiments.running.protocol import Unit, draw_split, load_pool, split_seed, test_size
from experiments.running.unit import run_split
from scripts.bench_output import add_record_flag, bench_output, timed, write_and_show

#: (owner, function, category): the outermost calls of each category.
TIMED = [
    (FastForest, "fit", "trees"),
    (FastForest, "probabilities", "probabilities"),
    (FastForest, "weighted_probabilities", "probabilities"),
    (FastForest, "tree_leaves", "probabilities"),  # held-out leaf rows, then their (n, T, C) arrays
    (TreeLeaves, "probabilities", "probabilities"),
    (disdf.cascade._discriminative, "solve_weights", "weights"),
    (PairStatistics, "from_tree_probabilities", "weights"),
    (PairStatistics, "of_examples", "weights"),
    (LevelFit, "compute_pair_statistics", "weights"),
]


def split_job(dataset: str, N: int, repetition: int):
    cfg = compose_config("experiment=paper")
    methods = list(cfg.protocol.methods)
    units = [Unit(dataset, N, T, method, repetition) for T in cfg.protocol.Ts for method in methods]
    seed = split_seed(dataset, N, repetition, cfg.protocol.seed)
    pool = load_pool(dataset, default_data_dir())
    split = draw_split(pool, N, test_size(N, cfg.protocol.test_fraction), seed, dataset, cap_test=True)
    specs = estimator_specs(cfg, methods)
    return lambda: run_split(units, split, specs, seed, {}, share=True)


def install_timers(clock: dict[str, float]) -> None:
    """Wrap every TIMED function so that its outermost calls add their wall time to clock[category]."""
    depth = [0]

    def timer(function, category):
        def timed(*args, **kwargs):
            if depth[0]:
                return function(*args, **kwargs)
            depth[0] += 1
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                clock[category] += time.perf_counter() - start
                depth[0] -= 1

        return timed

    for owner, name, category in TIMED:
        if not hasattr(owner, name):  # an older checkout's code lacks it
            continue
        original = owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name)
        if isinstance(original, classmethod):
            wrapped = timer(original.__func__, category)
            setattr(owner, name, classmethod(lambda cls, *a, _w=wrapped, **k: _w(cls, *a, **k)))
        else:
            setattr(owner, name, timer(original, category))


#: The timed categories of TIMED; the rest of a split is "other".
PARTS = ("trees", "probabilities", "weights")


def seconds_by_part(jobs, clock: dict[str, float]) -> dict[str, float]:
    """Run the split jobs one after the other; mean seconds per split in all and by part."""
    clock.clear()
    _, elapsed = timed(lambda: [job() for job in jobs])
    total = elapsed / len(jobs)
    row = {"seconds_per_split": total}
    for part in PARTS:
        row[f"{part}_seconds"] = clock[part] / len(jobs)
    row["other_seconds"] = total - sum(clock[part] for part in PARTS) / len(jobs)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", default="after", help="name of this measurement (e.g. before, after)")
    parser.add_argument("--splits", type=int, default=3)
    parser.add_argument("--N", type=int, default=120)
    parser.add_argument("--datasets", nargs="+", default=["parkinsons", "ecoli", "ionosphere", "mnist"])
    add_record_flag(parser)
    args = parser.parse_args()
    output = bench_output(args, "split_breakdown")
    clock: dict[str, float] = defaultdict(float)
    install_timers(clock)
    rows = []
    with threadpool_limits(1):
        split_job(args.datasets[0], 50, 0)()  # compile the kernels before any clock starts
        for dataset in args.datasets:
            jobs = [split_job(dataset, args.N, repetition) for repetition in range(args.splits)]
            row = {"label": args.label, "dataset": dataset, "N": args.N, "splits": args.splits}
            row.update(seconds_by_part(jobs, clock))
            rows.append(row)
            print(row, flush=True)
    write_and_show(output, rows, float_format="%.4f")


if __name__ == "__main__":
    main()
