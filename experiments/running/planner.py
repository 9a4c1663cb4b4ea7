"""From a command's config to a checked plan: :func:`plan_run`.

It refuses unknown keys, decides the config once (:func:`experiments.running.plan.decide`,
whose dataclasses refuse an impossible grid or protocol value as they are built) and
refuses, naming the setting, what the plan alone shows wrong: parameters no estimator
accepts, n_jobs, and any run but the committed headline pointed at ``results/``. Checks
against the data and the machine follow in :mod:`.preflight`, when the run starts.
"""

from __future__ import annotations

from hydra.errors import InstantiationException
from omegaconf import DictConfig

from experiments.running.composition import compose_config
from experiments.running.config import check_known_keys
from experiments.running.plan import RunPlan, decide
from experiments.running.protocol import Unit
from experiments.running.unit import make_estimator
from experiments.safety.backends import local_workers
from experiments.safety.guards import SweepJob, check_headline_folder, writes_headline

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
        if not hasattr(estimator, "_validate_hyperparameters"):
            continue  # e.g. a scikit-learn pipeline: its own checks run at fit
        try:
            estimator._validate_hyperparameters()
        except (ValueError, TypeError) as error:
            raise type(error)(f"Invalid model/solver config for {method}: {error}") from error
