"""A plain forest: the baseline a practitioner tries before any cascade.

One random forest, or one forest of extremely randomised trees, grown on all
the training examples with scikit-learn's default ``max_features="sqrt"`` and
``trees_per_T * n_trees`` trees, so that with the default 4 it holds as many
trees as one cascade level of ``n_trees``-tree forests.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from disdf._utils.float32_input import check_float32_range
from disdf._utils.labels import encode_labels
from disdf._utils.parameters import (
    Constraint,
    Integer,
    MaxFeatures,
    NJobs,
    OneOf,
    RandomSeed,
    check_estimator_parameters,
)
from disdf._utils.persistence import VersionedPickle
from disdf._utils.random_seeds import SEED_HIGH
from disdf._utils.sample_weights import ClassWeight, example_weights
from disdf._utils.tree_weights import uniform_weights
from disdf.forests._specs import BINNING_PARAMS, ENGINES, FOREST_KINDS, BinningParameter, fit_fold_model

#: The kinds of forest it grows: a random forest, or extremely randomised trees (a random threshold
#: per candidate feature), each with ``max_features`` candidate features per node.
PLAIN_KINDS = ("random_forest", "extra_trees")


class PlainForestClassifier(VersionedPickle, ClassifierMixin, BaseEstimator):
    """One forest grown on all training examples, its trees' class probabilities averaged.

    Parameters
    ----------
    kind : {"random_forest", "extra_trees"}, default="random_forest"
        scikit-learn's ``RandomForestClassifier`` (bootstrap, best threshold)
        or ``ExtraTreesClassifier`` (no bootstrap, a random threshold per
        candidate feature).
    n_trees : int, default=100
        The cascade's T: the forest grows ``trees_per_T * n_trees`` trees.
    trees_per_T : int, default=4
        4: as many trees as one cascade level of four T-tree forests.
    max_features : int, float, "sqrt", "log2" or None, default="sqrt"
        Candidate features per node, as in scikit-learn.
    engine : {"fast", "sklearn", "binned"}, default="fast"
        Who grows the trees (see :class:`disdf.CascadeForestClassifier`).
    random_state : int, RandomState or None, default=None
    n_jobs : int or None, default=None
        Accepted for the protocol's interface; one forest is grown in one thread.
    class_weight : "balanced", dict or None, default=None
        Weights of the classes, as one weight per training example multiplied into ``fit``'s
        ``sample_weight`` (scikit-learn's ``compute_sample_weight``): ``"balanced"`` weighs class c
        by n / (n_classes * n_c), a dict ``{label: weight >= 0}`` by its entries. On every engine.
    n_bins : int, default=255
        ``engine="binned"`` only: the most bins of a feature, in [2, 255], for the best splits of
        ``kind="random_forest"`` (see :class:`disdf.CascadeForestClassifier`).
    bin_subsample : int or None, default=None
        ``engine="binned"`` only: the bin edges placed on this many (>= 256) training examples,
        drawn from the forest's seed; None: on all of them.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    forest_ : fold model
        The fitted forest (``SklearnFoldModel`` or the compiled ``FastForest``).
    feature_importances_ : ndarray of shape (n_features,)
        Impurity-based importances (mean decrease in Gini impurity), summing to 1 unless no tree
        splits: with ``engine="sklearn"`` scikit-learn's forest's ``feature_importances_``, with the
        compiled engines the same rule on their trees.
    n_features_in_ : int

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from disdf import PlainForestClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> model = PlainForestClassifier(n_trees=10, random_state=0).fit(X, y)
    >>> importances = model.feature_importances_
    >>> importances.shape, bool(abs(importances.sum() - 1) < 1e-9)
    ((4,), True)
    >>> int(importances.argmax()) in (2, 3)  # the petals
    True
    """

    #: Every parameter's type and range (disdf._utils.parameters), checked by fit before any work.
    _parameter_table: ClassVar[dict[str, Constraint]] = {
        "kind": OneOf(PLAIN_KINDS),
        "n_trees": Integer(1),
        "trees_per_T": Integer(1),
        "max_features": MaxFeatures(),
        "engine": OneOf(ENGINES),
        "n_bins": BinningParameter(),
        "bin_subsample": BinningParameter(),
        "random_state": RandomSeed(),
        "n_jobs": NJobs(),
        "class_weight": ClassWeight(),
    }

    def __init__(
        self,
        *,
        kind: str = "random_forest",
        n_trees: int = 100,
        trees_per_T: int = 4,
        max_features="sqrt",
        engine: str = "fast",
        random_state=None,
        n_jobs: int | None = None,
        class_weight=None,
        n_bins: int = 255,
        bin_subsample: int | None = None,
    ) -> None:
        self.kind = kind
        self.n_trees = n_trees
        self.trees_per_T = trees_per_T
        self.max_features = max_features
        self.engine = engine
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.class_weight = class_weight
        self.n_bins = n_bins
        self.bin_subsample = bin_subsample

    def _validate_hyperparameters(self) -> None:
        check_estimator_parameters(self)

    def fit(self, X, y, sample_weight=None) -> PlainForestClassifier:
        """Grow the forest on (X, y).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the examples (>= 0, times ``class_weight``'s), in every tree's split criterion
            and leaf values on every engine (as in scikit-learn's forests). None weighs every example 1.

        Returns
        -------
        self
        """
        self._validate_hyperparameters()
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_float32_range(X)
        weights = example_weights(type(self).__name__, y, sample_weight, self.class_weight)
        self.classes_, y_code = encode_labels(type(self).__name__, y)
        defaults = FOREST_KINDS[self.kind].params
        self.forest_ = fit_fold_model(
            self.kind,
            {**defaults, "max_features": self.max_features},
            self.engine,
            X.astype(np.float32),
            y_code,
            n_classes=len(self.classes_),
            n_trees=self.trees_per_T * self.n_trees,
            random_state=int(check_random_state(self.random_state).randint(SEED_HIGH)),
            tree_params={
                "max_depth": None,
                "min_samples_split": 2,
                "min_samples_leaf": 1,
                **{name: getattr(self, name) for name in BINNING_PARAMS},  # engine="binned"'s
            },
            sample_weight=weights,
        )
        return self

    @property
    def feature_importances_(self) -> np.ndarray:
        """Impurity-based importances of the features, shape ``(n_features_in_,)`` (see Attributes)."""
        check_is_fitted(self)
        return self.forest_.feature_importances()

    def predict_proba(self, X) -> np.ndarray:
        """Mean of the trees' class probabilities, columns in the order of ``classes_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        n_trees = self.forest_.n_trees
        return self.forest_.weighted_probabilities(X.astype(np.float32), uniform_weights(n_trees))

    def predict(self, X) -> np.ndarray:
        """Class with the largest mean probability.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]
