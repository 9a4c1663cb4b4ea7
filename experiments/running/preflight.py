"""The checks of a planned run against the data and the machine, before any work.

:func:`experiments.running.plan.plan_run` has refused what the config alone
shows wrong; here the plan meets the world: the data files, the split sizes
every (dataset, N) will draw, the memory the largest cell's first level needs,
the cluster to join, the output folder and the records already in it. A run
that passes them starts its units; one that fails them has done nothing.
"""

from __future__ import annotations

import numpy as np

from disdf import CascadeForestClassifier, InsufficientMemoryError
from disdf.cascade import check_estimator_memory
from disdf.utils import validate_estimator
from experiments.running.plan import RunPlan, RuntimePlan
from experiments.running.protocol import Pool, Unit
from experiments.running.records import RecordStore
from experiments.running.unit import make_estimator
from experiments.safety.durable import UnwritableFolderError, check_readable, check_writable
from experiments.safety.folder_lock import LOCK_NAME


def check_before_work(plan: RunPlan) -> dict[str, Pool]:
    """Everything about ``plan`` that can be checked before any work (see the module's docstring);
    returns the datasets' pools, read and checked once, for the run."""
    check_scheduler(plan.runtime)
    pools = plan.protocol.checked_pools()
    check_fit_memory(plan, pools)
    # Last: it creates the output folder, which a refused command should not leave behind.
    output = check_writable(plan.runtime.output_dir, "runtime.output_dir")
    # Where the run writes, checked now: a fault found after a split is computed would throw it away.
    for part in ("raw", "tables"):  # not made here: a refused command leaves no folder behind
        where = output / part
        if where.exists() and not where.is_dir():
            raise UnwritableFolderError(
                f"runtime.output_dir's {part}/={str(where)!r} is not a writable folder (a file is there); "
                "move it away"
            )
        if where.is_dir():
            check_writable(where, f"runtime.output_dir's {part}/")
    lock = output / LOCK_NAME
    if lock.exists() and not lock.is_file():
        raise UnwritableFolderError(f"{lock} is not a file: the folder's lock cannot be taken; remove it")
    store = RecordStore(output / "raw")
    for name in plan.datasets:
        # Readable; their lines are parsed once, by the run itself.
        check_readable(store.path(name))
    return pools


def check_fit_memory(plan: RunPlan, pools: dict[str, Pool]) -> None:
    """The largest cell's fit fits in memory, for every cascade method (estimated, before growing a
    tree: :func:`disdf.cascade.check_estimator_memory`)."""
    Ns, Ts = plan.protocol.Ns, plan.protocol.Ts
    N, T = max(Ns), max(Ts)
    for name, pool in pools.items():
        _, counts = np.unique(pool.y_train, return_counts=True)
        counts = counts * (N / counts.sum())  # the training set's class counts, in the pool's proportions
        for method in plan.specs:
            estimator = make_estimator(Unit(name, N, T, method, 0), plan.specs, 0)
            if not isinstance(estimator, CascadeForestClassifier):
                continue
            try:
                validate_estimator(estimator)
                check_estimator_memory(estimator, counts, pool.X_train.shape[1])
            except InsufficientMemoryError as error:
                raise InsufficientMemoryError(
                    f"protocol.Ts={list(Ts)}, protocol.Ns={list(Ns)}, {name}, method {method}: {error}"
                ) from None


def check_scheduler(runtime: RuntimePlan, timeout_seconds: float = 5.0) -> None:
    """A Dask scheduler named by ``runtime.scheduler_address`` answers."""
    address = runtime.scheduler_address
    if runtime.backend != "dask" or not address:
        return
    from dask.distributed import Client

    try:
        Client(address, timeout=f"{timeout_seconds}s").close()
    except (OSError, TimeoutError, ValueError) as error:
        raise ValueError(
            f"runtime.scheduler_address={address} does not answer within {timeout_seconds:g} s "
            f"({type(error).__name__}: {' '.join(str(error).split())[:200]}); start the scheduler, "
            "or drop runtime.scheduler_address to start a local cluster"
        ) from None
