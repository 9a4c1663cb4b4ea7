"""A forest of compiled squared-error regression trees: the compiled engines of the cascade regressor.

:class:`FastRegressionForest` grows its trees with
:func:`~disdf.forests._compiled.regression_kernels.grow_regression_tree` and keeps them in the layout
of :class:`~disdf.forests._compiled.FastForest`, whose prediction it inherits: a leaf's row of
``leaf_values`` is the mean target vector of its examples, so ``probabilities(X)`` is each tree's
prediction, (n, T, n_outputs), and ``weighted_probabilities(X, w)`` the forest's (eq. (41) with targets
in place of class distributions; w = 1/T: the forest's mean).

Before growing, each feature of a forest on more than 256 examples is coded for the histogram splits
of large nodes: by value when it has at most 256 distinct values, none closer than scikit-learn's
1e-7 (the same splits as sorting), and with ``engine="binned"`` by at most ``n_bins`` bins of about
equal counts when it has more (their edges placed on the forest's examples, or on ``bin_subsample``
of them drawn from its seed).
"""

from __future__ import annotations

import numpy as np

from disdf.forests._compiled.forest import (
    FastForest,
    _as_input,
    _bin_sample,
    _row_weights,
    feature_major,
    n_candidate_features,
)
from disdf.forests._importances import TreeImportances

#: Forests on at most this many examples code no feature (every node sorts).
CODING_MIN_EXAMPLES = 256
#: The most codes of a feature (uint8).
MAX_CODES = 256
_FEATURE_THRESHOLD = 1e-7


