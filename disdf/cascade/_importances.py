"""A fitted cascade's impurity-based feature importances: each kept level's, over its whole input, and
the original features', aggregated over the kept levels.

Level q's importances cover its input, eq. (40): the n_features_in_ raw features, then the class
vectors of the levels before it (``augmentation="previous"``: of the level before it). They are the
mean over the level's M forests of each forest's importances, which are the mean over its K fold
models of each fold model's: its trees' mean decreases in Gini impurity (node weights with the
sample weights and bootstrap counts, as scikit-learn's ``feature_importances_``), averaged with the
fold model's tree weights w (uniform for gcForest, eq. (36): exactly scikit-learn's
``feature_importances_``; DisDF's learned w, eq. (41): a tree counts as much as it counts in the
class vector) and normalised to sum 1 (:mod:`disdf.forests._importances`).

The original features' importances (``feature_importances_``): each kept level's importances
restricted to its raw-feature columns and renormalised to sum 1, then averaged over the kept levels
that split on a raw feature at all (a level whose trees split on class vectors only says nothing
about the raw features' shares) and normalised; zeros if no level does. Every level counts alike:
the class vectors carry the earlier levels' use of the raw features, which the raw columns of a
later level do not show.

Both describe the cascade's fold models, which made its training class vectors; not a
``predictor`` on top, nor the forests grown again with ``test_vectors="refit"``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from disdf.cascade._cascade_level import CascadeLevel
from disdf.cascade._forest_fit import ForestFit
from disdf.forests._importances import normalised


def _varying(w: np.ndarray | None) -> np.ndarray | None:
    """The tree weights to average with, or None where every tree weighs alike (uniform w: the forest's
    own importances, scikit-learn's exactly for its engine)."""
    return None if w is None or np.all(w == w[0]) else w


def forest_importances(forest: ForestFit) -> np.ndarray | None:
    """A forest's importances: the mean over its K fold models of their w-weighted importances (None for
    a level member whose estimator has no ``feature_importances_``)."""
    weights = forest.weights if forest.weights is not None else [None] * len(forest.models)
    each = [model.feature_importances(_varying(w)) for model, w in zip(forest.models, weights, strict=True)]
    known = [importances for importances in each if importances is not None]
    return np.mean(known, axis=0) if len(known) == len(each) else None


def level_importances(level: CascadeLevel) -> np.ndarray:
    """A level's importances over its whole input: the mean of its forests' (and of the members' that have
    importances), normalised to sum 1; zeros if no member has any."""
    known = [importances for importances in map(forest_importances, level.forests) if importances is not None]
    if not known:  # members only, none with importances: their estimators' input width
        fitted: Any = level.forests[0].models[0]
        return np.zeros(fitted.estimator.n_features_in_)
    return normalised(np.mean(known, axis=0))


def original_feature_importances(per_level: list[np.ndarray], n_features: int) -> np.ndarray:
    """The raw features' importances from the kept levels' (module docstring): each level's first
    ``n_features`` columns renormalised, averaged over the levels that use any, normalised.

    Examples
    --------
    >>> import numpy as np
    >>> levels = [np.array([0.5, 0.5, 0.0]), np.array([0.1, 0.3, 0.6]), np.array([0.0, 0.0, 1.0])]
    >>> original_feature_importances(levels, 2).tolist()  # (0.5, 0.5) and (0.25, 0.75); the last none
    [0.375, 0.625]
    """
    restricted = [normalised(importances[:n_features]) for importances in per_level]
    used = [importances for importances in restricted if importances.sum() > 0]
    return normalised(np.mean(used, axis=0)) if used else np.zeros(n_features)
