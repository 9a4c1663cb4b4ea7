"""The gcForest cascade for regression: :class:`CascadeForestRegressor`.

The level loop is :class:`~disdf.cascade._cascade_base._CascadeBase`'s, as for the classifiers; a
level's forests are regression forests (squared-error trees on every engine), each forest's
out-of-fold predictions (one column per output) join the next level's input in place of class
vectors, eq. (40), and a level's prediction is the mean of its forests'. The folds are shuffled
K-fold (no classes to stratify), copies of a row in one fold; the depth is chosen by the
out-of-fold R^2 of the level's prediction with the classifiers' stopping rule. DisDF's learned tree
weights, eq. (70)-(72), are defined by classes (pairs of examples of different classes), so there
is no discriminative regressor: every tree weighs 1/T, eq. (36).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
from sklearn.base import RegressorMixin

from disdf._utils.folds import Folds, shuffled_folds
from disdf._utils.parameters import Constraint
from disdf._utils.sample_weights import example_weights
from disdf.cascade._cascade_base import _CascadeBase
from disdf.cascade._cascade_parameters import REGRESSOR_PARAMETERS
from disdf.cascade._df21_names import constructor_signature
from disdf.cascade._level_score import level_r2
from disdf.cascade._predictor import predictor_input


class CascadeForestRegressor(RegressorMixin, _CascadeBase):
    """gcForest cascade forest for regression, one or several outputs.

    Parameters
    ----------
    n_trees : int, default=100
        Trees per forest.
    forests : list of forest specs, default=None
        The forests of every level, as for :class:`~disdf.CascadeForestClassifier`, grown as
        regression forests (``"completely_random"``: ``ExtraTreesRegressor(max_features=1)``;
        ``"random_forest"``: ``RandomForestRegressor(max_features="sqrt")``; ``"extra_trees"``:
        ``ExtraTreesRegressor(max_features="sqrt")``). None: 2 completely-random tree forests and 2
        random forests, gcForest's level. DF21's regressor's level is 2 random forests and 2
        ``"extra_trees"`` forests.
    n_folds : int, default=3
        K of the K-fold cross-validation that produces the out-of-fold predictions.
    group_duplicates : bool, default=True
        Rows of equal features share a fold (no copy tells its held-out twin the target).
    max_levels : int, default=10
        Cap on the number of levels grown.
    patience : int, default=1
        Stop after this many consecutive levels fail to improve the best out-of-fold R^2 by more than
        ``tol``; levels after the best one are discarded.
    tol : float, default=0.0
        Minimum improvement of the out-of-fold R^2 that counts.
    augmentation : {"cumulative", "previous"}, default="cumulative"
        Level q's input: all earlier levels' predictions beside x, or the previous level's only.
    max_depth : int or None, default=None
        Depth limit of every tree; None grows trees fully.
    min_samples_split : int, default=2
        Fewest examples a node needs to be split.
    min_samples_leaf : int, default=1
        Fewest examples in a leaf.
    n_jobs : int, default=None
        Threads over the M x K fold models of a level. Results do not depend on it.
    random_state : int, RandomState or None, default=None
        Seeds the fold splits and every forest.
    engine : {"fast", "sklearn", "binned"}, default="fast"
        Who grows the trees: compiled squared-error trees (scikit-learn's split rules: with every
        feature a candidate and no bootstrap, ``DecisionTreeRegressor``'s tree), scikit-learn's
        regressors, or ``"binned"``: the compiled trees with features of more than ``n_bins + 1``
        distinct values split between bins of about equal counts at nodes of 64 examples or more
        (DF21's default), on forests of more than 256 examples.
    n_bins : int, default=255
        ``engine="binned"`` only: the most bins of a feature, in [2, 255].
    bin_subsample : int or None, default=None
        ``engine="binned"`` only: the bin edges placed on this many (>= 256) of a fold model's
        examples; None: on all.
    max_tree_samples : int or None, default=None
        Compiled engines only: the most examples a tree draws (a random forest's bootstrap draws
        min(n, max_tree_samples); a completely-random tree takes that many distinct examples).
    verbose : int, default=0
        Progress through the ``disdf`` logger: per level with 1 (its out-of-fold R^2), per forest
        with 2.
    test_vectors : {"fold_mean", "refit"}, default="fold_mean"
        A new example's prediction of a forest: the mean over its K fold models, or of one more
        forest grown on all the level's examples.
    keep_fitted_levels : {"memory", "disk"}, default="memory"
        Where the fitted levels' trees live; ``"disk"`` (compiled engines) writes each level to
        ``fitted_levels_dir`` and reads it back memory-mapped.
    fitted_levels_dir : str or path, default=None
        The folder under which ``keep_fitted_levels="disk"`` writes (required there).
    predictor : scikit-learn regressor or None, default=None
        A regressor on top of the cascade (DF21's ``use_predictor``), e.g.
        ``HistGradientBoostingRegressor()``: a clone is fitted on the raw features beside the last kept
        level's out-of-fold predictions, and ``predict`` is its. None: the mean of the last level's
        forests' predictions.
    level_estimators : list of (str, estimator) or None, default=None
        More members of every level beside ``forests``: each a regressor instance, cloned and fitted
        per fold like a forest's fold model, its out-of-fold ``predict`` joining the next level's
        input (:mod:`disdf.cascade._level_members`). None: the forests alone.
    out_of_bag : bool, default=False
        Each level's held-out predictions from bagging, not folds (DF21's layers): every forest grown
        once, on all the level's examples, each tree on a bootstrap sample (the completely-random and
        ``"extra_trees"`` forests' too), and an example's prediction joining the next level the mean of
        the trees whose sample left it (and its copies) out. A third of the trees of ``n_folds=3``,
        each on all the examples; ``n_folds`` is then not read, and ``test_vectors`` and
        ``level_estimators`` keep their defaults. A new example's prediction is the mean of all the
        forest's trees.

    Attributes
    ----------
    n_outputs_ : int
        Columns of y (1 for a 1-d y; ``predict`` then returns a 1-d array).
    n_levels_ : int
        Levels kept (up to the best-scoring one).
    level_scores_ : list of float
        Out-of-fold (with ``out_of_bag``, out-of-bag) R^2 of every level grown, including discarded ones.
    levels_ : list of :class:`~disdf.cascade.CascadeLevel`
        The kept levels, the first first: each level's forests, their fold models and tree weights.
    weights_ : list (level) of list (forest) of list (fold) of ndarray (T,)
        Tree weights of every fold model (1/T).
    predictor_ : regressor or None
        The fitted clone of ``predictor``, or None.
    feature_importances_ : ndarray of shape (n_features,)
        Impurity-based importances of the original features (decreases of the squared error),
        aggregated over the kept levels as the classifiers' are.
    level_feature_importances_ : list of ndarray
        Each kept level's importances over its whole input.
    fitted_levels_path_ : Path or None
        With ``keep_fitted_levels="disk"``, the folder of this fit's levels.
    n_features_in_ : int
        Number of features seen at fit.

    See Also
    --------
    disdf.CascadeForestClassifier : the same cascade for classes.

    References
    ----------
    .. [1] Z.-H. Zhou and J. Feng, "Deep forest", National Science Review 6(1), 74-86, 2019.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from sklearn.model_selection import train_test_split
    >>> from disdf import CascadeForestRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    >>> model = CascadeForestRegressor(n_trees=50, random_state=0).fit(X_train, y_train)
    >>> model.predict(X_test[:3]).shape
    (3,)
    >>> model.score(X_test, y_test) > 0.3
    True
    >>> model.transform(X_test[:3]).shape  # 4 forests x 1 output: the learned representation
    (3, 4)
    """

    _score_name: ClassVar[str] = "R^2"
    _regression: ClassVar[bool] = True
    _target_checks: ClassVar[dict[str, Any]] = {"multi_output": True, "y_numeric": True}
    #: Every parameter's type and range, checked by fit before any work.
    _parameter_table: ClassVar[dict[str, Constraint]] = REGRESSOR_PARAMETERS

    def __init__(
        self,
        *,
        n_trees: int = 100,
        forests: Sequence[str | Mapping[str, Any]] | None = None,
        n_folds: int = 3,
        group_duplicates: bool = True,
        max_levels: int = 10,
        patience: int = 1,
        tol: float = 0.0,
        augmentation: str = "cumulative",
        max_depth: int | None = None,
        min_samples_split: int = 2,
        min_samples_leaf: int = 1,
        n_jobs: int | None = None,
        random_state: int | np.random.RandomState | None = None,
        engine: str = "fast",
        verbose: int = 0,
        test_vectors: str = "fold_mean",
        keep_fitted_levels: str = "memory",
        fitted_levels_dir: str | os.PathLike | None = None,
        predictor: Any = None,
        n_bins: int = 255,
        bin_subsample: int | None = None,
        max_tree_samples: int | None = None,
        level_estimators: Sequence[tuple[str, Any]] | None = None,
        out_of_bag: bool = False,
    ) -> None:
        self.n_trees = n_trees
        self.forests = forests
        self.n_folds = n_folds
        self.group_duplicates = group_duplicates
        self.max_levels = max_levels
        self.patience = patience
        self.tol = tol
        self.augmentation = augmentation
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.engine = engine
        self.verbose = verbose
        self.test_vectors = test_vectors
        self.keep_fitted_levels = keep_fitted_levels
        self.fitted_levels_dir = fitted_levels_dir
        self.predictor = predictor
        self.n_bins = n_bins
        self.bin_subsample = bin_subsample
        self.max_tree_samples = max_tree_samples
        self.level_estimators = level_estimators
        self.out_of_bag = out_of_bag

    __signature__ = constructor_signature(__init__)

    # ------------------------------------------------------------------ the task's hooks
    @property
    def _out_of_bag(self) -> bool:
        return bool(self.out_of_bag)

    def _example_weights(self, y: np.ndarray, sample_weight: Any) -> np.ndarray | None:
        return example_weights(type(self).__name__, y, sample_weight, None)

    def _encode_target(self, y: np.ndarray) -> np.ndarray:
        """y as float64, (n,) or (n, n_outputs) as given (a 2-d y of one column stays 2-d in ``predict``)."""
        y = np.asarray(y, dtype=np.float64)
        self.n_outputs_ = 1 if y.ndim == 1 else y.shape[1]
        self._target_ndim = y.ndim
        return y

    def _memory_counts(self, y_code: np.ndarray) -> np.ndarray:
        counts = np.zeros(self.n_outputs_, dtype=np.int64)
        counts[0] = len(y_code)  # the examples, over n_outputs columns (no class pairs to count)
        return counts

    def _deal_folds(self, y_code: np.ndarray, seed: int, copies: np.ndarray | None) -> Folds:
        """Shuffled K-fold (:func:`~disdf._utils.folds.shuffled_folds`)."""
        return shuffled_folds(len(y_code), self.n_folds, seed, copies, who=type(self).__name__)

    def _level_score(self, vectors, y_code, sample_weight) -> float:
        """The out-of-fold R^2 of the mean of the level's forests' predictions (weighted)."""
        return level_r2(vectors, y_code, sample_weight)

    def _n_columns(self) -> int:
        return self.n_outputs_

    def _describe_columns(self, n_columns: int) -> str:
        return f"{n_columns} output(s)"

    # ----------------------------------------------------------------- predict
    def predict(self, X) -> np.ndarray:
        """The mean of the last kept level's forests' predictions; with a ``predictor``, its prediction
        on the raw features and those predictions.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_outputs)
            1-d when y was 1-d at fit.
        """
        if getattr(self, "predictor_", None) is not None:
            vectors, raw = self._last_class_vectors(X, with_input=True)
            return self.predictor_.predict(predictor_input(raw, vectors))
        vectors = self._last_class_vectors(X)
        mean = vectors.reshape(vectors.shape[0], -1, self.n_outputs_).mean(axis=1)
        return mean if self._target_ndim == 2 else mean[:, 0]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags
