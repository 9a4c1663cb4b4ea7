"""From a command's config to a checked plan: :func:`plan_run`.

It decides the config once (:func:`experiments.running.plan.decide`) and refuses,
naming the setting, what the plan alone shows wrong: unknown keys, an impossible
grid, parameters no estimator accepts, n_jobs, and any run but the committed
headline pointed at ``results/``. Checks against the data and the machine follow
in :mod:`.preflight`, when the run starts.
"""

from __future__ import annotations

from hydra.errors import InstantiationException
from omegaconf import DictConfig

from disdf.datasets import DATASETS
from disdf.parameters import Boolean, Float, Integer, OneOf, check_parameters
from experiments.running.composition import compose_config
from experiments.running.config import check_known_keys
from experiments.running.plan import RunPlan, decide
from experiments.running.protocol import LABEL_FAULTS, SPLIT_GROUPS, TRAIN_DRAWS, Unit
from experiments.running.unit import make_estimator
from experiments.safety.backends import BACKENDS, local_workers
from experiments.safety.guards import SweepJob, writes_headline

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
    """Every check the plan alone allows, the headline folder's last (a bad value is named as such,
    not as a config of another hash)."""
    check_grid(plan)
    check_estimators(plan)
    local_workers(plan.runtime.n_jobs, 1)
    if writes_headline(plan.runtime.output_dir):
        check_headline_folder(plan, decide(compose_config(f"experiment={HEADLINE_EXPERIMENT}")))


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


def headline_key(plan: RunPlan) -> dict:
    """What must match experiment=paper for a run to write the headline: result config and grid."""
    return {
        "config hash (model, solver, test_fraction, seed)": plan.config_hash,
        "datasets": list(plan.datasets),
        "protocol.Ns": list(plan.protocol.Ns),
        "protocol.Ts": list(plan.protocol.Ts),
        "protocol.repetitions": plan.protocol.repetitions,
    }


def check_headline_folder(plan: RunPlan, headline: RunPlan) -> None:
    """Only the unchanged ``headline`` plan may write to results/ itself."""
    if not writes_headline(plan.runtime.output_dir):
        return
    expected, found = headline_key(headline), headline_key(plan)
    differing = [name for name in expected if expected[name] != found[name]]
    if differing:
        raise ValueError(
            f"runtime.output_dir={plan.runtime.output_dir} is the headline folder, written only by "
            f"`make reproduce` (experiment={HEADLINE_EXPERIMENT} as committed); this run differs in "
            f"{', '.join(differing)}. Choose another folder, e.g. runtime.output_dir=results/"
            f"{plan.experiment_name}_{found[next(iter(found))]}"
        )
