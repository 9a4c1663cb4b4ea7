"""One large cascade fit on a Dask cluster beside the same fit in local threads: time, memory, same trees.

    python scripts/bench/bench_dask_fit.py --n-train 300000 --record   # -> results/bench/dask_fit.csv

(without ``--record``: build/bench/dask_fit.csv; ``--output`` names another file). The problem, the
cascade and its warm-up are scripts/bench/bench_scale.py's: the HIGGS-shaped synthetic problem, gcForest
(``--method``; ``disdf`` also works) with ``experiment=mnist_full``'s settings and T = 100, scored on
bench_scale's 10,000 test rows. Two fits, one after the other:

* ``local``: in a fresh process, ``n_jobs`` = ``--workers`` threads;
* ``dask``: from this process, under joblib's Dask backend (``parallel_config(backend="dask")``), on a
  ``distributed.LocalCluster`` of ``--workers`` worker processes of one thread each: the fit's tasks
  (a level's fold models with their held-out leaf rows, DisDF's weight problems) run on the workers.

A row per fit: wall seconds of ``fit``, the peak resident memory of the fitting process and, for the Dask
fit, the largest of its workers' (each process's ``ru_maxrss``: the cluster's memory is the client's
plus the workers'), the tasks the workers ran and on how many workers, levels, test accuracy, and the
sha256 of the test rows' ``predict_proba`` (float64 bytes); ``same_as_local``: the Dask fit's digest
equals the local one's, i.e. the same probabilities bit for bit (the same trees and weights).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse
import hashlib
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import numpy as np

from disdf.utils import peak_memory_gib
from scripts.bench.bench_scale import make_method, problem_data, warm_up
from scripts.bench_output import add_record_flag, bench_output, write_csv


def digest(probabilities: np.ndarray) -> str:
    """The first 16 hex digits of the sha256 of the probabilities as float64 bytes."""
    return hashlib.sha256(np.ascontiguousarray(probabilities, dtype=np.float64).tobytes()).hexdigest()[:16]


def measured_fit(estimator, data: tuple[np.ndarray, ...]) -> dict:
    """Fit and score ``estimator`` on (X_train, y_train, X_test, y_test): its measures."""
    X_train, y_train, X_test, y_test = data
    start = time.perf_counter()
    estimator.fit(X_train, y_train)
    fit_seconds = time.perf_counter() - start
    probabilities = estimator.predict_proba(X_test)
    accuracy = float(np.mean(estimator.classes_[probabilities.argmax(axis=1)] == y_test))
    return {
        "fit_seconds": fit_seconds,
        "n_levels": estimator.n_levels_,
        "test_accuracy": accuracy,
        "probabilities_sha256": digest(probabilities),
    }


def local_fit(method: str, n_train: int, workers: int) -> dict:
    """The fit in local threads (in its own process: its own memory peak)."""
    data = problem_data("higgs_like", n_train, None)
    estimator = make_method(method, workers, 100)
    warm_up(estimator, data[0], data[1], data[2])
    return {**measured_fit(estimator, data), "peak_memory_gib": peak_memory_gib()}


def dask_fit(method: str, n_train: int, workers: int) -> dict:
    """The fit on a LocalCluster of ``workers`` one-thread worker processes, from this process."""
    from dask.distributed import Client, LocalCluster, get_task_stream
    from joblib import parallel_config

    data = problem_data("higgs_like", n_train, None)
    estimator = make_method(method, -1, 100)
    cluster = LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    )
    with cluster, Client(cluster) as client:
        with parallel_config(backend="dask"):
            warm_up(estimator, data[0], data[1], data[2])  # the workers load the compiled kernels
        with get_task_stream(client) as stream, parallel_config(backend="dask"):
            measures = measured_fit(estimator, data)
        worker_peaks = client.run(peak_memory_gib)
    return {
        **measures,
        "peak_memory_gib": peak_memory_gib(),
        "worker_peak_memory_gib": max(worker_peaks.values()),
        "tasks": len(stream.data),
        "workers_used": len({task["worker"] for task in stream.data}),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-train", type=int, default=300_000)
    parser.add_argument("--method", choices=("gcforest", "disdf"), default="gcforest")
    parser.add_argument("--workers", type=int, default=2, help="local threads, and the cluster's workers")
    parser.add_argument("--output", type=Path, help="the CSV to write (overrides --record)")
    add_record_flag(parser)
    args = parser.parse_args()
    if args.n_train < 100 or args.workers < 1:
        parser.error(f"--n-train must be >= 100 and --workers >= 1; got {args.n_train} and {args.workers}")
    output = bench_output(args, "dask_fit", args.output)
    row = {"problem": "higgs_like", "method": args.method, "n_train": args.n_train, "workers": args.workers}
    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
        measures = pool.submit(local_fit, args.method, args.n_train, args.workers).result()
    local = {**row, "mode": "local", **measures}
    print(local, flush=True)
    remote = {**row, "mode": "dask", **dask_fit(args.method, args.n_train, args.workers)}
    remote["same_as_local"] = remote["probabilities_sha256"] == local["probabilities_sha256"]
    print(remote, flush=True)
    write_csv(output, [local, remote])


if __name__ == "__main__":
    main()
