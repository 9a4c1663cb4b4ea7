"""Multi-grained scanning's time and peak memory on N MNIST images (N = 120 and 10,000 by default).

Each case runs in a fresh subprocess, which reports its own peak resident memory
(``resource.getrusage``, max RSS, data loading included) and tracemalloc's peak of the numpy
arrays it allocated during the measured call. Cases: ``fit_transform`` on the first N training
images (the out-of-fold vectors), then ``transform`` of ``--n-test`` test images. The column
``all_windows_gb`` is what every window of every size of those N images would take at once as
float32 (what the scanner never builds: one window size and one fold at a time for fitting,
``batch_size`` images at a time for scoring). Scanner settings: those of ``experiment=mgs``
(windows 7, 10, 14, stride 2, 10 trees per forest) unless told.

Usage: python scripts/bench/bench_scanning.py [--sizes 120 10000] [--n-test 10000] [--record]
       -> build/bench/scanning.csv (results/bench/ with --record; or --out)
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse
import json
import os
import subprocess

from scripts.bench_output import add_record_flag, bench_output, write_csv

ROOT = Path(__file__).resolve().parents[2]
CASE = r"""
import json, resource, sys, time, tracemalloc
import numpy as np
from disdf import load_mnist
from disdf.scanning import MultiGrainedScanner
n, n_test, strides, n_trees, n_jobs = (int(v) for v in sys.argv[1:6])
mnist = load_mnist(download=False)
X, y, X_test = mnist["X_train"][:n], mnist["y_train"][:n], mnist["X_test"][:n_test]
MultiGrainedScanner(image_shape=(28, 28), window_sizes=[3], n_trees=1, random_state=0).fit(X[:30], y[:30])
scanner = MultiGrainedScanner(image_shape=(28, 28), window_sizes=[7, 10, 14], strides=strides,
                              n_trees=n_trees, n_jobs=n_jobs, random_state=0)
rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
tracemalloc.start()
start = time.perf_counter()
Z = scanner.fit_transform(X, y)
fit = time.perf_counter() - start
fit_peak = tracemalloc.get_traced_memory()[1]
tracemalloc.reset_peak()
start = time.perf_counter()
Z_test = scanner.transform(X_test)
transform = time.perf_counter() - start
transform_peak = tracemalloc.get_traced_memory()[1]
windows = sum(n * g.n_positions * g.window_features * 4 for g in scanner.geometries_)
print(json.dumps({
    "fit_transform_seconds": fit, "transform_seconds": transform,
    "fit_traced_peak_gb": fit_peak / 1e9, "transform_traced_peak_gb": transform_peak / 1e9,
    "max_rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6,
    "rss_before_fit_gb": rss_before / 1e6, "features_out": Z.shape[1],
    "output_gb": (Z.nbytes + Z_test.nbytes) / 1e9, "all_windows_gb": windows / 1e9,
}))
"""


def run_case(n: int, n_test: int, strides: int, n_trees: int, n_jobs: int) -> dict:
    """One case in a fresh interpreter (its max RSS is its own)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    arguments = [str(v) for v in (n, n_test, strides, n_trees, n_jobs)]
    done = subprocess.run(
        [sys.executable, "-c", CASE, *arguments], capture_output=True, text=True, env=env, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[120, 10_000])
    parser.add_argument("--n-test", type=int, default=10_000, help="test images transformed")
    parser.add_argument("--strides", type=int, default=2)
    parser.add_argument("--trees", type=int, default=10, help="trees per scanning forest")
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--out", type=Path, help="the CSV to write (overrides --record)")
    add_record_flag(parser)
    args = parser.parse_args()
    output = bench_output(args, "scanning", args.out)
    for n in args.sizes:  # each row written as it is measured: a large case cut short keeps the others
        result = run_case(n, args.n_test, args.strides, args.trees, args.n_jobs)
        row = {
            "n_train": n,
            "n_test": args.n_test,
            "strides": args.strides,
            "n_trees": args.trees,
            "n_jobs": args.n_jobs,
            **result,
        }
        print(json.dumps(row), flush=True)
        write_csv(output, [row], float_format="%.4g")
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
