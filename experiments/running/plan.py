"""The run plan: the command line's config, decided once.

:func:`decide` is the one reader of a run's config: it returns a :class:`RunPlan`,
what runs (datasets x Ns x Ts x methods x repetitions), with which estimator
specs, on which data, into which folder, under which config hash.
:func:`plan_run` decides and then refuses, naming the setting, what the plan alone shows wrong:
parameters no estimator accepts, n_jobs, and any run but the committed headline pointed at
``results/``. Every later step (the checks against the data and the
machine in :mod:`.preflight`, the runner, REPORT.md) reads the plan, never the config.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import Any

from hydra.errors import InstantiationException
from omegaconf import DictConfig

from disdf.utils import validate_estimator
from experiments.paths import ROOT
from experiments.running.composition import (
    compose_config,
    config_hash,
    estimator_specs,
    is_cascade,
    methods,
    typed_like,
)
from experiments.running.config import as_dict, check_known_keys, model_defaults
from experiments.running.protocol import ProtocolPlan, Unit
from experiments.running.records import RecordGrid
from experiments.running.unit import make_estimator
from experiments.safety.backends import BACKENDS, local_workers
from experiments.safety.guards import SweepJob, check_headline_folder, job_output_dir, writes_headline


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
            n_test_varies=p.split_groups is not None or p.split_scheme == "5x2cv",
        )


#: What an experiment_name may be: one plain folder name (it names results/<experiment_name>/).
FOLDER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.=-]*")


def output_folder(output_dir: str, experiment_name: str) -> Path:
    """``runtime.output_dir`` as the user pointed: ``~`` expanded, never empty, never the checkout
    itself or a folder above it (its raw/ and tables/ would land beside configs/ and disdf/); an
    experiment_name that is one plain folder name."""
    if not FOLDER_NAME.fullmatch(experiment_name) or experiment_name in (".", ".."):
        raise ValueError(
            "experiment_name must be one plain folder name (letters, digits, _ . = -); "
            f"got {experiment_name!r}"
        )
    if not output_dir.strip():
        raise ValueError("runtime.output_dir is empty: name the folder the run writes (e.g. results/my_run)")
    folder = Path(output_dir).expanduser()
    resolved = folder.resolve()  # a relative folder is the working directory's (the checkout, under make)
    if resolved == ROOT.resolve() or ROOT.resolve().is_relative_to(resolved):
        raise ValueError(
            f"runtime.output_dir={output_dir!r} is the checkout or a folder above it ({resolved}): "
            "name a folder of its own (e.g. results/my_run)"
        )
    return folder


def decide(cfg: DictConfig, job: SweepJob | None = None) -> RunPlan:
    """``cfg`` as plain, typed, read-only values (no check beyond the schema's); a multirun ``job``
    writes into its own folder (:func:`~experiments.safety.guards.job_output_dir`)."""
    raw = as_dict(cfg)
    protocol, runtime = raw["protocol"], raw["runtime"]
    names = methods(cfg)
    defaults = model_defaults()
    folder = str(output_folder(str(runtime["output_dir"]), raw["experiment_name"]))
    return RunPlan(
        experiment_name=raw["experiment_name"],
        datasets=tuple(raw["datasets"]),
        protocol=ProtocolPlan(
            **{**protocol, "methods": tuple(names), "Ns": tuple(protocol["Ns"]), "Ts": tuple(protocol["Ts"])},
            datasets=tuple(raw["datasets"]),
            data_dir=raw["data"]["dir"],
        ),
        runtime=RuntimePlan(**{**runtime, "output_dir": Path(job_output_dir(folder, job))}, sweep_job=job),
        model=MappingProxyType({k: typed_like(v, defaults.get(k)) for k, v in raw["model"].items()}),
        solver=MappingProxyType(raw["solver"]),
        specs=MappingProxyType(estimator_specs(cfg, names)),
        config_hash=config_hash(cfg),
    )


#: The one experiment that writes the headline folder, results/ itself.
HEADLINE_EXPERIMENT = "paper"


def plan_run(cfg: DictConfig, job: SweepJob | None = None) -> RunPlan:
    """The checked plan of ``cfg`` (``job``: the multirun job it is, which gets its own folder), or the
    first thing the config alone shows wrong, naming its setting."""
    check_known_keys(cfg)
    plan = decide(cfg, job)
    check_plan(plan)
    return plan


def check_plan(plan: RunPlan) -> None:
    """What the plan alone shows wrong beyond what its dataclasses refuse when built (the grid, the
    protocol's and runtime's values): the estimators, n_jobs, and last, the headline folder (a bad
    value is named as such, not as a config of another hash)."""
    check_estimators(plan)
    local_workers(plan.runtime.n_jobs, 1)
    if writes_headline(plan.runtime.output_dir):
        headline = decide(compose_config(f"experiment={HEADLINE_EXPERIMENT}"))
        check_headline_folder(plan.runtime.output_dir, plan.key(), headline.key(), plan.experiment_name)


def check_estimators(plan: RunPlan) -> None:
    """Validate the estimators' parameters (model.*, solver.*) before any work, not in the first split."""
    for method in plan.specs:
        try:
            estimator = make_estimator(Unit("check", 1, min(plan.protocol.Ts), method, 0), plan.specs, 0)
        except InstantiationException as error:
            raise ValueError(f"methods.{method} does not build an estimator: {error}") from error
        try:
            validate_estimator(estimator)  # not disdf's (a scikit-learn pipeline): its own checks run at fit
        except (ValueError, TypeError) as error:
            raise type(error)(f"Invalid model/solver config for {method}: {error}") from error
