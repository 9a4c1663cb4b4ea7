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

Each fit writes into a folder of its own, made fresh under ``fitted_levels_dir``
(:func:`new_fit_folder`, with a marker naming its owner): a second model, a clone in a grid
search's worker or a refit never writes where another fit's trees are mapped from. A refit
removes its estimator's previous fit folder, and so does the estimator's garbage collection
(:class:`FitFolder`); a pickled or copied model carries its trees' arrays, not the folder.
"""

from __future__ import annotations

import json
import mmap
import os
import shutil
import tempfile
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import numpy as np

from disdf._utils.parameters import Constraint, InvalidParameterError, OneOf
from disdf.cascade._level_members import EstimatorFoldModel
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
        if disk and (not isinstance(value, (str, os.PathLike)) or not str(value).strip()):
            raise InvalidParameterError(
                f"{owner}: keep_fitted_levels='disk' needs {name}, the folder its levels are written to "
                f"(a non-empty str or path); got {value!r}"
            )
        if not disk and value is not None:
            raise InvalidParameterError(
                f"{owner}: {name} is read only with keep_fitted_levels='disk'; got {name}={value!r} "
                f"with keep_fitted_levels={params['keep_fitted_levels']!r}"
            )


#: The file in a fit folder that names the fit it belongs to.
OWNER_FILE = "owner.json"


def new_fit_folder(parent: str | os.PathLike, owner: str) -> Path:
    """A fresh folder for one fit's levels under ``parent`` (made if missing), holding a marker that
    names its owner; an InvalidParameterError naming ``fitted_levels_dir`` when it cannot be made
    (a file there, no permission, a full disk), before any tree is grown."""
    parent = Path(parent).expanduser()
    try:
        parent.mkdir(parents=True, exist_ok=True)
        folder = Path(tempfile.mkdtemp(prefix="fit_", dir=parent))  # unique, even across processes
        marker = {"estimator": owner, "process": os.getpid(), "folder": folder.name}
        (folder / OWNER_FILE).write_text(json.dumps(marker) + "\n", encoding="utf-8")
    except OSError as error:
        raise InvalidParameterError(
            f"{owner}: fitted_levels_dir={str(parent)!r} cannot hold the fitted levels: "
            f"{error.strerror or error} ({type(error).__name__})"
        ) from None
    return folder


def _remove_fit_folder(folder: Path) -> None:
    """Remove a fit folder, only if it is one (its owner marker): a user's folder is never removed."""
    if (folder / OWNER_FILE).is_file():
        shutil.rmtree(folder, ignore_errors=True)


class FitFolder:
    """The fit folder of a fitted estimator: removed when the estimator is refitted or collected.

    Its trees' arrays stay valid after the removal (they are mapped, and a mapped file lives on
    until unmapped), and a pickle or copy of the estimator carries the arrays themselves; this
    object is not pickled (:meth:`__reduce__` gives None's place to it in a copy)."""

    def __init__(self, owner: object, path: Path) -> None:
        self.path = path
        self._finalizer = weakref.finalize(owner, _remove_fit_folder, path)

    def remove(self) -> None:
        self._finalizer()

    @classmethod
    def replace(
        cls, previous: FitFolder | None, owner: object, folder: Path | None, n_keep: int
    ) -> FitFolder | None:
        """A fit's folder (``None`` in memory), its discarded levels removed, in place of the
        estimator's ``previous`` one, which goes: a refit leaves no level of another fit behind."""
        if previous is not None:
            previous.remove()
        if folder is None:
            return None
        discard_levels(folder, n_keep)
        return cls(owner, folder)

    def __reduce__(self):
        return (_no_fit_folder, ())


def _no_fit_folder() -> None:
    """What a pickled or copied :class:`FitFolder` becomes: the copy owns no folder."""
    return None


def level_folder(folder: str | os.PathLike, level: int) -> Path:
    """Where level ``level`` (0-based) of a fit folder keeps its arrays."""
    return Path(folder) / f"level_{level + 1:02d}"


def discard_levels(folder: Path, n_keep: int) -> None:
    """Remove the levels grown after the kept ones (the cascade discards them) from a fit folder."""
    for path in sorted(folder.glob("level_*")):
        if path.is_dir() and int(path.name.split("_")[1]) > n_keep:
            shutil.rmtree(path, ignore_errors=True)


def store_level(models: list, folder: str | os.PathLike, level: int) -> None:
    """Write every fold model's node arrays of level ``level`` (0-based) under ``folder`` and make the
    models read them memory-mapped (copy-on-write: the compiled kernels take writable arrays)."""
    root = level_folder(folder, level)
    root.mkdir(parents=True, exist_ok=True)
    for position, model in enumerate(models):
        if isinstance(model, EstimatorFoldModel):
            continue  # a level member's estimator stays in memory (it has no node arrays)
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
