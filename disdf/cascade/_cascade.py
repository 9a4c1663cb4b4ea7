"""The gcForest cascade (Zhou & Feng, 2017; the paper's section 2 and its "gcF").

Each level holds M forests. For each forest, K fold models are trained by
stratified K-fold cross-validation; the out-of-fold class vectors of the
training examples feed the next level, eq. (40), and a new example's class
vector is the mean of the K fold models' vectors (no refit on all data).
A forest's class vector is a weighted sum of its trees' class-probability
vectors, eq. (41); gcForest uses w = 1/T, eq. (36). DisDF
(:class:`disdf.DisDFClassifier`) learns w. A forest with its K fold models is
one :class:`~disdf.cascade._forest_fit.ForestFit`; a level is a list of them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from disdf._utils.float32_input import INPUT_DTYPES, as_float32, check_float32_range, float32_columns
from disdf._utils.folds import duplicate_groups, stratified_folds
from disdf._utils.labels import encode_labels
from disdf._utils.malloc_trim import release_free_memory
from disdf._utils.parameters import Constraint, DictEntrySetParams, check_estimator_parameters
from disdf._utils.persistence import VersionedPickle
from disdf._utils.progress import FitProgress
from disdf._utils.random_seeds import SEED_HIGH
from disdf._utils.sample_weights import check_fold_weights, example_weights
from disdf._utils.tree_weights import uniform_weights
from disdf.cascade._cascade_parameters import CASCADE_PARAMETERS
from disdf.cascade._df21_names import constructor_signature, refuse_df21_names
from disdf.cascade._fit_memory import _FitMemoryCheck
from disdf.cascade._fitted_levels import FitFolder, new_fit_folder, release_level, store_level
from disdf.cascade._forest_fit import CascadeLevel, LevelFit
from disdf.cascade._importances import FeatureImportances
from disdf.cascade._level_growth import grow_level_models, refit_forests
from disdf.cascade._level_score import StoppingRule, level_accuracy
from disdf.cascade._predictor import check_predictor_weights, fit_predictor, predictor_input
from disdf.forests._specs import ENGINE_TREE_PARAMS, parse_forest_specs
from disdf.metric._pair_distances import PairDistances


class CascadeForestClassifier(
    DictEntrySetParams,
    VersionedPickle,
    PairDistances,
    FeatureImportances,
    _FitMemoryCheck,
    ClassifierMixin,
    TransformerMixin,
    BaseEstimator,
):
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

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_levels_ : int
        Levels kept (up to the best-scoring one).
    level_scores_ : list of float
        Out-of-fold accuracy of every level grown, including discarded ones.
    levels_ : list of CascadeLevel
        The kept levels.
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

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        # Before __init__, whose bare "unexpected keyword argument" would not say what to use instead.
        refuse_df21_names(cls.__name__, kwargs)
        return super().__new__(cls)

    def set_params(self, **params: Any) -> Any:
        """scikit-learn's ``set_params`` (and ``name__key`` for a dict parameter); a DF21 name is
        refused with its disdf equivalent."""
        refuse_df21_names(type(self).__name__, params)
        return super().set_params(**params)

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

    __signature__ = constructor_signature(__init__)

    # ------------------------------------------------------------------ checks
    #: Every parameter's type and range, checked by fit before any work (disdf.cascade._cascade_parameters).
    _parameter_table: ClassVar[dict[str, Constraint]] = CASCADE_PARAMETERS

    def _validate_hyperparameters(self) -> list[tuple[str, dict[str, Any]]]:
        """Check every parameter against the table (InvalidParameterError naming the first wrong one);
        return the level's forests as ``(kind, extra_params)``."""
        check_estimator_parameters(self)
        return parse_forest_specs(self.forests, self.engine)

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "levels_")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags

    # --------------------------------------------------------------------- fit
    def fit(self, X, y, sample_weight=None) -> CascadeForestClassifier:
        """Grow the cascade level by level until the out-of-fold accuracy stops improving.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the examples (>= 0, times ``class_weight``'s): in every tree's split
            criterion and leaf values on every engine, in the level score (weighted out-of-fold
            accuracy, which picks the depth) and, for DisDF, in the pairs of eq. (70)-(72). None
            weighs every example 1 (the same trees and numbers as weights of 1).

        Returns
        -------
        self
        """
        return self._fit_with_first_level(X, y, None, sample_weight)

    def _fit_with_first_level(
        self, X, y, first_level: LevelFit | None, sample_weight=None
    ) -> CascadeForestClassifier:
        """:meth:`fit`, with level 1 taken from ``first_level`` when given: a level grown by
        :meth:`_grow_first_level` of an estimator that agrees with this one on the parameters that
        decide level 1 (:data:`~disdf.cascade._shared_first_level.LEVEL_ONE_PARAMS`) and has at least
        as many trees. Its first ``n_trees`` trees are used instead of growing level 1 again; the
        result is exactly that of ``fit(X, y)``
        (:func:`~disdf.cascade._shared_first_level.fit_sharing_first_level`)."""
        self._fit(*self._prepare_fit(X, y, sample_weight), first_level=first_level)
        del self._training_vectors  # only fit_transform returns them: a fitted model stays small
        return self

    def _grow_first_level(self, X, y) -> LevelFit:
        """Grow level 1's fold models as :meth:`fit` would, before any weights: to share.

        Several estimators that differ only in ``n_trees``, the method or what decides later
        levels grow the same level 1 from the same seeds; it is grown once at the largest
        ``n_trees`` and passed to each one's :meth:`_fit_with_first_level`."""
        X, y_code, specs, rng, tree_params, sample_weight = self._prepare_fit(X, y)
        return self._fit_level_trees(X, y_code, specs, rng, tree_params, sample_weight, self._copies_of(X))

    def _prepare_fit(
        self, X, y, sample_weight=None
    ) -> tuple[np.ndarray, np.ndarray, list, np.random.RandomState, dict[str, Any], np.ndarray | None]:
        """Validate; return (X, y_code, specs, rng, tree_params, example weights or None) for the levels."""
        specs = self._validate_hyperparameters()
        X, y = validate_data(self, X, y, dtype=INPUT_DTYPES)
        check_float32_range(X)
        weights = example_weights(type(self).__name__, y, sample_weight, self.class_weight)
        self._check_weight_scale(weights)
        check_predictor_weights(type(self).__name__, self.predictor, weights)
        X = as_float32(X)  # all the trees read (a float64 X is not kept: half the memory)
        self.classes_, y_code = encode_labels(type(self).__name__, y)
        n_samples = X.shape[0]
        if len(self.classes_) < 2:
            raise ValueError(
                f"The target y must have at least 2 classes; got only one class ({self.classes_[0]!r})"
            )
        if n_samples < self.n_folds:
            raise ValueError(
                f"n_samples={n_samples} is fewer than n_folds={self.n_folds}: "
                "K-fold class vectors need at least one example per fold"
            )
        self._check_fit_memory(np.bincount(y_code), X.shape[1])
        tree_params = {
            "max_depth": self.max_depth,
            "min_samples_split": self.min_samples_split,
            "min_samples_leaf": self.min_samples_leaf,
            **{name: getattr(self, name) for name in ENGINE_TREE_PARAMS},  # the compiled engines'
        }
        return X, y_code, specs, check_random_state(self.random_state), tree_params, weights

    #: The fewest held-out rows a fold may have when copies are grouped: DisDF's cross-fitting cuts a
    #: held-out set in two; gcForest's folds the same, so that both cascades share level 1.
    _fewest_held_out_rows = 2

    def _check_weight_scale(self, weights: np.ndarray | None) -> None:
        """The trees and the level score read only the weights' ratios: any finite scale fits."""

    def _fit(self, X, y_code, specs, rng, tree_params, sample_weight, first_level: LevelFit | None = None):
        """The level loop; ``first_level`` (grown with this estimator's seeds) replaces growing level 1."""
        n_samples = X.shape[0]
        folder = None
        if self.keep_fitted_levels == "disk":  # this fit's own folder, made before any tree grows
            # LevelsFolder (checked by _prepare_fit) requires the folder with keep_fitted_levels="disk"
            assert self.fitted_levels_dir is not None
            folder = new_fit_folder(self.fitted_levels_dir, type(self).__name__)
        levels: list[CascadeLevel] = []
        scores: list[float] = []
        previous_vectors: list[np.ndarray] = []
        stopping = StoppingRule(self.tol, self.patience, self.max_levels)
        copies = self._copies_of(X)  # once per fit: every level groups the same rows of X
        with FitProgress(type(self).__name__, int(self.verbose), self.max_levels) as progress:
            for level_index in range(self.max_levels):
                progress.start_level()
                features = self._level_input(X, previous_vectors)
                if level_index == 0 and first_level is not None:
                    fit = self._take_first_level(first_level, specs, rng, sample_weight)
                else:
                    fit = self._fit_level_trees(
                        features, y_code, specs, rng, tree_params, sample_weight, copies
                    )
                forests, weight_fit = self._level_weights(fit, y_code, level_index)
                oof = [forest.out_of_fold_vectors(fit.folds, n_samples) for forest in forests]
                score = level_accuracy(oof, y_code, sample_weight)
                if self.verbose >= 2:  # each forest alone: which of them carries the level
                    for position, (forest, vectors) in enumerate(zip(forests, oof, strict=True)):
                        accuracy = level_accuracy([vectors], y_code, sample_weight)
                        progress.forest(level_index, position, forest.kind, accuracy)
                scores.append(score)
                levels.append(CascadeLevel([forest.fitted() for forest in forests], weight_fit))
                if folder is not None:  # its trees leave memory before the next level grows
                    store_level(levels[-1].models, folder, level_index)
                previous_vectors.append(np.hstack(oof))
                # The level's held-out (n, T, C) probabilities are spent: free them before the next
                # level grows (on all of MNIST they are 1.9 GB per level).
                freed = features.nbytes + sum(h.leaves.nbytes for f in fit.forests for h in f.held_out)
                del fit, forests, oof, features
                # glibc keeps what a large level freed unless asked (disdf._utils.malloc_trim)
                release_free_memory(freed)
                progress.level(level_index, score)
                if stopping.stops_after(level_index, score):
                    break
            progress.stopped(stopping.kept, stopping.best, stopping.reason)
        n_keep = stopping.kept

        self.levels_ = levels[:n_keep]
        # fit_transform's answer: the kept level's out-of-fold vectors (then dropped, see there)
        self._training_vectors = previous_vectors[n_keep - 1]
        if self.test_vectors == "refit":
            inputs = [self._level_input(X, previous_vectors[:q]) for q in range(n_keep)]
            for level, features in zip(self.levels_, inputs, strict=True):
                level.refit_models = refit_forests(
                    level, features, y_code, specs, self.engine, len(self.classes_), self.n_trees,
                    tree_params, self.n_jobs, sample_weight,
                )  # fmt: skip
        self.n_levels_ = n_keep
        self.level_scores_ = scores
        self.weights_ = [level.weights for level in self.levels_]
        self.predictor_ = fit_predictor(self.predictor, X, self._training_vectors, y_code, sample_weight, rng)
        # this fit's folder becomes the estimator's, the previous fit's goes (disdf.cascade._fitted_levels)
        self._fit_folder = FitFolder.replace(getattr(self, "_fit_folder", None), self, folder, n_keep)
        self.fitted_levels_path_ = folder
        return self

    def _level_input(self, X: np.ndarray, previous_vectors: list[np.ndarray]) -> np.ndarray:
        """x^(q-1) of eq. (40), or (x, v^(q-1)) for the "previous" augmentation, as the float32 values
        the trees read (the same values as the float64 columns converted, without a float64 copy)."""
        if self.augmentation == "previous":
            previous_vectors = previous_vectors[-1:]
        return float32_columns([X, *previous_vectors])

    def _draw_level_seeds(self, specs, rng) -> tuple[int, np.ndarray]:
        # Every seed is drawn here, in a fixed order, so results do not depend on n_jobs.
        split_seed = int(rng.randint(SEED_HIGH))
        return split_seed, rng.randint(SEED_HIGH, size=(len(specs), self.n_folds))

    def _copies_of(self, X: np.ndarray) -> np.ndarray | None:
        """The groups of equal rows of X that share a fold at every level (None: group_duplicates off)."""
        return duplicate_groups(X) if self.group_duplicates else None

    def _fit_level_trees(self, features, y_code, specs, rng, tree_params, sample_weight, copies) -> LevelFit:
        split_seed, forest_seeds = self._draw_level_seeds(specs, rng)
        min_rows, who = self._fewest_held_out_rows, type(self).__name__
        folds = stratified_folds(y_code, self.n_folds, split_seed, copies, who=who, min_rows=min_rows)
        check_fold_weights(type(self).__name__, sample_weight, folds)
        # Both engines grow and apply their trees on float32 values (scikit-learn converts any X):
        # converting once here, not per fold model, halves every fold's copy of the training rows.
        features = np.asarray(features, dtype=np.float32)
        forests = grow_level_models(
            specs, self.engine, features, y_code, folds, forest_seeds, self.n_jobs,
            n_classes=len(self.classes_), n_trees=self.n_trees, tree_params=tree_params,
            sample_weight=sample_weight,
        )  # fmt: skip
        return LevelFit(folds, split_seed, forests, y_code, sample_weight)

    def _take_first_level(self, shared: LevelFit, specs, rng, sample_weight=None) -> LevelFit:
        """Use a level 1 grown elsewhere, after checking it is the one this estimator would grow."""
        split_seed, forest_seeds = self._draw_level_seeds(specs, rng)
        seed_key = (split_seed, tuple(tuple(int(s) for s in row) for row in forest_seeds))
        return shared.taken_as_first_level(seed_key, sample_weight, self.n_trees)

    def _level_weights(self, fit: LevelFit, y_code: np.ndarray, level_index: int):
        """The level's forests with the tree weights of every fold model: 1/T for gcForest, eq. (36)."""
        forests = [
            forest.with_weights([uniform_weights(held.n_trees) for held in forest.held_out])
            for forest in fit.forests
        ]
        return forests, None

    # ----------------------------------------------------------------- predict
    def _last_level_input(self, X) -> np.ndarray:
        """The last kept level's input for new examples: x and the earlier levels' vectors, eq. (40)."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=INPUT_DTYPES)
        check_float32_range(X)
        X = as_float32(X)
        previous_vectors: list[np.ndarray] = []
        for level in self.levels_[:-1]:
            previous_vectors.append(self._level_vectors(level, self._level_input(X, previous_vectors)))
        return self._level_input(X, previous_vectors)

    def _last_class_vectors(self, X, with_input: bool = False):
        """The last kept level's class vectors of new examples (and, ``with_input``, their raw
        features as the trees read them: the first columns of the level's input)."""
        check_is_fitted(self)
        features = self._last_level_input(X)
        vectors = self._level_vectors(self.levels_[-1], features)
        return (vectors, features[:, : self.n_features_in_]) if with_input else vectors

    def _level_vectors(self, level: CascadeLevel, features: np.ndarray) -> np.ndarray:
        """A level's class vectors of new examples; on disk, its trees' pages are then let go."""
        vectors = level.class_vectors(features, self.n_jobs)
        if self.keep_fitted_levels == "disk":
            release_level(level.models)
        return vectors

    def fit_transform(self, X, y, sample_weight=None) -> np.ndarray:
        """Fit, and return the training examples' *out-of-fold* class vectors of the kept level.

        As scikit-learn's cross-fitted transformers (``TargetEncoder``,
        ``StackingClassifier``) do: ``fit(X, y).transform(X)`` would give
        in-sample vectors, from fold models that trained on those very
        examples (for DisDF also from weights fitted on their labels), which
        overstate their quality. These are the vectors the cascade itself
        scored the level with and fed to the next one: each from the fold
        model that never saw the example, and for DisDF with
        ``weight_fitting="cross_fit"`` weights that never saw its label.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            As for :meth:`fit`.

        Returns
        -------
        ndarray of shape (n_samples, M * n_classes)
        """
        self._fit(*self._prepare_fit(X, y, sample_weight))
        vectors = self._training_vectors
        del self._training_vectors
        return vectors

    def transform(self, X) -> np.ndarray:
        """The learned representation v: the last kept level's M concatenated class vectors.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, M * n_classes)
            Each forest's class vector (eq. (41), the mean over its K fold
            models), forest after forest.
        """
        return self._last_class_vectors(X)

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
