"""Multi-grained scanning (gcForest, Zhou & Feng 2017; the paper's section 2) as a transformer.

For every window size (one at a time), a completely-random tree forest and a random forest are
grown on the windows of the training examples, each window an instance with its example's label;
an example's representation is, window size after window size and forest after forest, the class
vectors of its windows at every position, concatenated. These feed the cascade
(:class:`disdf.CascadeForestClassifier` or :class:`disdf.DisDFClassifier`, e.g. as the next step
of a :class:`sklearn.pipeline.Pipeline`; :func:`disdf.scanning.scanning_pipeline`).

The training examples' vectors are out of fold, as the cascade's are (eq. (40)): the K folds are
made of whole *examples* (stratified K-fold on the examples, then expanded to their windows), so
no window of a held-out example, nor any other window of its image, is seen by the forests that
give its vectors. A new example's vector of a forest is the mean over its K fold models, as in the
cascade. The base code the paper modified (leopiney/deep-forest, ``MultiGrainedScanner``) grows
one forest per window position instead and scores with ``cross_val_predict`` per position.
"""

from __future__ import annotations

from functools import partial
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from disdf._utils.float32_input import check_float32_range
from disdf._utils.folds import duplicate_groups, stratified_folds
from disdf._utils.labels import encode_labels
from disdf._utils.parameters import (
    Boolean,
    Constraint,
    Integer,
    NJobs,
    OneOf,
    RandomSeed,
    check_estimator_parameters,
)
from disdf._utils.persistence import VersionedPickle
from disdf._utils.random_seeds import SEED_HIGH
from disdf._utils.sample_weights import ClassWeight, example_weights
from disdf._utils.threads import run_tasks
from disdf._utils.tree_weights import uniform_weights
from disdf.forests._specs import ENGINES, fit_fold_model
from disdf.scanning._windows import ImageShape, PositiveInts, WindowGeometry, window_geometries

#: The forests grown per window size: gcForest's one completely-random tree forest and one random forest.
SCANNING_FORESTS = ("completely_random", "random_forest")


def _window_vectors(models, geometry: WindowGeometry, X: np.ndarray, batch_size: int) -> np.ndarray:
    """Mean over ``models`` of the class vectors of every window of X's rows, (n, n_positions * C),
    built ``batch_size`` examples at a time (the windows of one batch exist at once)."""
    n_classes = models[0].n_classes
    out = np.empty((X.shape[0], geometry.n_positions * n_classes))
    uniform = uniform_weights(models[0].n_trees)
    for start in range(0, X.shape[0], batch_size):
        rows = X[start : start + batch_size]
        windows = geometry.instances(rows)
        total = sum(model.weighted_probabilities(windows, uniform) for model in models)
        out[start : start + len(rows)] = (total / len(models)).reshape(len(rows), -1)
    return out


def _fit_window_forest(kind, geometry, X, y_code, weights, train, test, seed, batch_size, **forest_options):
    """One fold model of one forest for one window size: grown on the windows of the ``train``
    examples only, each window with its example's weight (``weights``, None: unweighted); returns
    it and the class vectors of the ``test`` examples' windows."""
    windows = geometry.instances(X[train])
    labels = np.repeat(y_code[train], geometry.n_positions)
    window_weights = None if weights is None else np.repeat(weights[train], geometry.n_positions)
    model = fit_fold_model(
        kind,
        {},
        forest_options.pop("engine"),
        windows,
        labels,
        random_state=seed,
        sample_weight=window_weights,
        **forest_options,
    )
    del windows, labels
    return model, _window_vectors([model], geometry, X[test], batch_size)


