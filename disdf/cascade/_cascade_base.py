"""What the cascades share: the gcForest level loop (Zhou & Feng, 2017; the paper's section 2) for a
classifier's class vectors or a regressor's predictions.

Each level holds M forests. For each forest, K fold models are trained by K-fold cross-validation;
the out-of-fold vectors of the training examples feed the next level, eq. (40), and a new example's
vector is the mean of the K fold models' vectors (no refit on all data). A forest's vector is a
weighted sum of its trees' vectors, eq. (41): class-probability vectors for the classifiers
(:class:`disdf.CascadeForestClassifier`, w = 1/T, eq. (36); :class:`disdf.DisDFClassifier`, w
learned), predictions for :class:`disdf.CascadeForestRegressor` (w = 1/T). A forest with its K fold
models is one :class:`~disdf.cascade._forest_fit.ForestFit`; a level is a list of them.

:class:`_CascadeBase` is the loop; a task says, through a few hooks, how its target is checked and
encoded (``_encode_target``), how rows are dealt into folds (``_deal_folds``), how a level is scored
(``_level_score``: the out-of-fold accuracy, or R^2) and how many columns a fold model's vector has
(``_n_columns``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from disdf._utils.float32_input import INPUT_DTYPES, as_float32, check_float32_range, float32_columns
from disdf._utils.folds import Folds, duplicate_groups
from disdf._utils.malloc_trim import release_free_memory
from disdf._utils.parameters import (
    Constraint,
    DictParameter,
    check_estimator_parameters,
    split_nested_params,
)
from disdf._utils.persistence import VersionedPickle
from disdf._utils.progress import FitProgress
from disdf._utils.random_seeds import SEED_HIGH
from disdf._utils.sample_weights import check_fold_weights
from disdf._utils.tree_weights import uniform_weights
from disdf.cascade._cascade_level import CascadeLevel
from disdf.cascade._cascade_parameters import CASCADE_PARAMETERS
from disdf.cascade._df21_names import refuse_absent_parameters
from disdf.cascade._fit_inputs import FitInputs
from disdf.cascade._fit_memory import check_estimator_memory
from disdf.cascade._fitted_levels import FitFolder, new_fit_folder, release_level, store_level
from disdf.cascade._forest_fit import LevelFit
from disdf.cascade._importances import level_importances, original_feature_importances
from disdf.cascade._level_growth import grow_level_models, refit_forests
from disdf.cascade._level_members import LevelMember, check_member_weights, level_members
from disdf.cascade._level_score import StoppingRule
from disdf.cascade._out_of_bag_levels import all_rows_fold, bootstrapped
from disdf.cascade._predictor import check_predictor_weights, fit_predictor
from disdf.forests._specs import ENGINE_TREE_PARAMS, parse_forest_specs


class _CascadeBase(VersionedPickle, TransformerMixin, BaseEstimator):
    """The cascade's level loop, shared by the classifiers and the regressor (module docstring); not
    an estimator of its own. Subclasses define ``__init__`` (the parameters of
    :data:`~disdf.cascade._cascade_parameters.CASCADE_PARAMETERS`) and the task's hooks."""

    #: The fit's name of the level score in progress lines.
    _score_name: ClassVar[str] = "accuracy"
    #: Whether the forests are regression forests (their vectors predictions, not class distributions).
    _regression: ClassVar[bool] = False
    #: The checks of y by ``validate_data`` (a regressor's: numeric, one or more outputs).
    _target_checks: ClassVar[dict[str, Any]] = {}

    #: Dict parameters whose entries set_params sets one at a time (none by default; DisDF's options).
    _dict_parameters: ClassVar[dict[str, DictParameter]] = {}
    #: Parameters of a sibling estimator that this one lacks, and why: refused by name (not a bare TypeError).
    _absent_parameters: ClassVar[dict[str, str]] = {}

    def set_params(self, **params: Any) -> Any:
        """scikit-learn's ``set_params``, and ``name__key=value`` for a dict parameter (as
        GridSearchCV passes ``solver_options__tol``): the parameter becomes a copy of its dict
        (None: of its default) with that entry. ``name__key`` for a parameter that is neither a
        dict parameter nor an estimator raises a ValueError naming it (scikit-learn would call
        ``set_params`` on the value: an AttributeError on None). Nothing changes if one fails. A DF21
        name is refused with its disdf equivalent."""
        owner = type(self).__name__
        refuse_absent_parameters(owner, params, self._absent_parameters)
        plain, entries = split_nested_params(
            owner, params, self._get_param_names(), self.get_params(deep=False), self._dict_parameters
        )
        updated = {
            name: self._dict_parameters[name].updated(
                owner, name, plain.get(name, getattr(self, name)), values
            )
            for name, values in entries.items()
        }
        super().set_params(**plain)
        for name, value in updated.items():
            setattr(self, name, value)
        return self

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        # Before __init__, whose bare "unexpected keyword argument" would not say what to use instead.
        refuse_absent_parameters(cls.__name__, kwargs, cls._absent_parameters)
        return super().__new__(cls)

    # ------------------------------------------------------------------ checks
    #: Every parameter's type and range, checked by fit before any work (disdf.cascade._cascade_parameters).
    _parameter_table: ClassVar[dict[str, Constraint]] = CASCADE_PARAMETERS

    def _validate_hyperparameters(self) -> list[tuple[Any, dict[str, Any]]]:
        """Check every parameter against the table (InvalidParameterError naming the first wrong one);
        return the level's members: the forests as ``(kind, extra_params)``, then each of
        ``level_estimators`` as ``(LevelMember, {})``."""
        check_estimator_parameters(self)
        members = level_members(type(self).__name__, self.level_estimators, self._regression)
        forests: list[tuple[Any, dict[str, Any]]] = list(
            parse_forest_specs(self.forests, self.engine, self._regression, bool(members))
        )
        if self._out_of_bag:
            forests = bootstrapped(forests)
        return forests + [(member, {}) for member in members]

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "levels_")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags

    # ------------------------------------------------------------------ the task's hooks
    def _example_weights(self, y: np.ndarray, sample_weight: Any) -> np.ndarray | None:
        """One weight per example from ``sample_weight`` (and a classifier's ``class_weight``), or None."""
        raise NotImplementedError

    def _encode_target(self, y: np.ndarray) -> np.ndarray:
        """The target as the forests grow on it (setting ``classes_`` or ``n_outputs_``), checked."""
        raise NotImplementedError

    def _memory_counts(self, y_code: np.ndarray) -> np.ndarray:
        """Per column of a fold model's vectors, its examples (the memory check's class counts)."""
        raise NotImplementedError

    def _deal_folds(self, y_code: np.ndarray, seed: int, copies: np.ndarray | None) -> Folds:
        """The level's K folds, copies of a row in one fold (``copies``: their groups, or None)."""
        raise NotImplementedError

    def _level_score(
        self, vectors: Sequence[np.ndarray], y_code: np.ndarray, sample_weight: np.ndarray | None
    ) -> float:
        """The out-of-fold score of a level's M vectors (higher is better; 1.0 is perfect)."""
        raise NotImplementedError

    def _n_columns(self) -> int:
        """Columns of a fold model's vector: the classes, or the outputs."""
        raise NotImplementedError

    @property
    def _out_of_bag(self) -> bool:
        """Whether each level grows every forest once and holds out by bagging (``out_of_bag``;
        :mod:`disdf.cascade._out_of_bag_levels`), not by K folds."""
        return False

    @property
    def _held_out(self) -> str:
        """Whose vectors the level scores are of, as the progress lines and the stopping reason say."""
        return "out-of-bag" if self._out_of_bag else "out-of-fold"

    def _forest_options(self) -> dict[str, Any]:
        """What every fold model grows from beyond the trees' parameters: its vectors' columns, its task."""
        return {"n_classes": self._n_columns(), "regression": self._regression}

    # --------------------------------------------------------------------- fit
    def fit(self, X, y, sample_weight=None) -> Any:
        """Grow the cascade level by level until the out-of-fold score stops improving (the accuracy;
        the regressor's R^2).

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

    def _fit_with_first_level(self, X, y, first_level: LevelFit | None, sample_weight=None) -> Any:
        """:meth:`fit`, with level 1 taken from ``first_level`` when given: a level grown by
        :meth:`_grow_first_level` of an estimator that agrees with this one on the parameters that
        decide level 1 (:data:`~disdf.cascade._shared_first_level.LEVEL_ONE_PARAMS`) and has at least
        as many trees. Its first ``n_trees`` trees are used instead of growing level 1 again; the
        result is exactly that of ``fit(X, y)``
        (:func:`~disdf.cascade._shared_first_level.fit_sharing_first_level`)."""
        self._fit(self._prepare_fit(X, y, sample_weight), first_level=first_level)
        del self._training_vectors  # only fit_transform returns them: a fitted model stays small
        return self

    def _grow_first_level(self, X, y) -> LevelFit:
        """Grow level 1's fold models as :meth:`fit` would, before any weights: to share.

        Several estimators that differ only in ``n_trees``, the method or what decides later
        levels grow the same level 1 from the same seeds; it is grown once at the largest
        ``n_trees`` and passed to each one's :meth:`_fit_with_first_level`."""
        f = self._prepare_fit(X, y)
        return self._fit_level_trees(
            f.X, f.y_code, f.specs, f.rng, f.tree_params, f.sample_weight, self._copies_of(f.X)
        )

    def _prepare_fit(self, X, y, sample_weight=None) -> FitInputs:
        """Validate; return the level loop's inputs (:class:`~disdf.cascade._fit_inputs.FitInputs`)."""
        specs = self._validate_hyperparameters()
        X, y = validate_data(self, X, y, dtype=INPUT_DTYPES, **self._target_checks)
        check_float32_range(X)
        weights = self._example_weights(y, sample_weight)
        self._check_weight_scale(weights)
        check_predictor_weights(type(self).__name__, self.predictor, weights)
        check_member_weights(
            type(self).__name__, [kind for kind, _ in specs if isinstance(kind, LevelMember)], weights
        )
        X = as_float32(X)  # all the trees read (a float64 X is not kept: half the memory)
        y_code = self._encode_target(y)
        n_samples = X.shape[0]
        if n_samples < self.n_folds and not self._out_of_bag:
            raise ValueError(
                f"n_samples={n_samples} is fewer than n_folds={self.n_folds}: "
                "K-fold class vectors need at least one example per fold"
            )
        check_estimator_memory(self, self._memory_counts(y_code), X.shape[1])  # before any tree grows
        tree_params = {
            "max_depth": self.max_depth,
            "min_samples_split": self.min_samples_split,
            "min_samples_leaf": self.min_samples_leaf,
            **{name: getattr(self, name) for name in ENGINE_TREE_PARAMS},  # the compiled engines'
        }
        return FitInputs(X, y_code, specs, check_random_state(self.random_state), tree_params, weights)

    def _check_weight_scale(self, weights: np.ndarray | None) -> None:
        """The trees and the level score read only the weights' ratios: any finite scale fits."""

    def _fit(self, inputs: FitInputs, first_level: LevelFit | None = None):
        """The level loop; ``first_level`` (grown with this estimator's seeds) replaces growing level 1."""
        X, y_code, specs, rng = inputs.X, inputs.y_code, inputs.specs, inputs.rng
        tree_params, sample_weight = inputs.tree_params, inputs.sample_weight
        n_samples = X.shape[0]
        folder = None
        if self.keep_fitted_levels == "disk":  # this fit's own folder, made before any tree grows
            # LevelsFolder (checked by _prepare_fit) requires the folder with keep_fitted_levels="disk"
            assert self.fitted_levels_dir is not None
            folder = new_fit_folder(self.fitted_levels_dir, type(self).__name__)
        levels: list[CascadeLevel] = []
        scores: list[float] = []
        previous_vectors: list[np.ndarray] = []
        stopping = StoppingRule(self.tol, self.patience, self.max_levels, self._held_out)
        copies = self._copies_of(X)  # once per fit: every level groups the same rows of X
        with FitProgress(
            type(self).__name__, int(self.verbose), self.max_levels, self._score_name, self._held_out
        ) as progress:
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
                score = self._level_score(oof, y_code, sample_weight)
                if self.verbose >= 2:  # each forest alone: which of them carries the level
                    self._report_forests(progress, level_index, forests, oof, y_code, sample_weight)
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
            self._refit_kept_levels(X, y_code, specs, tree_params, sample_weight, previous_vectors)
        self.n_levels_ = n_keep
        self.level_scores_ = scores
        self.weights_ = [level.weights for level in self.levels_]
        self.predictor_ = fit_predictor(self.predictor, X, self._training_vectors, y_code, sample_weight, rng)
        # this fit's folder becomes the estimator's, the previous fit's goes (disdf.cascade._fitted_levels)
        self._fit_folder = FitFolder.replace(getattr(self, "_fit_folder", None), self, folder, n_keep)
        self.fitted_levels_path_ = folder
        return self

    def _report_forests(self, progress, level_index: int, forests, oof, y_code, sample_weight) -> None:
        """verbose >= 2: each forest's out-of-fold score alone, which of them carries the level."""
        for position, (forest, vectors) in enumerate(zip(forests, oof, strict=True)):
            alone = self._level_score([vectors], y_code, sample_weight)
            progress.forest(level_index, position, forest.kind, alone)

    def _refit_kept_levels(self, X, y_code, specs, tree_params, sample_weight, previous_vectors) -> None:
        """test_vectors="refit": each kept level's forests grown again on all its examples, for prediction."""
        inputs = [self._level_input(X, previous_vectors[:q]) for q in range(len(self.levels_))]
        for level, features in zip(self.levels_, inputs, strict=True):
            level.refit_models = refit_forests(
                level, features, y_code, specs, self.engine, self.n_trees, tree_params, self.n_jobs,
                sample_weight, **self._forest_options(),
            )  # fmt: skip

    # --- what the memory check reads of a cascade (disdf.cascade._fit_memory) -----------------------

    def _pair_rows(self, class_counts: np.ndarray) -> int:
        """Rows Q_ij a fit holds at once: none without learned weights."""
        return 0

    def _solver_workspace(self, class_counts: np.ndarray, n_jobs: int) -> int:
        """Bytes the weight solves allocate beyond the rows Q_ij, ``n_jobs`` at once: none without
        learned weights."""
        return 0

    def _describe_columns(self, n_columns: int) -> str:
        """The columns of a fold model's vectors, as the memory check's refusal names them."""
        return f"{n_columns} classes"

    def _memory_remedy(self) -> str:
        return "fewer trees (n_trees), levels (max_levels) or training examples would fit"

    # --- importances, computed from the fitted levels when asked (disdf.cascade._importances) --------

    @property
    def level_feature_importances_(self) -> list[np.ndarray]:
        """Each kept level's importances over its whole input (raw features, then class vectors)."""
        check_is_fitted(self)
        return [level_importances(level) for level in self.levels_]

    @property
    def feature_importances_(self) -> np.ndarray:
        """The original features' importances, shape ``(n_features_in_,)``, summing to 1."""
        return original_feature_importances(self.level_feature_importances_, self.n_features_in_)

    def _level_input(self, X: np.ndarray, previous_vectors: list[np.ndarray]) -> np.ndarray:
        """x^(q-1) of eq. (40), or (x, v^(q-1)) for the "previous" augmentation, as the float32 values
        the trees read (the same values as the float64 columns converted, without a float64 copy)."""
        if self.augmentation == "previous":
            previous_vectors = previous_vectors[-1:]
        return float32_columns([X, *previous_vectors])

    def _draw_level_seeds(self, specs, rng) -> tuple[int, np.ndarray]:
        # Every seed is drawn here, in a fixed order, so results do not depend on n_jobs.
        split_seed = int(rng.randint(SEED_HIGH))
        return split_seed, rng.randint(SEED_HIGH, size=(len(specs), 1 if self._out_of_bag else self.n_folds))

    def _copies_of(self, X: np.ndarray) -> np.ndarray | None:
        """The groups of equal rows of X that share a fold at every level (None: group_duplicates off)."""
        return duplicate_groups(X) if self.group_duplicates else None

    def _fit_level_trees(self, features, y_code, specs, rng, tree_params, sample_weight, copies) -> LevelFit:
        split_seed, forest_seeds = self._draw_level_seeds(specs, rng)
        n_examples = len(y_code)
        if self._out_of_bag:
            folds = all_rows_fold(n_examples)
        else:
            folds = self._deal_folds(y_code, split_seed, copies)
        check_fold_weights(type(self).__name__, sample_weight, folds)
        # Both engines grow and apply their trees on float32 values (scikit-learn converts any X):
        # converting once here, not per fold model, halves every fold's copy of the training rows.
        features = np.asarray(features, dtype=np.float32)
        forests = grow_level_models(
            specs, self.engine, features, y_code, folds, forest_seeds, self.n_jobs,
            n_trees=self.n_trees, tree_params=tree_params, sample_weight=sample_weight,
            **self._forest_options(),
        )  # fmt: skip
        if self._out_of_bag:
            forests = [forest.out_of_bag(n_examples, sample_weight, copies) for forest in forests]
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
    def last_level_input(self, X) -> np.ndarray:
        """The last kept level's input for new examples: x beside the earlier kept levels' class
        vectors, as the fit gave them to that level (``augmentation``), eq. (40).

        What the last level's trees read: the metric view's per-tree surrogates
        (``pair_distance(distance="surrogate_p")``) route it through them.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_level_features), float32
        """
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
        features = self.last_level_input(X)
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
        ndarray of shape (n_samples, M * n_classes), or (n_samples, M * n_outputs) for the regressor
        """
        self._fit(self._prepare_fit(X, y, sample_weight))
        vectors = self._training_vectors
        del self._training_vectors
        return vectors

    def transform(self, X) -> np.ndarray:
        """The learned representation v: the last kept level's M concatenated class vectors (for the
        regressor: its M forests' predictions).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, M * n_classes), or (n_samples, M * n_outputs) for the regressor
            Each forest's class vector (eq. (41), the mean over its K fold
            models), forest after forest.
        """
        return self._last_class_vectors(X)
