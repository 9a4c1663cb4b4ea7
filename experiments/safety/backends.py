"""Where a sweep's units run: this machine's cores (loky) or a Dask cluster (joblib's dask backend).

The units and their seeds are the same whatever the backend, and records are
written by the runner in unit order, so the records do not depend on it.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from joblib import effective_n_jobs, parallel_config

BACKENDS = ("loky", "dask")


@contextmanager
def sweep_backend(runtime: Any, local_workers: int) -> Iterator[int]:
    """Make ``runtime.backend`` (a plan's runtime) joblib's backend in the block; yield its ``n_jobs``.

    ``local_workers``: the loky processes (``runtime.n_jobs`` capped to the cores and the splits).
    """
    if runtime.backend not in BACKENDS:
        raise ValueError(f"runtime.backend must be one of {BACKENDS}; got {runtime.backend!r}")
    if runtime.backend == "loky":
        yield local_workers
        return
    from dask.distributed import Client, LocalCluster

    cluster = None
    if runtime.scheduler_address:
        client = Client(runtime.scheduler_address)
    else:
        if runtime.dask_workers < 1:
            raise ValueError(f"runtime.dask_workers must be >= 1; got {runtime.dask_workers}")
        # Single-threaded worker processes: a unit is single-threaded, as under loky.
        cluster = LocalCluster(
            n_workers=runtime.dask_workers, threads_per_worker=1, processes=True, dashboard_address=None
        )
        client = Client(cluster)
    try:
        with parallel_config(backend="dask"):
            yield -1  # every thread of every worker of the cluster
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def local_workers(n_jobs: int, n_splits: int) -> int:
    """Worker processes for ``runtime.n_jobs`` on this machine: never more than its cores or the splits."""
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs == 0:
        raise ValueError(f"runtime.n_jobs must be a nonzero integer (-1: every core); got {n_jobs!r}")
    cores = os.cpu_count() or 1
    if n_jobs < -cores:
        raise ValueError(f"runtime.n_jobs={n_jobs} asks for {cores + 1 + n_jobs} cores of {cores}")
    wanted = effective_n_jobs(n_jobs)
    if wanted > cores:
        warnings.warn(f"runtime.n_jobs={n_jobs} is more than the {cores} cores: using {cores}", stacklevel=2)
    return max(1, min(wanted, cores, n_splits))
