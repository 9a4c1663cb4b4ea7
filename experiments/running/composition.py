"""Composing a config without running it, and the hash of what in it can change a result."""

from __future__ import annotations

import hashlib
import inspect
import json

from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from hydra.utils import get_object
from omegaconf import DictConfig, OmegaConf

from disdf import CascadeForestClassifier, DisDFClassifier
from disdf.forests import COMPILED_ENGINES, KERNEL_VERSION
from experiments.paths import ROOT
from experiments.running.config import as_dict, model_defaults

CONFIG_PATH = str(ROOT / "configs")


def compose_config(*overrides: str, return_hydra_config: bool = False) -> DictConfig:
    """The config the command line would give for these overrides, without running anything.

    For tests and notebooks: ``compose_config("experiment=smoke", "runtime.n_jobs=1")``.
    Inside a running Hydra app (whose config tree is this one) it reuses Hydra's context.
    """
    if GlobalHydra.instance().is_initialized():
        return compose("config", overrides=list(overrides), return_hydra_config=return_hydra_config)
    with initialize_config_dir(config_dir=CONFIG_PATH, version_base=None):
        return compose("config", overrides=list(overrides), return_hydra_config=return_hydra_config)


#: The model keys of 2026-11-25: always in the hash. A key added later enters it only when its value
#: differs from the estimator's default, so that adding a parameter (its estimator default in the
#: YAML) keeps every earlier record's hash.
HASHED_MODEL_KEYS = frozenset(
    {
        "name", "n_folds", "max_levels", "patience", "tol", "augmentation", "engine", "test_vectors",
        "lambda_", "tau", "tune", "tune_lambdas", "tune_taus", "weight_fitting", "cross_fit_parts",
    }
)  # fmt: skip


def model_values(cfg: DictConfig) -> dict:
    """``cfg.model`` with each value of the YAML's type (``model.tau=1`` is the YAML's 1.0) and the
    keys added since :data:`HASHED_MODEL_KEYS` only where they differ from the estimator's default."""
    defaults = model_defaults()
    estimator = inspect.signature(DisDFClassifier).parameters
    model = {}
    for key, value in as_dict(cfg.model).items():
        value = typed_like(value, defaults.get(key))
        if key in HASHED_MODEL_KEYS or key not in estimator or value != estimator[key].default:
            model[key] = value
    return model


def typed_like(value, default):
    """``value`` as a float where the default is a float and the value an int (lists element-wise)."""
    if isinstance(default, float) and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if isinstance(default, list) and isinstance(value, list) and default:
        return [typed_like(item, default[0]) for item in value]
    return value


def result_config(cfg: DictConfig) -> dict:
    """The part of the config that can change a unit's result (not the grid, not the runtime)."""
    model = model_values(cfg)
    if model["engine"] == "sklearn":
        # The reference engine keeps the hash records had before engines existed (they are its records).
        del model["engine"]
    if model.get("weight_fitting") == "same_examples":
        # The leaking weight fitting: the hash records had before cross-fitting existed (their method).
        del model["weight_fitting"], model["cross_fit_parts"]
    # Options added later enter the hash only when set away from what every earlier record did.
    if model.get("test_vectors") == "fold_mean":
        del model["test_vectors"]
    if "max_pairs" in model and model["max_pairs"] is None:
        del model["max_pairs"]  # every pair: what every earlier record's weight problem read
    # Folds that group copies: the estimators' default (so model_values drops it), but not the folds of
    # any earlier record, which are each row dealt alone; those keep their hash.
    if cfg.model.get("group_duplicates", False):
        model["group_duplicates"] = True
    else:
        model.pop("group_duplicates", None)
    solver = as_dict(cfg.solver)
    if solver.get("fallback") is None:
        # No fallback: the hash records had before the option existed.
        solver.pop("fallback", None)
    config = {
        "model": model,
        "solver": solver,
        "test_fraction": cfg.protocol.test_fraction,
        "cap_test_size": cfg.protocol.cap_test_size,
        "seed": cfg.protocol.seed,
    }
    for name, before in (
        ("train_draw", "random"),
        ("split_groups", None),
        ("label_fault", "none"),
        ("split_scheme", "holdout"),
    ):
        if cfg.protocol[name] != before:
            config[name] = cfg.protocol[name]
    if cfg.model.engine in COMPILED_ENGINES:
        # The compiled trees are ours: a kernel change must not resume records of the old kernels.
        config["fast_kernel_version"] = KERNEL_VERSION
    literals = method_literals(cfg)
    if literals:
        config["methods"] = literals
    return config


