"""A level the fitted cascade keeps (:class:`CascadeLevel`, an entry of ``levels_``) and how DisDF chose
its tree weights (:class:`LevelWeightFit`).

The runner, the metric view and user code read a fitted cascade through these two public classes and
:class:`~disdf.cascade.ForestFit`; the level loop that grows them is in
:mod:`disdf.cascade._level_growth`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from itertools import pairwise
from typing import Any, cast

import numpy as np

from disdf._utils.threads import run_tasks
from disdf._utils.tree_weights import uniform_weights
from disdf.cascade._forest_fit import FoldModel, ForestFit, fold_model_vectors


@dataclass(frozen=True)
class LevelWeightFit:
    """How a DisDF level's tree weights were chosen (``level.weight_fit`` of a fitted
    :class:`~disdf.DisDFClassifier`).

    Attributes
    ----------
    lambda_ : float
        λ of eq. (70), the weight of the regularisation term, as used at this level (tuned or given).
    tau : float
        τ of eq. (71), the margin of the different-class pairs' hinge.
    diagnostics : list of list of dict
        ``[forest][fold]``: each fold model's solver diagnostics (solver, iterations, objective,
        duality gap, seconds, ...), as :func:`~disdf.solve_weights` reports them.
    cross_fit_solver_seconds : float
        Seconds spent in the cross-fitted solves of ``weight_fitting="cross_fit"`` (their diagnostics
        are not kept: one per part and grid point); 0.0 otherwise.
    grid : list of dict or None
        With ``tune``, every grid point's λ, τ and out-of-fold accuracy; None without.

    Examples
    --------
    >>> from sklearn.datasets import load_wine
    >>> from disdf import DisDFClassifier
    >>> model = DisDFClassifier(n_trees=10, max_levels=1, lambda_=0.5, random_state=0)
    >>> fit = model.fit(*load_wine(return_X_y=True)).levels_[0].weight_fit
    >>> fit.lambda_, fit.tau, len(fit.diagnostics), len(fit.diagnostics[0])  # [forest][fold]
    (0.5, 1.0, 4, 3)
    """

    lambda_: float
    tau: float
    diagnostics: list[list[dict]]
    cross_fit_solver_seconds: float = 0.0
    grid: list[dict] | None = None

    def tuned_params(self) -> dict[str, Any]:
        """``tuned_params_``'s entry: λ and τ, and the grid's scores when tuned."""
        params: dict[str, Any] = {"lambda_": self.lambda_, "tau": self.tau}
        if self.grid is not None:
            params["grid"] = self.grid
        return params


@dataclass
class CascadeLevel:
    """A fitted level of a cascade: its M forests, each with its K fold models and their tree weights.

    A fitted cascade keeps one per level in ``levels_`` (the kept levels, the first first). A forest's
    class vector of a new example is the mean over its K fold models of the weighted sum of its trees'
    class distributions, eq. (41): weights 1/T for gcForest, learned by eq. (70)-(72) for DisDF.

    Attributes
    ----------
    forests : list of ForestFit
        The level's M forests, in the order of the estimator's forest kinds
        (:class:`~disdf.cascade.ForestFit`: ``kind``, ``models``, ``weights``, ``seeds``).
    weight_fit : LevelWeightFit or None
        How DisDF chose the level's weights (:class:`~disdf.cascade.LevelWeightFit`); None for
        gcForest's uniform 1/T and the regressor.
    refit_models : list or None
        With ``test_vectors="refit"``: per forest, one forest grown on all the level's training
        examples, which gives new examples' class vectors instead of the fold models; None otherwise.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from disdf import CascadeForestClassifier
    >>> from disdf.cascade import CascadeLevel
    >>> X, y = load_iris(return_X_y=True)
    >>> model = CascadeForestClassifier(n_trees=10, max_levels=1, random_state=0).fit(X, y)
    >>> level = model.levels_[0]
    >>> isinstance(level, CascadeLevel), [forest.kind for forest in level.forests]
    (True, ['completely_random', 'completely_random', 'random_forest', 'random_forest'])
    >>> level.class_vectors(X[:2]).shape  # M = 4 forests × C = 3 classes
    (2, 12)
    """

    forests: list[ForestFit]
    weight_fit: LevelWeightFit | None = None
    refit_models: list[FoldModel] | None = None

    @property
    def models(self) -> list[FoldModel]:
        """Every fold model of the level, forest after forest."""
        return [model for forest in self.forests for model in forest.models]

    @property
    def weights(self) -> list[list[np.ndarray]]:
        """``[forest][fold]`` -> the fold model's (T,) tree weights."""
        # cast: a fitted level's forests carry their learned weights (each level's _level_weights)
        return [cast("list[np.ndarray]", forest.weights) for forest in self.forests]

    def class_vectors(self, features: np.ndarray, n_jobs: int | None = None) -> np.ndarray:
        """Concatenated class vectors v = (v^(1), ..., v^(M)) of new examples, shape (n, M * C).

        ``features`` is the level's input: the original features, followed, after level 1, by the
        previous level's class vectors (:meth:`~disdf.CascadeForestClassifier.last_level_input` for the
        last kept level). A forest's vector is the mean over its K fold models of eq. (41), or, with
        refit models, the uniform mean of the refit forest's trees.
        """
        if self.refit_models is not None:
            return np.hstack(
                run_tasks(
                    (
                        partial(model.weighted_probabilities, features, uniform_weights(model.n_trees))
                        for model in self.refit_models
                    ),
                    n_jobs,
                )
            )
        # one parallel pass over every fold model of the level, then each forest's mean
        vectors = fold_model_vectors(self.forests, features, n_jobs)
        bounds = np.cumsum([0] + [len(forest.models) for forest in self.forests])
        return np.hstack([np.mean(vectors[a:b], axis=0) for a, b in pairwise(bounds)])
