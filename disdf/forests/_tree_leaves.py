"""Per-tree class probabilities p_{i,c}^{(t,k)} of a fitted forest, vectorised.

Every node of every tree is stacked into one table of class distributions
(columns aligned to the cascade's full class list), so the probabilities of
all trees for a block of examples are one ``forest.apply`` plus one fancy index:
no Python loop over trees or examples.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from disdf.forests._importances import weighted_forest_importances

# Bound on one (examples, T, C) block, in float64 elements (~128 MB).
_BLOCK_ELEMENTS = 1 << 24


class SklearnFoldModel:
    """Class distributions of every node of a fitted forest.

    Parameters
    ----------
    forest : fitted scikit-learn forest classifier, trained on class codes
        that are a subset of ``range(n_classes)``.
    n_classes : size of the cascade's class list. Classes the forest never
        saw (a fold without them) get probability 0.
    """

    def __init__(self, forest, n_classes: int) -> None:
        self.forest = forest
        self.n_classes = n_classes
        trees = [tree.tree_ for tree in forest.estimators_]
        self.offsets = node_offsets(trees)
        values = np.concatenate([tree.value[:, 0, :] for tree in trees])
        totals = values.sum(axis=1, keepdims=True)
        seen = np.asarray(forest.classes_, dtype=int)
        table = np.zeros((values.shape[0], n_classes))
        # Bootstrap weights make node values weighted counts (or fractions):
        # normalising gives the leaf's class distribution, as predict_proba does.
        table[:, seen] = np.divide(values, totals, out=np.zeros_like(values), where=totals > 0)
        self.table = table

    @property
    def n_trees(self) -> int:
        return len(self.offsets)

    def first(self, n_trees: int) -> SklearnFoldModel:
        """The table of the forest's first ``n_trees`` trees.

        scikit-learn draws tree seeds one after another from ``random_state``,
        so these are exactly the trees of an ``n_trees``-tree forest with the
        same seed (guarded by a test).
        """
        if not 1 <= n_trees <= self.n_trees:
            raise ValueError(f"first(n_trees) needs 1 <= n_trees <= {self.n_trees}; got {n_trees}")
        head = copy.copy(self)
        head.forest = copy.copy(self.forest)
        head.forest.estimators_ = self.forest.estimators_[:n_trees]
        head.forest.n_estimators = n_trees
        head.offsets = self.offsets[:n_trees]
        return head

    def in_bag(self, n_rows: int, sample_weight: np.ndarray | None = None) -> np.ndarray:
        """(n_rows, T) booleans: whether each training example was drawn for each tree (scikit-learn's
        ``estimators_samples_``; its draws do not read the weights, which only scale the counts)."""
        mask = np.zeros((n_rows, self.n_trees), dtype=bool)
        for t, drawn in enumerate(self.forest.estimators_samples_[: self.n_trees]):
            mask[drawn, t] = True
        return mask

    def feature_importances(self, w: np.ndarray | None = None) -> np.ndarray:
        """Impurity-based importances of the input features: with ``w`` None the forest's own
        ``feature_importances_`` (scikit-learn's); else its trees' ``feature_importances_`` averaged
        with the tree weights w and normalised to sum 1 (:mod:`disdf.forests._importances`)."""
        if w is None:
            return self.forest.feature_importances_
        trees = np.array([tree.feature_importances_ for tree in self.forest.estimators_])
        return weighted_forest_importances(trees, w)

    def probabilities(self, X: np.ndarray) -> np.ndarray:
        """Per-tree class probabilities of X, shape (n_examples, T, n_classes)."""
        X = np.asarray(X, dtype=np.float32)
        out = np.empty((X.shape[0], self.n_trees, self.n_classes))
        block = max(1, _BLOCK_ELEMENTS // (self.n_trees * self.n_classes))
        for start in range(0, X.shape[0], block):
            leaves = self.forest.apply(X[start : start + block])
            out[start : start + block] = self.table[leaves + self.offsets]
        return out

    def tree_leaves(self, X: np.ndarray, rows: np.ndarray | None = None) -> TreeLeaves:
        """:meth:`probabilities` of X (of its examples ``rows``) kept as each example's row of
        ``table`` in each tree."""
        X = np.asarray(X if rows is None else X[rows], dtype=np.float32)
        leaves = self.forest.apply(X) if X.shape[0] else np.empty((0, self.n_trees), dtype=np.intp)
        return TreeLeaves(leaf_rows(leaves + self.offsets), self.table)

    def weighted_probabilities(self, X: np.ndarray, w: np.ndarray) -> np.ndarray:
        """Class vector v_i = sum_t w_t p_i^{(t)} of eq. (41), shape (n_examples, n_classes).

        Computed block by block, so memory stays bounded for large X.
        """
        X = np.asarray(X, dtype=np.float32)
        out = np.empty((X.shape[0], self.n_classes))
        block = max(1, _BLOCK_ELEMENTS // (self.n_trees * self.n_classes))
        for start in range(0, X.shape[0], block):
            leaves = self.forest.apply(X[start : start + block])
            out[start : start + block] = weighted_sum(self.table[leaves + self.offsets], w)
        return out


class SklearnRegressionFoldModel(SklearnFoldModel):
    """Every node's prediction of a fitted scikit-learn forest regressor, as :class:`SklearnFoldModel`
    keeps class distributions: ``probabilities(X)`` is each tree's prediction, (n, T, n_outputs)."""

    def __init__(self, forest) -> None:
        self.forest = forest
        trees = [tree.tree_ for tree in forest.estimators_]
        self.offsets = node_offsets(trees)
        self.table = np.ascontiguousarray(np.concatenate([tree.value[:, :, 0] for tree in trees]))
        self.n_classes = self.table.shape[1]


def node_offsets(trees: list) -> np.ndarray:
    """Where each tree's nodes start in the forest's table of every node (the trees' ``tree_``)."""
    node_counts = np.array([tree.node_count for tree in trees])
    return np.concatenate(([0], np.cumsum(node_counts)[:-1]))


def weighted_sum(tree_probabilities: np.ndarray, w: np.ndarray) -> np.ndarray:
    """sum_t w_t p_{i,c}^{(t)} for an (n, T, C) array: eq. (41), or eq. (36) when w = 1/T."""
    return np.einsum("itc,t->ic", tree_probabilities, w)


def leaf_rows(leaves: np.ndarray) -> np.ndarray:
    """Leaf rows as :class:`TreeLeaves` keeps them: int32 while the table's rows allow it."""
    small = leaves.size == 0 or int(leaves.max()) < np.iinfo(np.int32).max
    return np.ascontiguousarray(leaves, dtype=np.int32 if small else np.int64)


@dataclass(frozen=True)
class TreeLeaves:
    """Per-tree class probabilities p_i^(t) of n examples, (n, T, C), kept as leaf rows.

    ``leaves[i, t]`` is the row of ``table`` (a forest's class distributions) that
    example i reaches in tree t: 4 bytes per (example, tree) instead of 8 C
    (on all of MNIST a level's held-out probabilities take 0.1 GB instead of 1.9 GB).
    :meth:`probabilities` gives the (n, T, C) array, bit for bit the fold model's
    ``probabilities`` of the same examples; the cascade makes it one fold (or one
    weight problem) at a time.
    """

    leaves: np.ndarray  # (n, T) rows of table
    table: np.ndarray  # (rows, C) float64, shared with the fold model

    @property
    def n_trees(self) -> int:
        return self.leaves.shape[1]

    @property
    def n_classes(self) -> int:
        return self.table.shape[1]

    def __len__(self) -> int:
        return self.leaves.shape[0]

    def __getitem__(self, positions: np.ndarray) -> TreeLeaves:
        """The examples ``positions`` (an index array or a boolean mask)."""
        return TreeLeaves(self.leaves[positions], self.table)

    def first(self, n_trees: int) -> TreeLeaves:
        """The first ``n_trees`` trees' leaves (those of the forest's ``first(n_trees)``)."""
        return TreeLeaves(np.ascontiguousarray(self.leaves[:, :n_trees]), self.table)

    def probabilities(self) -> np.ndarray:
        """The per-tree class probabilities, shape (n, T, C), C-ordered float64."""
        return self.table[self.leaves]

    def weighted_sum(self, w: np.ndarray) -> np.ndarray:
        """``weighted_sum(self.probabilities(), w)``, bit for bit (the same products summed over t in
        the same order), without making the (n, T, C) array: eq. (41), shape (n, C)."""
        from disdf.forests._compiled.prediction_kernels import (
            weighted_leaf_rows,  # disdf.forests._compiled imports us
        )

        return weighted_leaf_rows(self.leaves, self.table, np.ascontiguousarray(w, dtype=np.float64))