#: The estimator (or factory) that made every committed record of a method, by the method's name and
#: the place of the ``_target_`` in its spec (() the spec itself, ("cascade",) its cascade...), as the
#: configs named them when the hash began to include targets (2026-11-27); ``make test-records``
#: reruns each committed experiment with these and gets its records. A spec whose target resolves to
#: this object keeps the records' hash; any other target enters the hash: a config whose method was
#: edited to another estimator is another config, never merged into the old records.
COMMITTED_TARGETS: dict[tuple[str, tuple[str, ...]], str] = {
    **{
        (method, ()): "disdf.DisDFClassifier"
        for method in (
            "disdf", "disdf_lam0p1_tau1", "disdf_lam1_tau1", "disdf_lam10_tau1", "disdf_lam100_tau1",
            "disdf_lam1000_tau1", "disdf_lam1_tau0p5", "disdf_lam1_tau1p5",
        )
    },
    ("gcforest", ()): "disdf.CascadeForestClassifier",
    ("level1", ()): "disdf.CascadeForestClassifier",
    ("random_forest", ()): "disdf.PlainForestClassifier",
    ("extra_trees", ()): "disdf.PlainForestClassifier",
    ("knn", ()): "sklearn.pipeline.make_pipeline",
    ("gcforest_mgs", ()): "disdf.scanning_pipeline",
    ("gcforest_mgs", ("scanner",)): "disdf.MultiGrainedScanner",
    ("gcforest_mgs", ("cascade",)): "disdf.CascadeForestClassifier",
    ("disdf_mgs", ()): "disdf.scanning_pipeline",
    ("disdf_mgs", ("scanner",)): "disdf.MultiGrainedScanner",
    ("disdf_mgs", ("cascade",)): "disdf.DisDFClassifier",
    ("metric_raw", ()): "disdf.EmbeddingKNeighborsClassifier",
    ("metric_raw", ("embedding",)): "sklearn.preprocessing.StandardScaler",
    ("metric_nca", ()): "disdf.EmbeddingKNeighborsClassifier",
    ("metric_nca", ("embedding",)): "sklearn.pipeline.make_pipeline",
    ("metric_gcforest", ()): "disdf.EmbeddingKNeighborsClassifier",
    ("metric_gcforest", ("embedding",)): "disdf.CascadeForestClassifier",
    ("metric_disdf", ()): "disdf.EmbeddingKNeighborsClassifier",
    ("metric_disdf", ("embedding",)): "disdf.DisDFClassifier",
}  # fmt: skip


def is_committed_target(method: str, place: tuple[str, ...], target: str) -> bool:
    """Whether ``target`` resolves to the object that made the committed records of ``method`` there."""
    committed = COMMITTED_TARGETS.get((method, place))
    return committed is not None and get_object(target) is get_object(committed)


def method_literals(cfg: DictConfig) -> dict:
    """The values set in a method's spec itself rather than taken from model.* or solver.*.

    configs/method/*.yaml wire model.* and solver.* (already in the hash) to the
    estimators' parameters by interpolation; a value written there, or overridden
    there, is the method's own and must enter the hash too. ``_target_`` names the
    code: it enters the hash unless it is the one that made the method's committed
    records (:data:`COMMITTED_TARGETS`); ``_convert_`` does not change a number.
    """

    def literals(node, method: str, place: tuple[str, ...]) -> dict:
        found = {}
        for key in node:
            if key == "_target_" and not is_committed_target(method, place, node[key]):
                found[key] = node[key]
                continue
            if key in ("_target_", "_convert_") or OmegaConf.is_interpolation(node, key):
                continue
            value = node[key]
            if OmegaConf.is_dict(value):
                nested = literals(value, method, (*place, key))
                if nested:
                    found[key] = nested
            else:
                found[key] = (
                    OmegaConf.to_container(value, resolve=True) if OmegaConf.is_list(value) else value
                )
        return found

    methods = cfg.get("methods") or {}
    return {name: spec for name in sorted(methods) if (spec := literals(methods[name], name, ()))}


def config_hash(cfg: DictConfig) -> str:
    return hashlib.sha256(json.dumps(result_config(cfg), sort_keys=True).encode()).hexdigest()[:12]


def estimator_specs(cfg: DictConfig, names) -> dict[str, dict]:
    """The estimator spec of each named method (``_target_`` and its parameters, configs/method/),
    resolved to plain containers for ``hydra.utils.instantiate``."""
    return {name: as_dict(cfg.methods[name]) for name in names}


def methods(cfg: DictConfig) -> list[str]:
    """The methods the protocol compares (protocol.methods), each with its estimator in ``methods``."""
    names = list(cfg.protocol.methods)
    unknown = [name for name in names if name not in cfg.methods]
    if not names or unknown or len(set(names)) < len(names):
        raise ValueError(
            f"protocol.methods must list distinct methods from {sorted(cfg.methods)} (configs/method/); "
            f"got {names}"
        )
    return names


def is_cascade(spec: dict) -> bool:
    """Whether a method's estimator is a cascade (it keeps levels), from its ``_target_``; a
    scanning pipeline (``disdf.scanning.scanning_pipeline``) is one when its ``cascade`` is."""
    target = get_object(spec["_target_"])
    if isinstance(target, type) and issubclass(target, CascadeForestClassifier):
        return True
    front = spec.get("cascade")
    return isinstance(front, dict) and "_target_" in front and is_cascade(front)
