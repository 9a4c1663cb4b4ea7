"""Every check of a run that can be made before any work, each refusal naming its setting.

The command line's config (keys, the headline folder, the grid, the estimators,
n_jobs), the output folder, the data files, the split sizes every (dataset, N)
will draw, the memory the largest cell's first level needs, the records already
in the folder and the cluster to join. A run that passes them starts its
units; one that fails them has done nothing.
"""

from __future__ import annotations

import os
import warnings

import numpy as np
from hydra.errors import InstantiationException
from joblib import effective_n_jobs
from omegaconf import DictConfig

from disdf import CascadeForestClassifier
from disdf.datasets import DATASETS
from disdf.fit_memory import InsufficientMemoryError
from disdf.parameters import Boolean, Float, Integer, OneOf, check_parameters
from experiments.running.composition import estimator_specs, methods, run_datasets
from experiments.running.protocol import (
    LABEL_FAULTS,
    SPLIT_GROUPS,
    TRAIN_DRAWS,
    Pool,
    Unit,
    draw_split,
    load_pool,
    test_size,
)
from experiments.running.records import RecordStore
from experiments.running.unit import make_estimator
from experiments.safety.backends import BACKENDS
from experiments.safety.durable import check_readable, check_writable
from experiments.safety.guards import check_headline_folder, check_known_keys

#: The protocol's scalars, by the same tables as the estimators' parameters (disdf.parameters).
PROTOCOL_PARAMETERS = {
    "repetitions": Integer(1),
    "test_fraction": Float(0.0, low_open=True),
    "seed": Integer(0),
    "cap_test_size": Boolean(),
    "train_draw": OneOf(TRAIN_DRAWS),
    "split_groups": OneOf(SPLIT_GROUPS, none=True),
    "label_fault": OneOf(LABEL_FAULTS),
}


def check_protocol(cfg: DictConfig) -> None:
    """Refuse an impossible grid before any work: each message names the setting."""
    unknown = [name for name in run_datasets(cfg) if name not in DATASETS]
    if unknown or not run_datasets(cfg):
        raise ValueError(
            f"datasets must name one or more of {DATASETS}; got {list(cfg.datasets)} (unknown: {unknown})"
        )
    if cfg.runtime.backend not in BACKENDS:
        raise ValueError(f"runtime.backend must be one of {BACKENDS}; got {cfg.runtime.backend!r}")
    protocol = cfg.protocol
    for name in ("Ns", "Ts"):
        values = list(protocol[name])
        if not values or min(values) <= 0:
            raise ValueError(f"protocol.{name} must be a non-empty list of positive integers; got {values}")
    for name, values in (
        ("datasets", run_datasets(cfg)),
        ("protocol.Ns", protocol.Ns),
        ("protocol.Ts", protocol.Ts),
    ):
        repeated = sorted({value for value in values if list(values).count(value) > 1})
        if repeated:
            raise ValueError(
                f"{name} lists {repeated} more than once; got {list(values)} (each would run twice)"
            )
    check_parameters("protocol", PROTOCOL_PARAMETERS, protocol)


def check_model(cfg: DictConfig) -> None:
    """Validate the estimators' parameters (model.*, solver.*) before any work, not in the first split."""
    specs = estimator_specs(cfg, methods(cfg))
    for method in specs:
        try:
            estimator = make_estimator(Unit("check", 1, min(cfg.protocol.Ts), method, 0), specs, 0)
        except InstantiationException as error:
            raise ValueError(f"methods.{method} does not build an estimator: {error}") from error
        if not hasattr(estimator, "_validate_hyperparameters"):
            continue  # e.g. a scikit-learn pipeline: its own checks run at fit
        try:
            estimator._validate_hyperparameters()
        except (ValueError, TypeError) as error:
            raise type(error)(f"Invalid model/solver config for {method}: {error}") from error


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


