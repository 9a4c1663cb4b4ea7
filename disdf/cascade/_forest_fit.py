"""One forest of a cascade level, with its K fold models: the fold wrapper (DF21's idea).

A level holds M forests. Each forest is grown K times by stratified K-fold
cross-validation: fold model k is trained on the other folds and predicts the
examples of fold k, which it never saw. :class:`ForestFit` keeps, for one
forest, everything those K models give:

* ``models`` (per-tree class probabilities of any X, either engine),
* ``held_out`` (fold k's examples' per-tree probabilities, (n_k, T, C), kept as
  leaf rows: :class:`~disdf.forests._tree_leaves.TreeLeaves`),
* ``seeds`` (fold model k's seed) and, for DisDF, the pair statistics
  (π, Q) of each held-out set,
* ``weights`` (the tree weights w of each fold model, once learned).

From these it gives the training examples' out-of-fold class vectors, eq. (41),
and a new example's class vector (the mean over the K fold models).
:class:`LevelFit` is a level: the folds shared by its forests, the split seed
and the list of forests. A level the fitted cascade keeps is a
:class:`~disdf.cascade.CascadeLevel` (:mod:`disdf.cascade._cascade_level`): its forests, without the
held-out probabilities.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from typing import cast

import numpy as np

from disdf._utils.folds import Folds
from disdf._utils.sample_weights import same_weights
from disdf._utils.threads import run_tasks
from disdf.cascade._level_members import EstimatorFoldModel
from disdf.forests._compiled import FastForest
from disdf.forests._out_of_bag import OutOfBagLeaves, in_bag_by_group
from disdf.forests._tree_leaves import SklearnFoldModel, TreeLeaves
from disdf.weights import PairStatistics, drawn_pair_statistics

#: A fold model: per-tree class probabilities of a fitted forest, either engine, or a level member's
#: estimator as a forest of one tree (:class:`~disdf.cascade._level_members.EstimatorFoldModel`).
FoldModel = SklearnFoldModel | FastForest | EstimatorFoldModel


@dataclass
class ForestFit:
    """One forest of a cascade level: its K fold models and what they give (the module docstring).

    A fitted cascade's levels (:class:`~disdf.cascade.CascadeLevel`) keep their forests as these, with
    the fold models and their learned weights; while a level grows, a forest also carries its held-out
    examples' leaf rows and DisDF's pair statistics (π, Q), which the fitted level drops.

    Attributes
    ----------
    kind : str
        The forest kind (``"completely_random"``, ``"random_forest"``, a level estimator's name, ...).
    models : list
        ``[fold]``: the K fold models, each trained without fold k; each gives per-tree class
        probabilities of any X (``probabilities(X)``, shape (n, T, C)) and their weighted sum
        (``weighted_probabilities(X, w)``, eq. (41)).
    held_out : list
        ``[fold]``: fold k's examples' per-tree probabilities as leaf rows, while the level grows;
        empty in a fitted cascade.
    seeds : tuple of int
        ``[fold]``: each fold model's seed.
    pair_statistics, pairs_cap
        DisDF's π and Q of each fold's held-out set and the ``max_pairs`` they were computed with,
        while the level grows; None in a fitted cascade.
    weights : list of ndarray of shape (T,)
        ``[fold]``: each fold model's tree weights w on the simplex (1/T for gcForest).
    out_of_fold_weights : list or None
        Cross-fitted weights of the held-out examples (``weight_fitting="cross_fit"``), while the level
        grows; None in a fitted cascade.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from disdf import DisDFClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> forest = DisDFClassifier(n_trees=10, max_levels=1, random_state=0).fit(X, y).levels_[0].forests[0]
    >>> forest.kind, len(forest.models), forest.weights[0].shape
    ('completely_random', 3, (10,))
    >>> bool(abs(forest.weights[0].sum() - 1) < 1e-9)  # on the simplex, eq. (70)
    True
    >>> forest.class_vectors(X[:2]).shape
    (2, 2)
    """

    kind: str
    models: list[FoldModel]  # [fold]
    held_out: list[TreeLeaves]  # [fold] -> (n_held_out, T, C) as leaf rows; empty once the level is fitted
    seeds: tuple[int, ...]  # [fold]
    pair_statistics: list[PairStatistics] | None = None  # [fold], for the exact weight solvers
    pairs_cap: int | None = None  # the max_pairs they were computed with (None: every pair)
    weights: list[np.ndarray] | None = None  # [fold] -> (T,), once learned
    #: [fold] -> [(positions in the fold's held-out set, their weights)]: cross-fitted out-of-fold
    #: weights, fitted without those examples' labels; None: ``weights`` for every held-out example.
    out_of_fold_weights: list[list[tuple[np.ndarray, np.ndarray]]] | None = None

    @property
    def n_trees(self) -> int:
        return self.held_out[0].n_trees

    def first(self, n_trees: int) -> ForestFit:
        """The same forest restricted to its first ``n_trees`` trees (exact: the first T trees of a
        forest are the T-tree forest with the same seed)."""
        stats = self.pair_statistics
        return replace(
            self,
            models=[model.first(n_trees) for model in self.models],
            held_out=[held.first(n_trees) for held in self.held_out],
            pair_statistics=None if stats is None else [s.first(n_trees) for s in stats],
            weights=None,
            out_of_fold_weights=None,
        )

    def with_weights(self, weights: list[np.ndarray]) -> ForestFit:
        return replace(self, weights=list(weights), out_of_fold_weights=None)

    def with_out_of_fold_weights(self, parts: list[list[tuple[np.ndarray, np.ndarray]]]) -> ForestFit:
        return replace(self, out_of_fold_weights=parts)

    def out_of_fold_vectors(self, folds: Folds, n_examples: int) -> np.ndarray:
        """The n training examples' class vectors, each from the fold model that never saw it, eq. (41).

        Summed from the leaf rows (:meth:`~disdf.forests._tree_leaves.TreeLeaves.weighted_sum`), without
        making their (n_k, T, C) probabilities."""
        n_classes = self.held_out[0].n_classes
        vectors = np.empty((n_examples, n_classes))
        if self.out_of_fold_weights is None:
            assert self.weights is not None  # with_weights (each level's _level_weights) set them
            for (_, test), held, w in zip(folds, self.held_out, self.weights, strict=True):
                vectors[test] = held.weighted_sum(w)
            return vectors
        for (_, test), held, parts in zip(folds, self.held_out, self.out_of_fold_weights, strict=True):
            for positions, w in parts:
                vectors[test[positions]] = held[positions].weighted_sum(w)
        return vectors

    def class_vectors(self, X: np.ndarray, n_jobs: int | None = None) -> np.ndarray:
        """New examples' class vectors of this forest: the mean over its K fold models of
        sum_t w_t p^(t), eq. (41), shape (n_examples, n_classes)."""
        return np.mean(fold_model_vectors([self], X, n_jobs), axis=0)

    def out_of_bag(
        self, n_examples: int, sample_weight: np.ndarray | None, groups: np.ndarray | None
    ) -> ForestFit:
        """This forest, its one model grown on all ``n_examples`` examples, with held-out leaves that count
        only the trees whose bootstrap left each example (and its copies, ``groups``) out
        (:mod:`disdf.forests._out_of_bag`)."""
        (model,), (held,) = self.models, self.held_out
        in_bag = in_bag_by_group(model.in_bag(n_examples, sample_weight), groups)  # type: ignore[union-attr]
        return replace(self, held_out=[OutOfBagLeaves.of(held, in_bag)])

    def fitted(self) -> ForestFit:
        """What prediction keeps: the fold models and their weights (the held-out leaf rows are spent)."""
        return replace(self, held_out=[], pair_statistics=None, out_of_fold_weights=None)


def pair_statistics(
    held: TreeLeaves,
    y: np.ndarray,
    sample_weight: np.ndarray | None = None,
    max_pairs: int | None = None,
    seed: int = 0,
) -> PairStatistics:
    """π and Q of one fold model's held-out examples (their (n_k, T, C) probabilities made in the task),
    each pair weighted by its two examples' weights when there are weights; beyond ``max_pairs``
    different-class pairs, that many drawn with the fold model's ``seed``
    (:func:`disdf.weights.drawn_pair_statistics`)."""
    return drawn_pair_statistics(held.probabilities(), y, max_pairs, seed, sample_weight)


def fold_model_vectors(forests: list[ForestFit], X: np.ndarray, n_jobs: int | None) -> list[np.ndarray]:
    """Every fold model's weighted class vectors of X (forest-major), computed in parallel."""
    # cast: the forests of a fitted level carry their learned weights (each level's _level_weights)
    return run_tasks(
        (
            partial(model.weighted_probabilities, X, w)
            for forest in forests
            for model, w in zip(forest.models, cast("list[np.ndarray]", forest.weights), strict=True)
        ),
        n_jobs,
    )


@dataclass
class LevelFit:
    """A level's trees, grown: the folds its forests share, the split seed, the forests, and the
    training labels (as class codes) the held-out sets are scored against, with the examples'
    weights (None: unweighted) that grew the trees and weigh the scores and DisDF's pairs."""

    folds: Folds
    split_seed: int
    forests: list[ForestFit]
    y_code: np.ndarray
    sample_weight: np.ndarray | None = None

    def weights_of(self, rows: np.ndarray) -> np.ndarray | None:
        """The weights of the examples ``rows`` (None when unweighted)."""
        return None if self.sample_weight is None else self.sample_weight[rows]

    @property
    def n_trees(self) -> int:
        return self.forests[0].n_trees

    @property
    def seed_key(self) -> tuple[int, tuple[tuple[int, ...], ...]]:
        """The level's seeds as a comparable value: (split seed, every fold model's seed)."""
        return self.split_seed, tuple(forest.seeds for forest in self.forests)

    def first(self, n_trees: int) -> LevelFit:
        """The same level restricted to every forest's first ``n_trees`` trees."""
        if n_trees == self.n_trees:
            return self
        return replace(self, forests=[forest.first(n_trees) for forest in self.forests])

    def taken_as_first_level(
        self, seed_key: tuple, sample_weight: np.ndarray | None, n_trees: int
    ) -> LevelFit:
        """This level, grown elsewhere, as level 1 of a fit that draws the seeds ``seed_key``, weighs its
        examples ``sample_weight`` and grows ``n_trees`` trees per forest: its first ``n_trees`` trees,
        once checked to be the level that fit would grow."""
        if self.seed_key != seed_key:
            raise ValueError("the shared first level was grown with other seeds than this estimator's")
        if not same_weights(self.sample_weight, sample_weight):
            raise ValueError("the shared first level was grown with other example weights than this fit's")
        if self.n_trees < n_trees:
            raise ValueError(
                f"the shared first level has {self.n_trees} trees per forest < n_trees={n_trees}"
            )
        return self.first(n_trees)

    def memoize_leaves(self) -> None:
        """Let the levels taken from this one by ``first(T)`` route new examples through its trees
        once between them (fast-engine fold models; :mod:`disdf.forests._compiled.leaf_memo`)."""
        for forest in self.forests:
            for model in forest.models:
                if hasattr(model, "memoize_leaves"):
                    model.memoize_leaves()

    def compute_pair_statistics(self, n_jobs: int | None = None, max_pairs: int | None = None) -> None:
        """π and Q of every fold model's held-out examples, computed once for the whole level (at most
        ``max_pairs`` pairs per fold model, drawn with its seed; None: every pair)."""
        y_code = self.y_code
        # A level shared by estimators of other max_pairs (fit_sharing_first_level) holds their pairs:
        # computed again for this cap.
        missing = [
            forest
            for forest in self.forests
            if forest.pair_statistics is None or forest.pairs_cap != max_pairs
        ]
        if not missing:
            return
        stats = run_tasks(
            (
                partial(pair_statistics, held, y_code[test], self.weights_of(test), max_pairs, seed)
                for forest in missing
                for held, (_, test), seed in zip(forest.held_out, self.folds, forest.seeds, strict=True)
            ),
            n_jobs,
        )
        n_folds = len(self.folds)
        for m, forest in enumerate(missing):
            forest.pair_statistics = stats[m * n_folds : (m + 1) * n_folds]
            forest.pairs_cap = max_pairs
