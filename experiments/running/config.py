"""Structured config schema: a typo or a wrong type fails at start with Hydra's message.

Keys added with ``+`` (which Hydra lets past the schema; ``+model.lamda_=1``
would be silently ignored) are refused before any work by :func:`check_known_keys`,
against these dataclasses.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Optional, cast

from hydra.core.config_store import ConfigStore
from omegaconf import DictConfig, OmegaConf

from disdf.cascade import DEFAULT_TUNE_GRID
from disdf.datasets import DATA_DIR_ENV
from experiments.paths import ROOT, SHARED_DATA_DIR


def default_data_dir() -> str | None:
    """``$DISDF_DATA_DIR``, else ``../shared/data`` beside the checkout if it exists, else None
    (the library's own default, ``~/.cache/disdf``): the same folder `make` chooses."""
    chosen = os.environ.get(DATA_DIR_ENV)
    if chosen:
        return chosen
    return str(SHARED_DATA_DIR) if SHARED_DATA_DIR.is_dir() else None


@dataclass
class SolverConfig:
    name: str = "frank_wolfe_away"
    options: dict[str, Any] = field(default_factory=dict)
    #: A solver to use where ``name`` fails (e.g. frank_wolfe_away behind qp); null: a failure is an error.
    fallback: Optional[str] = None  # noqa: UP045 - OmegaConf needs typing.Optional


@dataclass
class ProtocolConfig:
    """Section 6: N training and round(test_fraction * N) test examples, repeated."""

    #: The methods compared on every split, each an entry of ``methods`` (configs/method/).
    methods: list[str] = field(default_factory=lambda: ["gcforest", "disdf"])
    Ns: list[int] = field(default_factory=lambda: [50, 80, 100, 120])
    Ts: list[int] = field(default_factory=lambda: [100, 400, 700, 1000])
    repetitions: int = 100
    test_fraction: float = 2 / 3
    #: If N + round(test_fraction N) exceeds a dataset, test on all remaining examples.
    cap_test_size: bool = True
    seed: int = 0
    #: "random" (the paper's "randomly select N training data") or "stratified" (class proportions).
    train_draw: str = "random"
    #: null, or "subject": no subject's rows on both sides (Parkinsons; running.protocol.group_split).
    split_groups: Optional[str] = None  # noqa: UP045 - OmegaConf needs typing.Optional
    #: The audit's simulated data faults: "none", "misaligned" or "inverted_test" (running.protocol).
    label_fault: str = "none"
    #: "holdout" (the paper's) or "5x2cv": Dietterich's 5 x 2-fold CV on at most N rows per dataset
    #: (protocol.Ns holds the one row cap; repetitions 10; running.cross_validation).
    split_scheme: str = "holdout"
    #: Keep each record's confusion counts (``confusion``: rows the true class, columns the predicted,
    #: over the classes of the dataset, sorted), so that a metric other than accuracy (the benchmark's
    #: balanced accuracy) is computed from the records without refitting. Adds a field; changes no number.
    record_confusion: bool = False


@dataclass
class RuntimeConfig:
    """Where units run; nothing here changes a result (records are the same for every runtime)."""

    #: "loky" (this machine; group runtime=local) or "dask" (runtime=dask).
    backend: str = "loky"
    #: Dask only: the scheduler to join, e.g. tcp://head-node:8786; null starts a LocalCluster.
    scheduler_address: Optional[str] = None  # noqa: UP045 - OmegaConf needs typing.Optional
    #: Dask only: worker processes of the LocalCluster (one thread each).
    dask_workers: int = 2
    n_jobs: int = -1
    #: Grow each split's level 1 once for every T and method (exact; off only to measure it).
    share_first_level: bool = True
    #: results/ itself is the headline's, written only by experiment=paper (experiments/safety/guards.py).
    output_dir: str = "results/${experiment_name}"
    progress: bool = True


@dataclass
class FullMnistConfig:
    """scripts/tools/mnist_full.py: both methods on MNIST's training set, scored on its test set."""

    #: Training images (the first n of the 60,000); null means all. Small values for tests.
    n_train: Optional[int] = None  # noqa: UP045 - OmegaConf needs typing.Optional
    #: Test images (the first n of the 10,000); null means all.
    n_test: Optional[int] = None  # noqa: UP045 - OmegaConf needs typing.Optional
    n_trees: int = 100
    seed: int = 0
    #: The goals the run is reported against: each method's fit time, and one method's peak memory.
    fit_minutes_budget: dict[str, float] = field(default_factory=lambda: {"gcforest": 8.0, "disdf": 10.0})
    memory_gb_budget: float = 3.0
    #: Where the fitted levels' trees live (the estimators' keep_fitted_levels): "disk" writes them
    #: under <output_dir>/fitted_levels/<method>/ and maps them back (the opt-in mode below 2 GiB).
    keep_fitted_levels: str = "memory"


@dataclass
class DataConfig:
    dir: Optional[str] = None  # noqa: UP045 - OmegaConf needs typing.Optional


@dataclass
class Config:
    #: The methods' values (configs/model/disdf.yaml, wired to the estimators by configs/method/*.yaml).
    #: No third copy of them here: the YAML's keys are the schema (experiments.safety.guards refuses
    #: others) and the estimators' parameter tables check types and ranges before any work.
    model: dict[str, Any] = field(default_factory=dict)
    solver: SolverConfig = field(default_factory=SolverConfig)
    protocol: ProtocolConfig = field(default_factory=ProtocolConfig)
    runtime: RuntimeConfig = field(default_factory=RuntimeConfig)
    data: DataConfig = field(default_factory=DataConfig)
    full_mnist: FullMnistConfig = field(default_factory=FullMnistConfig)
    #: The estimator of each method (``_target_`` and its parameters, configs/method/*.yaml).
    methods: dict[str, Any] = field(default_factory=dict)
    #: Datasets of this run, the one way to choose them (``datasets=[ecoli,mnist]``).
    datasets: list[str] = field(default_factory=lambda: ["ionosphere"])
    experiment_name: str = "adhoc"


#: The model group's YAML: the keys a run's ``model`` may hold, and their types.
MODEL_DEFAULTS = ROOT / "configs" / "model" / "disdf.yaml"


def as_dict(node: Any, resolve: bool = True) -> dict[str, Any]:
    """A mapping node of a config as a plain dict (``OmegaConf.to_container``, typed as what it is
    here); any other node is refused, naming its type."""
    value = OmegaConf.to_container(node, resolve=resolve)
    if not isinstance(value, dict):
        raise TypeError(f"a config mapping was expected; got {type(value).__name__}")
    return cast(dict[str, Any], value)


@cache  # read on every config hash; callers only read it
def model_defaults() -> dict[str, Any]:
    """configs/model/disdf.yaml, resolved: the model keys and their default values."""
    return as_dict(OmegaConf.load(MODEL_DEFAULTS))


def check_known_keys(cfg: DictConfig) -> None:
    """Refuse keys the schema does not know (typically added with ``+``), naming them and the known ones."""
    schema = OmegaConf.structured(Config)
    unknown_top = sorted(str(key) for key in set(cfg.keys()) - set(schema.keys()) - {"hydra"})
    if unknown_top:
        hint = f" (datasets are chosen with datasets=[{cfg.dataset}])" if "dataset" in unknown_top else ""
        raise ValueError(f"Unknown config key(s) {unknown_top}{hint}; known keys: {sorted(schema.keys())}")
    for section in schema.keys():
        if section == "model":
            known = set(model_defaults())  # the model group's YAML is its schema
        elif not OmegaConf.is_dict(schema[section]) or OmegaConf.get_type(schema[section]) is dict:
            continue  # free-form: each entry of `methods` is an estimator spec, checked by instantiating it
        else:
            known = set(schema[section].keys())
        unknown = sorted(set(cfg[section].keys()) - known)
        if unknown:
            raise ValueError(
                f"Unknown key(s) {', '.join(f'{section}.{key}' for key in unknown)}; "
                f"the keys of {section} are {sorted(known)}"
            )


def register() -> None:
    ConfigStore.instance().store(name="base_config", node=Config)
    OmegaConf.register_new_resolver("disdf_data_dir", default_data_dir, replace=True)
    OmegaConf.register_new_resolver(
        "disdf_tune_grid", lambda name: list(DEFAULT_TUNE_GRID[name]), replace=True
    )


register()
