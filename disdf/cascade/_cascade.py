"""The gcForest cascade classifier (Zhou & Feng, 2017; the paper's section 2 and its "gcF").

The level loop is :class:`~disdf.cascade._cascade_base._CascadeBase`'s; here is what makes it a
classifier: labels encoded as class codes, stratified folds, the level scored by the out-of-fold
accuracy of its summed class vectors, and ``predict_proba``. gcForest weighs every tree 1/T, eq. (36);
DisDF (:class:`disdf.DisDFClassifier`) learns the weights.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from sklearn.base import ClassifierMixin

from disdf._utils.folds import Folds, stratified_folds
from disdf._utils.labels import encode_labels
from disdf._utils.sample_weights import example_weights
from disdf.cascade._cascade_base import _CascadeBase
from disdf.cascade._df21_names import constructor_signature
from disdf.cascade._level_score import level_accuracy
from disdf.cascade._predictor import predictor_input
from disdf.metric._pair_distances import PairDistances


class CascadeForestClassifier(PairDistances, ClassifierMixin, _CascadeBase):
    """gcForest cascade forest (the paper's baseline, "gcF").

    Parameters
    ----------
    n_trees : int, default=100
        Trees per forest (the paper's T).
    forests : list of forest specs, default=None
        The forests of every level; None means 2 completely-random tree forests
        and 2 random forests. See :mod:`disdf.forests._specs`.
    n_folds : int, default=3
        K of the K-fold cross-validation that produces class vectors.
    group_duplicates : bool, default=True
        Rows of equal features share a fold, so that no copy in the training folds tells its held-out
        twin the label through the out-of-fold vectors (which choose the depth and feed the next level).
        Without repeated rows the folds are ``StratifiedKFold``'s either way; False: the paper's folds.
    max_levels : int, default=10
        Cap on the number of levels grown.
    patience : int, default=1
        Stop after this many consecutive levels fail to improve the best
        out-of-fold accuracy by more than ``tol``; levels after the best one are
        discarded. 1 reproduces the implementation the paper modified.
    tol : float, default=0.0
        Minimum improvement of the level score that counts.
    augmentation : {"cumulative", "previous"}, default="cumulative"
        Level q's input: ``"cumulative"`` is eq. (40), (x, v^(1), ..., v^(q-1));
        ``"previous"`` is (x, v^(q-1)), the official gcForest's choice.
    max_depth : int or None, default=None
        Depth limit of every tree; None grows trees fully.
    min_samples_split : int, default=2
        Fewest examples a node needs to be split.
    min_samples_leaf : int, default=1
        Fewest examples in a leaf.
    n_jobs : int, default=None
        Threads over the M x K fold models of a level (joblib semantics).
        Results do not depend on it.
    random_state : int, RandomState or None, default=None
        Seeds the fold splits and every forest.
    engine : {"fast", "sklearn", "binned"}, default="fast"
        Who grows the trees: the compiled engine of :mod:`disdf.forests._compiled`
        (scikit-learn's split rules, 10-100x faster on a few hundred examples)
        or scikit-learn's forests (the reference). They are the same learner
        by an equivalence test in every cell of the paper's protocol
        (``scripts/evidence/compare_engines.py``), but draw different random streams,
        so one seed gives different trees under each. ``"binned"`` is
        ``"fast"`` with features of more than ``n_bins + 1`` distinct values split
        between at most ``n_bins`` bins of about equal counts at nodes of at least
        64 examples (DF21's approach, for large n): on 256 examples or fewer,
        or features of fewer values, the trees of ``"fast"``.
    n_bins : int, default=255
        ``engine="binned"`` only: the most bins of a feature, in [2, 255] (DF21's ``n_bins``); a
        feature of at most ``n_bins + 1`` values keeps them. Best splits only (random forests; the
        completely-random trees draw thresholds), at nodes of 64 examples or more.
    bin_subsample : int or None, default=None
        ``engine="binned"`` only: the bin edges placed on this many (>= 256) of a fold model's
        examples, drawn from its seed (DF21's ``bin_subsample``); None: on all of them.
    max_tree_samples : int or None, default=None
        Compiled engines only, for large data: the most examples a tree draws from its fold
        model's n. A random forest's tree bootstraps min(n, max_tree_samples) draws
        (scikit-learn's ``max_samples``); a completely-random tree takes that many distinct
        examples, drawn without replacement. On n <= max_tree_samples the trees are those of
        None (all n, the paper's). A tree's cost grows with its examples; what the cap costs in
        accuracy at 10^6 rows: results/PERFORMANCE.md.
    verbose : int, default=0
        Progress through the ``disdf`` logger: per level with 1 (its out-of-fold accuracy, time,
        elapsed time and peak memory), per forest too with 2. Without a logging configuration
        the lines go to stderr; where stderr is a terminal and tqdm is installed, above a progress
        bar over the levels (:mod:`disdf._utils.progress`).
    test_vectors : {"fold_mean", "refit"}, default="fold_mean"
        Where a new example's class vector of a forest comes from.
        ``"fold_mean"``: the mean over the forest's K fold models (DF21's
        choice; no forest is grown twice). ``"refit"``: as the code the paper
        modified (leopiney/deep-forest), one more forest per forest grown on
        all the level's training examples, its trees averaged uniformly (that
        code's prediction path has no per-tree vectors, so DisDF's weights
        then shape the training vectors and the depth, not the test-time
        vectors). The fold models, out-of-fold vectors, level scores and depth
        are the same under both; the refit forest's seed is derived from the
        forest's fold seeds, so no other random draw moves.
    keep_fitted_levels : {"memory", "disk"}, default="memory"
        Where the fitted levels' trees live. ``"disk"`` (compiled engines):
        each level's node arrays are written to ``fitted_levels_dir`` once it
        is fitted and read back memory-mapped, so fit and predict hold one
        level's trees at a time (DF21's partial mode; :mod:`disdf.cascade._fitted_levels`).
        The same trees and predictions.
    predictor : scikit-learn classifier or None, default=None
        A classifier on top of the cascade (DF21's ``use_predictor``), e.g.
        ``HistGradientBoostingClassifier()``: a clone is fitted on the raw features beside the last
        kept level's class vectors (the out-of-fold ones, from fold models that never saw the
        example), and ``predict``/``predict_proba`` are its. None: the paper's average of the last
        level's class vectors. ``transform`` gives the class vectors either way. A ``random_state``
        of the predictor left at None is seeded from ``random_state``.
    fitted_levels_dir : str or path, default=None
        The folder under which ``keep_fitted_levels="disk"`` writes (required there): each fit
        writes into a fresh subfolder of its own (``fitted_levels_path_``), so models, clones and
        parallel grid-search fits may share it. None with ``"memory"``.
    class_weight : "balanced", dict or None, default=None
        Weights of the classes, as one weight per training example multiplied into ``fit``'s
        ``sample_weight`` (scikit-learn's ``compute_sample_weight``): ``"balanced"`` weighs class c
        by n / (n_classes * n_c), a dict ``{label: weight >= 0}`` by its entries (1 for a label it
        does not name). On every engine; the weights enter the trees, the level score and DisDF's
        pairs as ``sample_weight`` does. None: every class weighs 1.
    level_estimators : list of (str, estimator) or None, default=None
        More members of every level beside ``forests`` (scikit-learn's stacking estimators take
        theirs so): each a classifier instance, cloned and fitted per fold like a forest's fold
        model, its out-of-fold ``predict_proba`` joining the next level's input
        (:mod:`disdf.cascade._level_members`). ``forests=[]`` with members: a level of members only.
        DisDF's tree weights apply to the forests' trees; a member weighs 1. None: the forests alone.
    out_of_bag : bool, default=False
        Each level's class vectors from bagging, not folds (DF21's layers): every forest grown once,
        on all the level's examples, each tree on a bootstrap sample (the completely-random
        forests' too), and an example's vector joining the next level the mean of the trees whose
        sample left it (and its copies) out. A third of the trees of ``n_folds=3``, each on all the
        examples: prediction costs about a third, the fit less by an amount that depends on the data
        (results/bench/predict_df21.csv). Not the paper's cross-validated class vectors; ``n_folds``
        is then not read, and ``test_vectors`` and ``level_estimators`` keep their defaults. DisDF
        has no such option: its tree weights are fitted on each fold model's held-out examples,
        eq. (70)-(72).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_levels_ : int
        Levels kept (up to the best-scoring one).
    level_scores_ : list of float
        Out-of-fold (with ``out_of_bag``, out-of-bag) accuracy of every level grown, including
        discarded ones.
    levels_ : list of :class:`~disdf.cascade.CascadeLevel`
        The kept levels, the first first: each level's forests, their fold models and tree weights.
    weights_ : list (level) of list (forest) of list (fold) of ndarray (T,)
        Tree weights of every fold model (uniform for gcForest).
    fitted_levels_path_ : Path or None
        With ``keep_fitted_levels="disk"``, the folder of this fit's levels: a fresh subfolder of
        ``fitted_levels_dir`` (no other fit writes there), removed when the estimator is refitted
        or garbage-collected. A pickled or copied estimator carries its trees, not the folder.
    predictor_ : classifier or None
        The fitted clone of ``predictor`` (on the class codes ``0 .. n_classes - 1``), or None.
    feature_importances_ : ndarray of shape (n_features,)
        Impurity-based importances of the original features, summing to 1: each kept level's
        restricted to the raw features and renormalised, averaged over the levels
        (:mod:`disdf.cascade._importances` says how; the cascade's forests', not the predictor's).
    level_feature_importances_ : list of ndarray
        Each kept level's importances over its whole input: raw features, then class vectors.
    n_features_in_ : int
        Number of features seen at fit.

    See Also
    --------
    disdf.DisDFClassifier : the same cascade with learned tree weights.

    References
    ----------
    .. [1] Z.-H. Zhou and J. Feng, "Deep Forest: Towards an Alternative to Deep Neural
       Networks", Proceedings of IJCAI 2017, pp. 3553-3559; extended as "Deep forest",
       National Science Review 6(1), 74-86, 2019.
    .. [2] L. V. Utkin and M. A. Ryabinin, "Discriminative Metric Learning with Deep
       Forest", International Journal on Artificial Intelligence Tools, 2019.
       arXiv:1705.09620 (its baseline "gcF").

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.model_selection import train_test_split
    >>> from disdf import CascadeForestClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> X_train, X_test, y_train, y_test = train_test_split(X, y, stratify=y, random_state=0)
    >>> model = CascadeForestClassifier(n_trees=20, random_state=0).fit(X_train, y_train)
    >>> model.n_levels_ >= 1 and len(model.level_scores_) >= model.n_levels_
    True
    >>> model.predict(X_test[:3]).shape
    (3,)
    >>> model.score(X_test, y_test) > 0.85
    True
    >>> model.transform(X_test[:3]).shape  # 4 forests x 3 classes: the learned representation
    (3, 12)
    """

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
        class_weight: str | Mapping[Any, float] | None = None,
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
        self.class_weight = class_weight
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
        return example_weights(type(self).__name__, y, sample_weight, self.class_weight)

    def _encode_target(self, y: np.ndarray) -> np.ndarray:
        self.classes_, y_code = encode_labels(type(self).__name__, y)
        if len(self.classes_) < 2:
            raise ValueError(
                f"The target y must have at least 2 classes; got only one class ({self.classes_[0]!r})"
            )
        return y_code

    def _memory_counts(self, y_code: np.ndarray) -> np.ndarray:
        return np.bincount(y_code)

    #: The fewest held-out rows a fold may have when copies are grouped: DisDF's cross-fitting cuts a
    #: held-out set in two; gcForest's folds the same, so that both cascades share level 1.
    _fewest_held_out_rows = 2

    def _deal_folds(self, y_code: np.ndarray, seed: int, copies: np.ndarray | None) -> Folds:
        """Stratified folds (:func:`~disdf._utils.folds.stratified_folds`)."""
        return stratified_folds(
            y_code, self.n_folds, seed, copies, who=type(self).__name__, min_rows=self._fewest_held_out_rows
        )

    def _level_score(self, vectors, y_code, sample_weight) -> float:
        """The out-of-fold accuracy of the summed class vectors (weighted by the examples' weights)."""
        return level_accuracy(vectors, y_code, sample_weight)

    def _n_columns(self) -> int:
        return len(self.classes_)

    # ----------------------------------------------------------------- predict
    def predict_proba(self, X) -> np.ndarray:
        """Sum of the last level's class vectors, normalised to sum to 1; with a ``predictor``, its
        probabilities on the raw features and those class vectors.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.
        """
        if getattr(self, "predictor_", None) is not None:
            vectors, raw = self._last_class_vectors(X, with_input=True)
            return self.predictor_.predict_proba(predictor_input(raw, vectors))
        vectors = self._last_class_vectors(X)
        n_classes = len(self.classes_)
        total = vectors.reshape(vectors.shape[0], -1, n_classes).sum(axis=1)
        return total / total.sum(axis=1, keepdims=True)

    def predict_log_proba(self, X) -> np.ndarray:
        """The logarithm of :meth:`predict_proba`, shape (n_samples, n_classes), columns in the order of
        ``classes_`` (−inf where a class has probability 0)."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict(self, X) -> np.ndarray:
        """Class with the largest sum of the last level's class vectors.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels from ``classes_``.
        """
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]
