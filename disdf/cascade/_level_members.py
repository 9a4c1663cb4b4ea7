"""Open levels: any scikit-learn estimator as a member of every cascade level (``level_estimators``).

A member given as ``(name, estimator)`` is cloned and fitted on each fold's training rows like a
built-in forest's fold model (on the level's input as the trees read it: float32 values), and its
outputs on the held-out rows are its out-of-fold vector: a classifier's ``predict_proba`` (columns
aligned to the cascade's classes; a class its fold never saw gets 0), a regressor's ``predict``
(one column per output). A new example's vector is the mean over the member's K fold models, as a
forest's. In the fold-model interface of :mod:`disdf.cascade._forest_fit` a member is a forest of
one "tree" of weight 1: DisDF's learned tree weights (eq. (70)-(72)) apply to the trees of the
built-in forests, and a member's single weight on the simplex is 1 whatever the solver. A member's
random_state left at None is seeded with its fold model's seed, drawn with the forests' seeds
(results do not depend on ``n_jobs``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.base import clone
from sklearn.utils.validation import has_fit_parameter

from disdf._utils.parameters import Constraint, InvalidParameterError
from disdf.forests._tree_leaves import TreeLeaves


@dataclass(frozen=True)
class LevelMember:
    """One member of every level beside the forests: its name and the (unfitted) estimator."""

    name: str
    estimator: Any


@dataclass(frozen=True)
class LevelEstimators(Constraint):
    """``level_estimators``: None, or a list of ``(name, estimator)`` pairs of distinct string names, each
    estimator an *instance* with ``get_params``, ``fit`` and ``predict_proba`` (classifiers) or
    ``predict`` (the regressor)."""

    regressor: bool = False

    def check(self, owner: str, name: str, value: Any) -> None:
        level_members(owner, value, self.regressor)

    def check_in(self, owner: str, name: str, params: Mapping[str, Any]) -> None:
        self.check(owner, name, params[name])


def level_members(owner: str, value: Any, regressor: bool = False) -> list[LevelMember]:
    """``level_estimators`` checked (:class:`LevelEstimators`) as a list of :class:`LevelMember`."""
    if value is None:
        return []
    method = "predict" if regressor else "predict_proba"
    if isinstance(value, (str, Mapping)) or not isinstance(value, Sequence):
        raise InvalidParameterError(
            f"{owner}: level_estimators must be None or a list of (name, estimator) pairs"
        )
    members, names = [], set()
    for position, pair in enumerate(value):
        if not (isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[0], str)):
            raise InvalidParameterError(
                f"{owner}: level_estimators[{position}] = {pair!r} is not a (name, estimator) pair"
            )
        label, estimator = pair
        if label in names:
            raise InvalidParameterError(f"{owner}: level_estimators names {label!r} twice")
        if isinstance(estimator, type) or not all(
            hasattr(estimator, needed) for needed in ("get_params", "fit", method)
        ):
            raise InvalidParameterError(
                f"{owner}: level_estimators[{position}] ({label!r}) must be an estimator instance with "
                f"get_params, fit and {method}; got {estimator!r}"
            )
        names.add(label)
        members.append(LevelMember(label, estimator))
    return members


def check_member_weights(owner: str, members: list[LevelMember], sample_weight: np.ndarray | None) -> None:
    """With example weights, every member is fitted with them: refuse one whose ``fit`` takes none, before
    any tree grows."""
    if sample_weight is None:
        return
    for member in members:
        if not has_fit_parameter(member.estimator, "sample_weight"):
            raise ValueError(
                f"{owner}: level_estimators member {member.name!r} takes no sample_weight in fit, and this "
                "fit has example weights; use a member that takes them, or fit without weights"
            )


class EstimatorFoldModel:
    """A member's estimator fitted on one fold, as a fold model of one tree (module docstring)."""

    n_trees = 1

    def __init__(self, estimator: Any, n_classes: int, regression: bool) -> None:
        self.estimator = estimator
        self.n_classes = n_classes
        self.regression = regression

    def outputs(self, X: np.ndarray) -> np.ndarray:
        """The member's vector of each example, (n, n_classes) float64."""
        if self.regression:
            return np.asarray(self.estimator.predict(X), dtype=np.float64).reshape(len(X), -1)
        proba = np.asarray(self.estimator.predict_proba(X), dtype=np.float64)
        aligned = np.zeros((len(X), self.n_classes))
        aligned[:, np.asarray(self.estimator.classes_, dtype=int)] = proba
        return aligned

    def first(self, n_trees: int) -> EstimatorFoldModel:
        return self  # one "tree": a cascade of fewer trees per forest keeps the member whole

    def probabilities(self, X: np.ndarray) -> np.ndarray:
        return self.outputs(X)[:, None, :]

    def tree_leaves(self, X: np.ndarray, rows: np.ndarray | None = None) -> TreeLeaves:
        """The held-out outputs as leaf rows: example i reaches row i of a table of its outputs."""
        outputs = self.outputs(X if rows is None else X[rows])
        return TreeLeaves(np.arange(len(outputs), dtype=np.int32)[:, None], outputs)

    def weighted_probabilities(self, X: np.ndarray, w: np.ndarray) -> np.ndarray:
        return self.outputs(X) * float(w[0])

    def feature_importances(self, w: np.ndarray | None = None) -> np.ndarray | None:
        """The estimator's own ``feature_importances_``, or None if it has none."""
        return getattr(self.estimator, "feature_importances_", None)


def fit_member(
    member: LevelMember,
    X: np.ndarray,
    y: np.ndarray,
    rows: np.ndarray,
    seed: int,
    *,
    n_classes: int,
    sample_weight: np.ndarray | None = None,
    regression: bool = False,
) -> EstimatorFoldModel:
    """A clone of the member's estimator fitted on the examples ``rows`` (with their weights, if any), its
    random_state left at None (its own or a nested one) set to ``seed``."""
    fitted = clone(member.estimator)
    unseeded = [
        name
        for name, value in sorted(fitted.get_params(deep=True).items())
        if (name == "random_state" or name.endswith("__random_state")) and value is None
    ]
    if unseeded:
        fitted.set_params(**dict.fromkeys(unseeded, int(seed) % (2**31 - 1)))
    if sample_weight is None:
        fitted.fit(X[rows], y[rows])
    else:
        fitted.fit(X[rows], y[rows], sample_weight=sample_weight[rows])
    return EstimatorFoldModel(fitted, n_classes, regression)
