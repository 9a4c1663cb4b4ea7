"""The run plan: the command line's config, decided once.

:func:`decide` is the one reader of a run's config: it returns a :class:`RunPlan`,
what runs (datasets x Ns x Ts x methods x repetitions), with which estimator
specs, on which data, into which folder, under which config hash.
:func:`experiments.running.planner.plan_run` decides and then refuses what the
plan alone shows wrong. Every later step (the checks against the data and the
machine in :mod:`.preflight`, the runner, REPORT.md) reads the plan, never the config.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import Any

from omegaconf import DictConfig, OmegaConf

from experiments.running.composition import config_hash, estimator_specs, is_cascade, methods, typed_like
from experiments.running.config import model_defaults
from experiments.running.protocol import ProtocolPlan
from experiments.running.records import RecordGrid
from experiments.safety.backends import BACKENDS
from experiments.safety.guards import SweepJob, job_output_dir


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
    #: The multirun job this run is (None: a single run): it claims its folder before any unit.
    sweep_job: SweepJob | None = None

    def __post_init__(self) -> None:
        if self.backend not in BACKENDS:
            raise ValueError(f"runtime.backend must be one of {BACKENDS}; got {self.backend!r}")


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

    def key(self) -> dict:
        """What must match experiment=paper for a run to write the headline: result config and grid."""
        return {
            "config hash (model, solver, test_fraction, seed)": self.config_hash,
            "datasets": list(self.datasets),
            "protocol.Ns": list(self.protocol.Ns),
            "protocol.Ts": list(self.protocol.Ts),
            "protocol.repetitions": self.protocol.repetitions,
        }

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


def decide(cfg: DictConfig, job: SweepJob | None = None) -> RunPlan:
    """``cfg`` as plain, typed, read-only values (no check beyond the schema's); a multirun ``job``
    writes into its own folder (:func:`~experiments.safety.guards.job_output_dir`)."""
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
        runtime=RuntimePlan(
            **{**runtime, "output_dir": Path(job_output_dir(str(runtime["output_dir"]), job))}, sweep_job=job
        ),
        model=MappingProxyType({k: typed_like(v, defaults.get(k)) for k, v in raw["model"].items()}),
        solver=MappingProxyType(raw["solver"]),
        specs=MappingProxyType(estimator_specs(cfg, names)),
        config_hash=config_hash(cfg),
    )