class MultiGrainedScanner(VersionedPickle, TransformerMixin, BaseEstimator):
    """gcForest's multi-grained scanning: windows over vectors (1-D) or images (2-D) -> class vectors.

    Parameters
    ----------
    image_shape : (int, int) or None, default=None
        None: each example is a vector and windows are runs of ``window_size`` consecutive
        features. (height, width): each example is an image of that shape, stored row by row
        (as MNIST's 784 pixels), and windows are squares of ``window_size`` x ``window_size``.
    window_sizes : list of int, default=None
        One forest pair per size. None: gcForest's published setting, windows of floor(d/16),
        floor(d/8) and floor(d/4) of the d features (for a 28 x 28 image squares of side 7, 10 and
        14; :mod:`disdf.scanning._windows`). A window larger than the input is refused.
    strides : int or list of int, default=1
        The window's step, one for all sizes or one per size (gcForest's paper: 1).
    n_trees : int, default=30
        Trees per scanning forest. gcForest's paper uses 500; 30 keeps a scan of a few hundred
        28 x 28 images to seconds (the scanning forests see hundreds of windows per image).
    n_folds : int, default=3
        K of the K-fold cross-validation over examples that makes the out-of-fold vectors.
    group_duplicates : bool, default=True
        Examples of equal features share a fold, as in
        :class:`~disdf.CascadeForestClassifier` (there: why); without repeated examples the folds
        are ``StratifiedKFold``'s either way.
    max_depth : int or None, default=None
        Depth limit of the scanning trees (gcForest: pure leaves, or depth 100).
    min_samples_leaf : int, default=1
    engine : {"fast", "sklearn", "binned"}, default="fast"
        Who grows the trees (:mod:`disdf.forests._specs`).
    batch_size : int, default=256
        Examples whose windows are built at once when scoring (fit's held-out folds and transform).
    n_jobs : int, default=None
        Threads over the 2 x K fold models of one window size. Results do not depend on it.
    random_state : int, RandomState or None, default=None
        Seeds the fold split and every forest.
    class_weight : "balanced", dict or None, default=None
        Weights of the classes, as one weight per training example multiplied into ``fit``'s
        ``sample_weight`` (scikit-learn's ``compute_sample_weight``): ``"balanced"`` weighs class c
        by n / (n_classes * n_c), a dict ``{label: weight >= 0}`` by its entries. On every engine.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    geometries_ : list of WindowGeometry
        Per window size: its size, stride and positions.
    models_ : list (window size) of list (forest) of list (fold) of fold models
    fold_train_examples_ : list of ndarray
        The training examples of each fold (every fold model of every window size trained on the
        windows of exactly these examples, and scored the others).
    n_features_in_ : int
    n_features_out_ : int
        sum over window sizes of 2 x positions x n_classes.
    """

    def __init__(
        self,
        *,
        image_shape: tuple[int, int] | None = None,
        window_sizes: list[int] | None = None,
        strides: int | list[int] = 1,
        n_trees: int = 30,
        n_folds: int = 3,
        group_duplicates: bool = True,
        max_depth: int | None = None,
        min_samples_leaf: int = 1,
        engine: str = "fast",
        batch_size: int = 256,
        n_jobs: int | None = None,
        random_state: int | np.random.RandomState | None = None,
        class_weight=None,
    ) -> None:
        self.image_shape = image_shape
        self.window_sizes = window_sizes
        self.strides = strides
        self.n_trees = n_trees
        self.n_folds = n_folds
        self.group_duplicates = group_duplicates
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.engine = engine
        self.batch_size = batch_size
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.class_weight = class_weight

    _parameter_table: ClassVar[dict[str, Constraint]] = {
        "image_shape": ImageShape(),
        "window_sizes": PositiveInts(),
        "strides": PositiveInts(none=False, one=True),
        "n_trees": Integer(1),
        "n_folds": Integer(2),
        "group_duplicates": Boolean(),
        "max_depth": Integer(1, none=True),
        "min_samples_leaf": Integer(1),
        "engine": OneOf(ENGINES),
        "batch_size": Integer(1),
        "n_jobs": NJobs(),
        "random_state": RandomSeed(),
        "class_weight": ClassWeight(),
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        tags.target_tags.required = True
        return tags

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "models_")

    def _geometries(self, n_features: int) -> list[WindowGeometry]:
        return window_geometries(type(self).__name__, self.get_params(deep=False), n_features)

    def fit(self, X, y, sample_weight=None) -> MultiGrainedScanner:
        """Grow the scanning forests (see :meth:`fit_transform`, whose vectors this drops).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            As for :meth:`fit_transform`.

        Returns
        -------
        self
        """
        self.fit_transform(X, y, sample_weight)
        return self

    def fit_transform(self, X, y, sample_weight=None) -> np.ndarray:
        """Grow the scanning forests; return the training examples' *out-of-fold* class vectors.

        Each example's vectors come from the fold models that never saw any of its windows (the
        folds are made of whole examples). ``fit(X, y).transform(X)`` would give in-sample vectors
        instead, as for the cascade's ``fit_transform``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the examples (>= 0, times ``class_weight``'s): every window of an example
            carries its weight into the scanning trees' split criterion and leaf values, on every
            engine. None weighs every example 1.

        Returns
        -------
        ndarray of shape (n_samples, n_features_out)
        """
        check_estimator_parameters(self)
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_float32_range(X)
        weights = example_weights(type(self).__name__, y, sample_weight, self.class_weight)
        geometries = self._geometries(X.shape[1])
        self.classes_, y_code = encode_labels(type(self).__name__, y)
        if len(self.classes_) < 2:
            raise ValueError(
                f"The target y must have at least 2 classes; got only one class ({self.classes_[0]!r})"
            )
        if X.shape[0] < self.n_folds:
            raise ValueError(
                f"n_samples={X.shape[0]} is fewer than n_folds={self.n_folds}: out-of-fold vectors need "
                "at least one example per fold"
            )
        X = X.astype(np.float32)  # both engines grow and apply trees on float32 values
        rng = check_random_state(self.random_state)
        split_seed = int(rng.randint(SEED_HIGH))
        # Every seed drawn here, in a fixed order: results do not depend on n_jobs.
        seeds = rng.randint(SEED_HIGH, size=(len(geometries), len(SCANNING_FORESTS), self.n_folds))
        copies = duplicate_groups(X) if self.group_duplicates else None
        folds = stratified_folds(y_code, self.n_folds, split_seed, copies, who=type(self).__name__)
        fitted = [
            self._fit_window_size(g, X, y_code, weights, folds, seeds[i]) for i, g in enumerate(geometries)
        ]
        out = [block for block, _ in fitted]
        self.models_ = [models for _, models in fitted]
        self.geometries_ = geometries
        self.fold_train_examples_ = [train for train, _ in folds]
        self.n_features_out_ = sum(block.shape[1] for block in out)
        return np.hstack(out)

    def _fit_window_size(self, geometry, X, y_code, weights, folds, seeds) -> tuple[np.ndarray, list]:
        """Both forests' K fold models for one window size, and the vectors of their held-out examples."""
        options = {
            "engine": self.engine,
            "n_classes": len(self.classes_),
            "n_trees": self.n_trees,
            "tree_params": {"max_depth": self.max_depth, "min_samples_leaf": self.min_samples_leaf},
        }
        results = run_tasks(
            (
                partial(
                    _fit_window_forest,
                    kind,
                    geometry,
                    X,
                    y_code,
                    weights,
                    train,
                    test,
                    int(seeds[m, k]),
                    self.batch_size,
                    **options,
                )
                for m, kind in enumerate(SCANNING_FORESTS)
                for k, (train, test) in enumerate(folds)
            ),
            self.n_jobs,
        )
        n_folds = len(folds)
        width = geometry.n_positions * len(self.classes_)
        block = np.empty((X.shape[0], len(SCANNING_FORESTS) * width))
        models = []
        for m in range(len(SCANNING_FORESTS)):
            models.append([model for model, _ in results[m * n_folds : (m + 1) * n_folds]])
            for (_, test), (_, held_out) in zip(folds, results[m * n_folds : (m + 1) * n_folds], strict=True):
                block[test, m * width : (m + 1) * width] = held_out
        return block, models

    def transform(self, X) -> np.ndarray:
        """New examples' class vectors: per window size and forest, the mean over its K fold models.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_features_out)
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        check_float32_range(X)
        X = X.astype(np.float32)
        blocks = run_tasks(
            (
                partial(_window_vectors, models, geometry, X, self.batch_size)
                for geometry, forests in zip(self.geometries_, self.models_, strict=True)
                for models in forests
            ),
            self.n_jobs,
        )
        return np.hstack(blocks)
