"""Composing a config without running it, and the hash of what in it can change a result."""

from __future__ import annotations

import hashlib
import json

from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from hydra.utils import get_object
from omegaconf import DictConfig, OmegaConf

from disdf import CascadeForestClassifier
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


#: The protocol's fields that can change a unit's result (its grid, methods, Ns, Ts and repetitions,
#: and record_confusion, which adds fields to a record without changing one, cannot).
RESULT_PROTOCOL = (
    "test_fraction", "cap_test_size", "seed", "train_draw", "split_groups", "label_fault", "split_scheme",
)  # fmt: skip


def model_values(cfg: DictConfig) -> dict:
    """``cfg.model`` with each value of the YAML's type (``model.tau=1`` is the YAML's 1.0)."""
    defaults = model_defaults()
    return {key: typed_like(value, defaults.get(key)) for key, value in as_dict(cfg.model).items()}


def typed_like(value, default):
    """``value`` as a float where the default is a float and the value an int (lists element-wise)."""
    if isinstance(default, float) and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if isinstance(default, list) and isinstance(value, list) and default:
        return [typed_like(item, default[0]) for item in value]
    return value


def result_config(cfg: DictConfig) -> dict:
    """Everything in the config that can change a unit's result, whole: the model, the solver, the
    protocol's split rule (:data:`RESULT_PROTOCOL`), the compiled kernels' version and each method's own
    values and estimator; not the grid, not the runtime.

    No key is left out to keep an older hash: a change of what this covers changes the hash of every
    config, and ``python scripts/tools/rehash_records.py`` then moves each committed folder's records to
    the hash its ``configs.json`` overrides compose (``make test-records`` shows they still regenerate).
    """
    protocol = as_dict(cfg.protocol)
    config = {
        "model": model_values(cfg),
        "solver": as_dict(cfg.solver),
        **{name: protocol[name] for name in RESULT_PROTOCOL},
    }
    if cfg.model.engine in COMPILED_ENGINES:
        # The compiled trees are ours: a kernel change must not resume records of the old kernels.
        config["fast_kernel_version"] = KERNEL_VERSION
    if literals := method_literals(cfg):
        config["methods"] = literals
    return config


def method_literals(cfg: DictConfig) -> dict:
    """The values set in a method's spec itself rather than taken from model.* or solver.*.

    configs/method/*.yaml wire model.* and solver.* (already in the hash) to the
    estimators' parameters by interpolation; a value written there, or overridden
    there, is the method's own and must enter the hash too, and so does ``_target_``,
    the code that makes it; ``_convert_`` does not change a number.
    """

    def literals(node) -> dict:
        found: dict[str, object] = {}
        for key in node:
            if key == "_convert_" or OmegaConf.is_interpolation(node, key):
                continue
            value = node[key]
            if OmegaConf.is_dict(value):
                nested = literals(value)
                if nested:
                    found[key] = nested
            else:
                found[key] = (
                    OmegaConf.to_container(value, resolve=True) if OmegaConf.is_list(value) else value
                )
        return found

    methods = cfg.get("methods") or {}
    return {name: spec for name in sorted(methods) if (spec := literals(methods[name]))}


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
