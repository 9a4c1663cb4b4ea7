"""Where a fitted cascade keeps its levels' trees: in memory, or on disk (``keep_fitted_levels``).

A cascade on a large training set keeps thousands of fully grown trees: on all
60,000 MNIST images a level's 12 fold models hold about 15 million nodes.
With ``keep_fitted_levels="disk"`` each level's node arrays are written to
``fitted_levels_dir`` as soon as the level is fitted and read back memory-mapped
(the idea of DF21's partial mode): the fit holds the trees of the level it grows,
not those of every level before it. Prediction reads a level's trees from the
page cache and lets the system drop their pages once the level's class vectors
are computed, so the trees of one level at a time count in the process's memory.
The arrays are the same numbers, so the predictions are the same.
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import numpy as np

from disdf._utils.parameters import Constraint, InvalidParameterError, OneOf
from disdf.forests._compiled import FastForest
from disdf.forests._specs import COMPILED_ENGINES

#: Where a fitted cascade's levels live (the estimators' ``keep_fitted_levels``).
KEEP_FITTED_LEVELS = ("memory", "disk")
#: A FastForest's arrays written to disk and mapped back.
_ARRAYS = ("roots", "feature", "threshold", "left", "right", "leaf_values")


@dataclass(frozen=True)
class KeepFittedLevels(Constraint):
    """``keep_fitted_levels``: one of :data:`KEEP_FITTED_LEVELS`; ``"disk"`` with a compiled engine."""

    @property
    def reads(self) -> tuple[str, ...]:
        return ("engine",)

    def check_in(self, owner: str, name: str, params: Mapping[str, Any]) -> None:
        OneOf(KEEP_FITTED_LEVELS).check(owner, name, params[name])
        if params[name] == "disk" and params["engine"] not in COMPILED_ENGINES:
            raise InvalidParameterError(
                f"{owner}: {name}='disk' stores the compiled engines' trees "
                f"(engine in {list(COMPILED_ENGINES)}); got engine={params['engine']!r}"
            )


@dataclass(frozen=True)
class LevelsFolder(Constraint):
    """``fitted_levels_dir``: a folder (str or path) with ``keep_fitted_levels="disk"``, else None."""

    @property
    def reads(self) -> tuple[str, ...]:
        return ("keep_fitted_levels",)

    def check_in(self, owner: str, name: str, params: Mapping[str, Any]) -> None:
        value, disk = params[name], params["keep_fitted_levels"] == "disk"
        if disk and not isinstance(value, (str, os.PathLike)):
            raise InvalidParameterError(
                f"{owner}: keep_fitted_levels='disk' needs {name}, the folder its levels are written to "
                f"(a str or path); got {value!r}"
            )
        if not disk and value is not None:
            raise InvalidParameterError(
                f"{owner}: {name} is read only with keep_fitted_levels='disk'; got {name}={value!r} "
                f"with keep_fitted_levels={params['keep_fitted_levels']!r}"
            )


def store_level(models: list, folder: str | os.PathLike, level: int) -> None:
    """Write every fold model's node arrays of level ``level`` (0-based) under ``folder`` and make the
    models read them memory-mapped (copy-on-write: the compiled kernels take writable arrays)."""
    root = Path(folder) / f"level_{level + 1:02d}"
    root.mkdir(parents=True, exist_ok=True)
    for position, model in enumerate(models):
        if not isinstance(model, FastForest):
            raise TypeError(f"keep_fitted_levels='disk' stores compiled forests; got {type(model)}")
        for name in _ARRAYS:
            path = root / f"model_{position:03d}_{name}.npy"
            np.save(path, getattr(model, name))
            # a plain ndarray view of the mapping (its base): the compiled kernels take it as any array
            setattr(model, name, np.asarray(np.load(path, mmap_mode="c")))


def release_level(models: list) -> None:
    """Let the system drop the pages of the models' mapped arrays (they are read again from the file
    when next needed): after a level's class vectors, the next level's trees take their place."""
    if not hasattr(mmap, "MADV_DONTNEED"):  # no madvise (Windows): the system pages them out alone
        return
    for model in models:
        for name in _ARRAYS:
            base = getattr(getattr(model, name, None), "base", None)
            # cast: numpy's stubs leave out memmap's private _mmap (its mmap.mmap; None once closed)
            if isinstance(base, np.memmap) and cast(Any, base)._mmap is not None:
                cast(Any, base)._mmap.madvise(mmap.MADV_DONTNEED)
