"""Impurity-based feature importances (mean decrease in impurity) of a forest's trees, weighted.

A tree's importance of feature f is what scikit-learn's ``feature_importances_`` computes: the
Gini decreases N_t i(t) - N_L i(L) - N_R i(R) of its splits on f (N: the nodes' weights, sample
weights and bootstrap counts included), normalised to sum 1 over the features (all 0 for a tree
that never splits). A forest's importances are its trees' averaged with the trees' weights w,
``sum_t w_t imp_t``, normalised to sum 1: with the uniform w = 1/T of eq. (36) this is
scikit-learn's forest ``feature_importances_`` (the mean over the trees that split), with DisDF's
learned w of eq. (41) the trees count as much as they count in the class vector. The compiled
engine keeps each tree's nonzero importances (:class:`TreeImportances`); scikit-learn's forests
compute theirs from their trees.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def normalised(values: np.ndarray) -> np.ndarray:
    """``values / values.sum()``, or zeros where they sum to 0 (no split: nothing to share out).

    Examples
    --------
    >>> import numpy as np
    >>> normalised(np.array([1.0, 3.0])).tolist(), normalised(np.zeros(2)).tolist()
    ([0.25, 0.75], [0.0, 0.0])
    """
    values = np.asarray(values, dtype=np.float64)
    total = values.sum()
    return values / total if total > 0 else np.zeros_like(values)


@dataclass(frozen=True)
class TreeImportances:
    """Every tree's normalised importances, sparse: tree t's nonzero entries are
    ``features[indptr[t]:indptr[t + 1]]`` with ``values[...]`` (float32; a tree splits on few of the
    features of a wide level input, so storing zeros would take more than its nodes).

    Examples
    --------
    >>> import numpy as np
    >>> raw = np.array([[0.0, 2.0, 2.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0]])  # tree 2 never splits
    >>> trees = TreeImportances.from_raw(raw)
    >>> trees.weighted(None).tolist()  # the mean over the trees that split
    [0.5, 0.25, 0.25]
    >>> trees.first(2).weighted(None).tolist()
    [0.0, 0.5, 0.5]
    """

    indptr: np.ndarray  # (T + 1,) int64
    features: np.ndarray  # int32
    values: np.ndarray  # float32
    n_features: int

    @classmethod
    def from_raw(cls, raw: np.ndarray) -> TreeImportances:
        """From the growth kernels' (T, d) sums of impurity decreases: each tree's row clipped at 0
        (rounding can leave -1e-17 where a split decreased nothing) and normalised to sum 1."""
        raw = np.maximum(raw, 0.0)
        totals = raw.sum(axis=1, keepdims=True)
        rows = np.divide(raw, totals, out=np.zeros_like(raw), where=totals > 0)
        trees, features = np.nonzero(rows)
        indptr = np.concatenate(([0], np.cumsum(np.bincount(trees, minlength=raw.shape[0]))))
        return cls(
            indptr.astype(np.int64), features.astype(np.int32), rows[trees, features].astype(np.float32),
            raw.shape[1],
        )  # fmt: skip

    @property
    def n_trees(self) -> int:
        return len(self.indptr) - 1

    def first(self, n_trees: int) -> TreeImportances:
        """The importances of the first ``n_trees`` trees (views)."""
        end = self.indptr[n_trees]
        indptr, features, values = self.indptr[: n_trees + 1], self.features[:end], self.values[:end]
        return TreeImportances(indptr, features, values, self.n_features)

    def weighted(self, w: np.ndarray | None) -> np.ndarray:
        """``sum_t w_t imp_t`` normalised to sum 1 (w None: every tree alike), shape (n_features,)."""
        values = self.values.astype(np.float64)
        if w is not None:
            values *= np.repeat(np.asarray(w, dtype=np.float64), np.diff(self.indptr))
        return normalised(np.bincount(self.features, weights=values, minlength=self.n_features))


def weighted_forest_importances(tree_importances: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``sum_t w_t imp_t`` of dense per-tree importances (T, d), normalised to sum 1.

    Examples
    --------
    >>> import numpy as np
    >>> weighted_forest_importances(np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([0.75, 0.25])).tolist()
    [0.75, 0.25]
    """
    return normalised(np.asarray(w, dtype=np.float64) @ tree_importances)