def feature_codes(
    Xt: np.ndarray, max_bins: int, bin_sample: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(codes (d, n) uint8, code_values (d, 256), n_codes (d,), binned (d,)) of the module docstring;
    ``n_codes[f] == 0``: feature f is not coded. ``bin_sample``: the examples the bin edges are placed
    on (a boolean mask; empty: all)."""
    d, n = Xt.shape
    codes = np.zeros((d, n if n > CODING_MIN_EXAMPLES else 1), dtype=np.uint8)
    code_values = np.zeros((d, MAX_CODES))
    n_codes = np.zeros(d, dtype=np.int64)
    binned = np.zeros(d, dtype=np.bool_)
    if n <= CODING_MIN_EXAMPLES:
        return codes, code_values, n_codes, binned
    for f in range(d):
        values = np.asarray(Xt[f], dtype=np.float64)
        distinct = np.unique(values)
        if len(distinct) <= MAX_CODES and (len(distinct) < 2 or np.diff(distinct).min() > _FEATURE_THRESHOLD):
            codes[f] = np.searchsorted(distinct, values)
            code_values[f, : len(distinct)] = distinct
            n_codes[f] = len(distinct)
        elif max_bins > 0:
            placed_on = values if len(bin_sample) == 0 else values[bin_sample]
            edges = bin_edges(placed_on, distinct, max_bins)
            codes[f] = np.searchsorted(edges, values, side="left")
            code_values[f, : len(edges)] = edges
            n_codes[f], binned[f] = len(edges) + 1, True
    return codes, code_values, n_codes, binned


def bin_edges(placed_on: np.ndarray, distinct: np.ndarray, max_bins: int) -> np.ndarray:
    """At most ``max_bins - 1`` increasing edges between consecutive distinct values, at the quantiles of
    ``placed_on`` (bins of about equal counts): a value x is in bin b when edges[b - 1] < x <= edges[b]."""
    quantiles = np.quantile(placed_on, np.linspace(0.0, 1.0, max_bins + 1)[1:-1])
    below = np.clip(np.searchsorted(distinct, quantiles, side="right") - 1, 0, len(distinct) - 2)
    low, high = distinct[below], distinct[below + 1]
    edges = low / 2.0 + high / 2.0
    edges = np.where((edges == high) | np.isinf(edges), low, edges)
    return np.unique(edges)


class FastRegressionForest(FastForest):
    """``n_trees`` compiled squared-error regression trees on targets of ``n_classes`` columns (the
    outputs: :class:`FastForest`'s constructor, whose columns are the classes).

    Tree t's randomness depends only on (``seed``, t): ``first(T)`` is the T-tree forest of the seed.
    """

    def fit(
        self,
        X: np.ndarray,
        y: np.ndarray,
        rows: np.ndarray | None = None,
        feature_major_rows: np.ndarray | None = None,
        sample_weight: np.ndarray | None = None,
    ) -> FastRegressionForest:
        """Grow the forest on (X, y), y of shape (n,) or (n, n_outputs), or on the examples ``rows``
        (``feature_major_rows``: their feature-major copy, as :meth:`FastForest.fit` takes it)."""
        X = _as_input(X)
        targets = np.asarray(y, dtype=np.float64)
        targets = targets.reshape(len(targets), -1) if targets.ndim == 1 else targets
        targets = np.ascontiguousarray(targets if rows is None else targets[rows])
        Xt = feature_major(X, rows) if feature_major_rows is None else feature_major_rows
        n_rows = len(targets)
        if Xt.shape != (X.shape[1], n_rows):
            raise ValueError(
                f"feature_major_rows must be feature_major(X, rows), of shape {(X.shape[1], n_rows)}; "
                f"got shape {Xt.shape}"
            )
        from disdf.forests._compiled.regression_kernels import grow_regression_tree  # numba: at first fit

        p = self.params
        coded = feature_codes(Xt, p.max_bins, _bin_sample(p, n_rows, self.seed))
        rules = self._growth_rules(X.shape[1])
        weights = _row_weights(sample_weight, rows, n_rows)
        trees = [
            grow_regression_tree(Xt, targets, *coded, weights, self.seed, t, rules)
            for t in range(self.n_trees)
        ]
        del Xt
        self.n_features_in_ = X.shape[1]
        self._join_trees(trees)
        return self

    def in_bag(self, n_rows: int, sample_weight: np.ndarray | None = None) -> np.ndarray:
        """(n_rows, T) booleans: whether each of the forest's n_rows training examples is in each tree's
        sample (``sample_weight``: the weights of those examples it grew with, None: none)."""
        from disdf.forests._compiled.regression_kernels import in_bag  # numba: at first use

        weights = _row_weights(sample_weight, None, n_rows)
        return in_bag(self.seed, self.n_trees, weights, n_rows, self._growth_rules(self.n_features_in_))

    def _growth_rules(self, n_features: int) -> tuple:
        """The rules tuple :func:`~disdf.forests._compiled.regression_kernels.grow_regression_tree` reads
        (and :func:`~disdf.forests._compiled.regression_kernels.in_bag`, to draw each tree's sample again)."""
        p = self.params
        return (
            n_candidate_features(p.max_features, n_features), p.random_splits, p.bootstrap,
            -1 if p.max_depth is None else p.max_depth, p.min_samples_leaf, p.min_samples_split,
            0 if p.max_tree_samples is None else p.max_tree_samples,
        )  # fmt: skip

    def _join_trees(self, trees: list[tuple]) -> None:
        """The trees' arrays (codes local to each tree) as one forest's, then compacted as a FastForest's."""
        roots, nodes, leaves = [], 0, 0
        parts: list[list[np.ndarray]] = [[], [], [], [], [], []]
        for root, feature, threshold, left, right, leaf_values, importances in trees:
            roots.append(int(_shifted(np.array(root), nodes, leaves)))
            left, right = _shifted(left, nodes, leaves), _shifted(right, nodes, leaves)
            for part, array in zip(
                parts, (feature, threshold, left, right, leaf_values, importances), strict=True
            ):
                part.append(array)
            nodes, leaves = nodes + len(feature), leaves + len(leaf_values)
        feature, threshold, left, right = (np.concatenate(part) for part in parts[:4])
        self.leaf_values = np.concatenate(parts[4])
        self.roots = np.asarray(roots, dtype=np.int64)
        self.tree_importances = TreeImportances.from_raw(np.vstack(parts[5]))
        self._compact(feature.astype(np.int32), threshold, left.astype(np.int64), right.astype(np.int64))


def _shifted(codes: np.ndarray, nodes: int, leaves: int) -> np.ndarray:
    """A tree's child codes in the forest: its nodes after ``nodes`` earlier nodes, its leaf rows after
    ``leaves`` earlier rows (leaf row c is the code -c - 1)."""
    return np.where(codes >= 0, codes + nodes, codes - leaves)
