"""A level's M x K fold models grown as tasks, fold by fold, the forests of a fold sharing its rows.

Fold model (m, k) is forest m grown on the training rows of fold k, then applied to fold k's held-out
examples. The compiled engines grow on a feature-major copy of the training rows
(:func:`~disdf.forests._compiled.forest.feature_major`; float32 on large data: on all of MNIST 40,000 x
1,104 values at the ninth level, 177 MB). The tasks run fold-major (every forest of fold 1, then of
fold 2, ...), so the tasks that run at once are mostly forests of one fold, and a fold's copy is
made once, by the first of its tasks to start, and dropped when the last one has grown its trees
(:class:`FoldRows`), instead of once per task. Every fold model's seed is fixed before any task
runs and each result is placed by its (m, k), so the order changes no number.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

import numpy as np

from disdf._utils.folds import Folds
from disdf._utils.random_seeds import SEED_HIGH
from disdf._utils.threads import run_tasks
from disdf.cascade._cascade_level import CascadeLevel
from disdf.cascade._forest_fit import FoldModel, ForestFit
from disdf.cascade._level_members import LevelMember, fit_member
from disdf.forests._compiled.forest import feature_major
from disdf.forests._specs import COMPILED_ENGINES, fit_fold_model
from disdf.forests._tree_leaves import TreeLeaves


class FoldRows:
    """One fold's training rows feature-major, shared by the fold's ``n_users`` tasks: made by the first
    that calls :meth:`take`, let go once every one has called :meth:`release`."""

    _X: np.ndarray | None  # None once the last user released the copy (so is X then)

    def __init__(self, X: np.ndarray, rows: np.ndarray, n_users: int) -> None:
        self._X, self._rows, self._users = X, rows, n_users
        self._copy: np.ndarray | None = None
        self._lock = threading.Lock()

    def take(self) -> np.ndarray:
        """The copy, made now if no task made it yet (a task that asks meanwhile waits for it)."""
        with self._lock:
            if self._copy is None:
                assert self._X is not None  # every user takes before it releases: the last release is after
                self._copy = feature_major(self._X, self._rows)
            return self._copy

    def release(self) -> None:
        """One task is done with the copy; the last one lets it go."""
        with self._lock:
            self._users -= 1
            if self._users == 0:
                self._copy = self._X = None

    @property
    def held(self) -> bool:
        """Whether the copy exists now."""
        return self._copy is not None

    def __getstate__(self) -> dict[str, Any]:
        """Sent to another process (a task on a Dask worker, under ``joblib.parallel_config(backend=
        "dask")``): the rows, without the copy or the lock; each process makes its own copy."""
        return {"_X": self._X, "_rows": self._rows, "_users": self._users}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._X, self._rows, self._users = state["_X"], state["_rows"], state["_users"]
        self._copy = None
        self._lock = threading.Lock()


def fit_and_hold_out(
    kind: str,
    params: Mapping[str, Any],
    engine: str,
    features: np.ndarray,
    y: np.ndarray,
    train: np.ndarray,
    test: np.ndarray,
    seed: int,
    shared: FoldRows | None = None,
    **forest_options: Any,
) -> tuple[FoldModel, TreeLeaves]:
    """Fold model (forest ``kind`` on the examples ``train``) and its held-out leaf rows of ``test``;
    ``shared``: the fold's rows feature-major for a compiled engine, released once the trees are grown.
    A ``kind`` that is a :class:`~disdf.cascade._level_members.LevelMember` is that member's estimator
    fitted on the fold (its held-out outputs as leaf rows)."""
    grow = partial(fit_level_model, kind, params, engine, features, y, seed, rows=train)
    if shared is not None and isinstance(kind, LevelMember):
        shared.release()  # a member reads X example-major: the fold's copy is the forests'
        shared = None
    if shared is None:
        model = grow(**forest_options)
    else:
        try:
            model = grow(feature_major_rows=shared.take(), **forest_options)
        finally:
            shared.release()
    return model, model.tree_leaves(features, rows=test)


def _member_options(forest_options: Mapping[str, Any]) -> dict[str, Any]:
    """What a member's fit reads of the fold models' options (not the trees' parameters)."""
    return {
        key: forest_options[key]
        for key in ("n_classes", "sample_weight", "regression")
        if key in forest_options
    }


def fit_level_model(
    kind: Any,
    params: Mapping[str, Any],
    engine: str,
    X: np.ndarray,
    y: np.ndarray,
    random_state: int,
    rows: np.ndarray | None = None,
    **forest_options: Any,
) -> FoldModel:
    """One model of a level on the examples ``rows`` of (X, y) (None: all, for ``test_vectors="refit"``):
    a forest (:func:`~disdf.forests._specs.fit_fold_model`) or a member's estimator."""
    if isinstance(kind, LevelMember):
        rows = np.arange(len(y)) if rows is None else rows
        return fit_member(kind, X, y, rows, random_state, **_member_options(forest_options))
    return fit_fold_model(kind, params, engine, X, y, random_state=random_state, rows=rows, **forest_options)


def grow_level_models(
    specs: Sequence[tuple[str, Mapping[str, Any]]],
    engine: str,
    features: np.ndarray,
    y_code: np.ndarray,
    folds: Folds,
    seeds: np.ndarray,
    n_jobs: int | None,
    **forest_options: Any,
) -> list[ForestFit]:
    """Every fold model of a level and its held-out leaf rows, as a ForestFit per forest (forest m's fold
    k grown with ``seeds[m, k]``), the tasks run fold-major (module docstring)."""
    n_forests = len(specs)
    compiled = engine in COMPILED_ENGINES  # scikit-learn's forests copy their rows themselves
    shared = [FoldRows(features, train, n_forests) if compiled else None for train, _ in folds]
    results = run_tasks(
        (
            partial(
                fit_and_hold_out,
                kind,
                params,
                engine,
                features,
                y_code,
                train,
                test,
                int(seeds[m, k]),
                shared[k],
                **forest_options,
            )
            for k, (train, test) in enumerate(folds)
            for m, (kind, params) in enumerate(specs)
        ),
        n_jobs,
    )
    models = [[results[k * n_forests + m] for k in range(len(folds))] for m in range(n_forests)]
    return [
        ForestFit(
            kind=kind.name if isinstance(kind, LevelMember) else kind,
            models=[model for model, _ in models[m]],
            held_out=[held_out for _, held_out in models[m]],
            seeds=tuple(int(seed) for seed in seeds[m]),
        )
        for m, (kind, _) in enumerate(specs)
    ]


def refit_forests(
    level: CascadeLevel,
    features: np.ndarray,
    y_code: np.ndarray,
    specs: Sequence[tuple[str, Mapping[str, Any]]],
    engine: str,
    n_trees: int,
    tree_params: Mapping[str, Any],
    n_jobs: int | None,
    sample_weight: np.ndarray | None = None,
    **forest_options: Any,
) -> list[FoldModel]:
    """``test_vectors="refit"``: each forest of ``level`` grown once more on all the level's examples
    (with their weights, if any). Its seed comes from the forest's fold seeds (not from the
    estimator's stream, which stays untouched). ``forest_options``: ``n_classes`` (a fold model's
    columns) and ``regression``, as :func:`~disdf.forests._specs.fit_fold_model` takes them."""
    features = np.asarray(features, dtype=np.float32)
    seeds = [
        int(np.random.SeedSequence(forest.seeds).generate_state(1)[0] & SEED_HIGH) for forest in level.forests
    ]
    return run_tasks(
        (
            partial(
                fit_level_model,
                kind,
                params,
                engine,
                features,
                y_code,
                random_state=seed,
                n_trees=n_trees,
                tree_params=tree_params,
                sample_weight=sample_weight,
                **forest_options,
            )
            for (kind, params), seed in zip(specs, seeds, strict=True)
        ),
        n_jobs,
    )
