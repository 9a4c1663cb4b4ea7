"""The run plan: the command line's config, decided once.

:func:`plan_run` is the one reader of a run's config. It refuses what the config
alone can tell is wrong (unknown keys, the headline folder, an impossible grid,
parameters no estimator accepts, n_jobs) and returns a :class:`RunPlan`: what
runs (datasets x Ns x Ts x methods x repetitions), with which estimator specs,
on which data, into which folder, under which config hash. Every later step
(the checks against the data and the machine in :mod:`.preflight`, the runner,
the protocol section of REPORT.md) reads the plan, never the config.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import Any

from hydra.errors import InstantiationException
from omegaconf import DictConfig, OmegaConf

from disdf.datasets import DATASETS
from disdf.parameters import Boolean, Float, Integer, OneOf, check_parameters
from experiments.running.composition import config_hash, estimator_specs, is_cascade, methods, typed_like
from experiments.running.config import check_known_keys, model_defaults
from experiments.running.protocol import LABEL_FAULTS, SPLIT_GROUPS, TRAIN_DRAWS, ProtocolPlan, Unit
from experiments.running.records import RecordGrid
from experiments.running.unit import make_estimator
from experiments.safety.backends import BACKENDS, local_workers
from experiments.safety.guards import check_headline_folder

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


@dataclass(frozen=True)
class RuntimePlan:
    """Where the units run and write; nothing here changes a record."""

    output_dir: Path
    backend: str
    n_jobs: int
    scheduler_address: str | None
    dask_workers: int
    share_first_level: bool
    progress: bool


@dataclass(frozen=True)
class RunPlan:
    """A run, decided: read by every step after :func:`plan_run`."""

    experiment_name: str
    datasets: tuple[str, ...]
    #: The grid, the data and the split rule.
    protocol: ProtocolPlan
    runtime: RuntimePlan
    #: The model's values (configs/model/), each of the YAML's type; the solver's name, options, fallback.
    model: Mapping[str, Any]
    solver: Mapping[str, Any]
    #: Each method's estimator: ``_target_`` and its parameters, for ``hydra.utils.instantiate``.
    specs: Mapping[str, dict]
    #: What in the config can change a record (:func:`experiments.running.composition.config_hash`).
    config_hash: str

    @cached_property
    def grid(self) -> RecordGrid:
        """The records this plan may have written (checked on every read)."""
        p = self.protocol
        return RecordGrid(
            config_hash=self.config_hash,
            datasets=frozenset(self.datasets),
            Ns=frozenset(p.Ns),
            Ts=frozenset(p.Ts),
            methods=frozenset(p.methods),
            repetitions=p.repetitions,
            cascades=frozenset(name for name, spec in self.specs.items() if is_cascade(spec)),
            n_test={(d, N): p.expected_test_size(d, N) for d in self.datasets for N in p.Ns},
            grouped=p.split_groups is not None,
        )


def plan_run(cfg: DictConfig) -> RunPlan:
    """The plan of ``cfg``, or the first thing the config alone shows wrong, naming its setting."""
    check_known_keys(cfg)
    plan = decide(cfg)
    check_grid(plan)
    check_estimators(plan)
    local_workers(plan.runtime.n_jobs, 1)
    check_headline_folder(cfg)  # last: a bad value is named as such, not as a config of another hash
    return plan


def decide(cfg: DictConfig) -> RunPlan:
    """``cfg`` as plain, typed, read-only values (no check beyond the schema's)."""
    raw = OmegaConf.to_container(cfg, resolve=True)
    protocol, runtime = raw["protocol"], raw["runtime"]
    names = methods(cfg)
    defaults = model_defaults()
    return RunPlan(
        experiment_name=raw["experiment_name"],
        datasets=tuple(raw["datasets"]),
        protocol=ProtocolPlan(
            **{**protocol, "methods": tuple(names), "Ns": tuple(protocol["Ns"]), "Ts": tuple(protocol["Ts"])},
            datasets=tuple(raw["datasets"]),
            data_dir=raw["data"]["dir"],
        ),
        runtime=RuntimePlan(**{**runtime, "output_dir": Path(runtime["output_dir"])}),
        model=MappingProxyType({k: typed_like(v, defaults.get(k)) for k, v in raw["model"].items()}),
        solver=MappingProxyType(raw["solver"]),
        specs=MappingProxyType(estimator_specs(cfg, names)),
        config_hash=config_hash(cfg),
    )


def check_grid(plan: RunPlan) -> None:
    """Refuse an impossible grid before any work: each message names the setting."""
    unknown = [name for name in plan.datasets if name not in DATASETS]
    if unknown or not plan.datasets:
        raise ValueError(
            f"datasets must name one or more of {DATASETS}; got {list(plan.datasets)} (unknown: {unknown})"
        )
    if plan.runtime.backend not in BACKENDS:
        raise ValueError(f"runtime.backend must be one of {BACKENDS}; got {plan.runtime.backend!r}")
    protocol = plan.protocol
    for name in ("Ns", "Ts"):
        values = getattr(protocol, name)
        if not values or min(values) <= 0:
            raise ValueError(
                f"protocol.{name} must be a non-empty list of positive integers; got {list(values)}"
            )
    for name, values in (
        ("datasets", plan.datasets),
        ("protocol.Ns", protocol.Ns),
        ("protocol.Ts", protocol.Ts),
    ):
        repeated = sorted({value for value in values if values.count(value) > 1})
        if repeated:
            raise ValueError(
                f"{name} lists {repeated} more than once; got {list(values)} (each would run twice)"
            )
    check_parameters("protocol", PROTOCOL_PARAMETERS, vars(protocol))


def check_estimators(plan: RunPlan) -> None:
    """Validate the estimators' parameters (model.*, solver.*) before any work, not in the first split."""
    for method in plan.specs:
        try:
            estimator = make_estimator(Unit("check", 1, min(plan.protocol.Ts), method, 0), plan.specs, 0)
        except InstantiationException as error:
            raise ValueError(f"methods.{method} does not build an estimator: {error}") from error
        if not hasattr(estimator, "_validate_hyperparameters"):
            continue  # e.g. a scikit-learn pipeline: its own checks run at fit
        try:
            estimator._validate_hyperparameters()
        except (ValueError, TypeError) as error:
            raise type(error)(f"Invalid model/solver config for {method}: {error}") from error