def check_config(cfg: DictConfig) -> None:
    """The config's checks, before any work: keys, headline folder, grid, estimators, n_jobs."""
    check_known_keys(cfg)
    check_headline_folder(cfg)
    check_protocol(cfg)
    check_model(cfg)
    local_workers(cfg.runtime.n_jobs, 1)


def check_command(cfg: DictConfig) -> None:
    """Everything that can be checked before any work (see the module's docstring)."""
    check_config(cfg)
    pools = {name: protocol_pool(cfg, name) for name in run_datasets(cfg)}
    check_split_sizes(cfg, pools)
    check_fit_memory(cfg, pools)
    check_scheduler(cfg)
    # Last: it creates the output folder, which a refused command should not leave behind.
    output = check_writable(cfg.runtime.output_dir, "runtime.output_dir")
    check_records_readable(RecordStore(output / "raw"), run_datasets(cfg))


def protocol_pool(cfg: DictConfig, name: str) -> Pool:
    """A dataset's pool as the protocol asks for it (groups, simulated faults); errors name the setting."""
    return load_pool(name, cfg.data.dir, cfg.protocol.split_groups, cfg.protocol.label_fault)


def protocol_split(cfg: DictConfig, pool, unit: Unit, seed: int):
    """The training and test examples of ``unit``'s split, drawn as the protocol asks."""
    protocol = cfg.protocol
    n_test = test_size(unit.N, protocol.test_fraction)
    return draw_split(pool, unit.N, n_test, seed, unit.dataset, protocol.cap_test_size, protocol.train_draw)


def check_split_sizes(cfg: DictConfig, pools: dict[str, Pool]) -> None:
    """Every (dataset, N) draws a split of the protocol's sizes (they do not depend on the seed)."""
    fraction = cfg.protocol.test_fraction
    for N in cfg.protocol.Ns:
        if test_size(N, fraction) < 1:
            raise ValueError(
                f"protocol.test_fraction={fraction:g} gives round({fraction:g} x {N}) = "
                f"{test_size(N, fraction)} test examples at N={N} (protocol.Ns); a split needs at least 1"
            )
    for name, pool in pools.items():
        for N in cfg.protocol.Ns:
            try:
                protocol_split(cfg, pool, Unit(name, N, 0, "", 0), 0)
            except ValueError as error:
                raise ValueError(f"protocol.Ns={list(cfg.protocol.Ns)}: {error}") from None


def check_fit_memory(cfg: DictConfig, pools: dict[str, Pool]) -> None:
    """The largest cell's fit fits in memory, for every cascade method (estimated, before growing a
    tree: :meth:`disdf.CascadeForestClassifier.check_fit_memory`)."""
    specs = estimator_specs(cfg, methods(cfg))
    N, T = max(cfg.protocol.Ns), max(cfg.protocol.Ts)
    for name, pool in pools.items():
        _, counts = np.unique(pool.y_train, return_counts=True)
        counts = counts * (N / counts.sum())  # the training set's class counts, in the pool's proportions
        for method in specs:
            estimator = make_estimator(Unit(name, N, T, method, 0), specs, 0)
            if not isinstance(estimator, CascadeForestClassifier):
                continue
            try:
                estimator._validate_hyperparameters()
                estimator.check_fit_memory(counts, pool.X_train.shape[1])
            except InsufficientMemoryError as error:
                raise InsufficientMemoryError(
                    f"protocol.Ts={list(cfg.protocol.Ts)}, protocol.Ns={list(cfg.protocol.Ns)}, {name}, "
                    f"method {method}: {error}"
                ) from None


def check_records_readable(store: RecordStore, datasets: list[str]) -> None:
    """The records files already there can be read (a folder in their place, no permission); their
    lines are parsed once, by the run itself."""
    for name in datasets:
        check_readable(store.path(name))


def check_scheduler(cfg: DictConfig, timeout_seconds: float = 5.0) -> None:
    """A Dask scheduler named by ``runtime.scheduler_address`` answers."""
    address = cfg.runtime.scheduler_address
    if cfg.runtime.backend != "dask" or not address:
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
