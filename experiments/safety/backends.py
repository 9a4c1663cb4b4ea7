"""Where a sweep's units run: this machine's cores (loky) or a Dask cluster (joblib's dask backend).

The units and their seeds are the same whatever the backend, and records are
written by the runner in unit order, so the records do not depend on it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from joblib import parallel_config
from omegaconf import DictConfig

BACKENDS = ("loky", "dask")


@contextmanager
def sweep_backend(runtime: DictConfig, local_workers: int) -> Iterator[int]:
    """Make ``runtime.backend`` joblib's backend for the block; yield the ``n_jobs`` to use in it.

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
