"""A forest of fully compiled trees for small data: the ``engine="fast"`` of the cascade.

:class:`FastForest` grows all T trees of a forest in one compiled call and
gives the per-tree class distributions of any X in another; a fitted forest is
a handful of flat arrays (see :mod:`disdf.forests._compiled.kernels`, which grows
them; :mod:`disdf.forests._compiled.prediction_kernels` reads them), with no Python
object per tree. It implements the interface the cascade needs from a
fold model (``probabilities``, ``weighted_probabilities``, ``first``), like
:class:`disdf.forests._tree_leaves.SklearnFoldModel` does for scikit-learn forests. The compiled
modules are imported inside the methods that call them, so numba (about 50 MiB) loads at the first
fit or prediction, not with ``import disdf``.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import log2, sqrt
from numbers import Integral
from typing import Any

import numpy as np
from sklearn.utils import check_array

from disdf._utils.parameters import MaxFeatures
from disdf._utils.persistence import CorruptedModelError, arrays_digest
from disdf.forests._compiled.leaf_memo import LeafMemo
from disdf.forests._importances import TreeImportances
from disdf.forests._tree_leaves import TreeLeaves, leaf_rows

#: Forest parameters the fast engine understands (scikit-learn names and meanings).
SUPPORTED_PARAMS = (
    "max_features",
    "bootstrap",
    "max_depth",
    "min_samples_split",
    "min_samples_leaf",
    "criterion",
)


def n_candidate_features(max_features: Any, n_features: int) -> int:
    """scikit-learn's resolution of ``max_features`` to a count (checked by the one rule of
    :class:`~disdf._utils.parameters.MaxFeatures` first)."""
    MaxFeatures().check("FastForestParams", "max_features", max_features)
    if max_features is None:
        count = n_features
    elif max_features == "sqrt":
        count = int(sqrt(n_features))
    elif max_features == "log2":
        count = int(log2(n_features))
    elif isinstance(max_features, Integral):
        count = int(max_features)
    else:
        count = int(max_features * n_features)
    return max(1, min(count, n_features))


@dataclass(frozen=True)
class FastForestParams:
    """How to grow: ``random_splits`` (extremely randomised thresholds) or best Gini splits."""

    random_splits: bool
    max_features: Any
    bootstrap: bool
    max_depth: int | None = None
    min_samples_split: int = 2
    min_samples_leaf: int = 1
    #: 0: exact splits. > 0 (engine "binned", its ``n_bins``): on forests of more than 256 examples a
    #: feature of more than max_bins + 1 distinct values splits between bins of about equal counts,
    #: at most this many, at nodes of at least 64 examples.
    max_bins: int = 0
    #: With max_bins > 0: the bin edges placed on this many of the forest's examples, drawn from its
    #: seed (None: on all of them).
    bin_subsample: int | None = None
    #: The most examples a tree draws (a bootstrap of min(n, it) draws, or that many distinct
    #: examples without bootstrap); None: all n, the trees of old.
    max_tree_samples: int | None = None

    @classmethod
    def from_sklearn(
        cls,
        random_splits: bool,
        params: dict[str, Any],
        max_bins: int = 0,
        bin_subsample: int | None = None,
        max_tree_samples: int | None = None,
        criterion: str = "gini",
    ) -> FastForestParams:
        """Map scikit-learn forest parameters; refuse any the fast engine does not implement.
        ``criterion``: the one split criterion it implements for the task (``"gini"`` for the
        classifiers' trees, ``"squared_error"`` for the regressor's)."""
        unknown = sorted(set(params) - set(SUPPORTED_PARAMS))
        if unknown:
            # a forest's own class_weight would weigh its fold's rows apart from the level's score
            hint = (
                "; the estimator's class_weight weighs every engine's trees"
                if "class_weight" in unknown
                else ""
            )
            raise ValueError(
                f"engine='fast' does not implement the forest parameter(s) {unknown}; "
                f"it supports {list(SUPPORTED_PARAMS)} (use engine='sklearn' for the others{hint})"
            )
        given = params.get("criterion", criterion)
        if given != criterion:
            raise ValueError(
                f"engine='fast' implements criterion={criterion!r} only; got criterion={given!r}"
            )
        return cls(
            random_splits=random_splits,
            max_features=params["max_features"],
            bootstrap=bool(params["bootstrap"]),
            max_depth=params.get("max_depth"),
            min_samples_split=int(params.get("min_samples_split", 2)),
            min_samples_leaf=int(params.get("min_samples_leaf", 1)),
            max_bins=max_bins,
            bin_subsample=bin_subsample,
            max_tree_samples=max_tree_samples,
        )


#: The fitted forest's numbering of child codes (:func:`local_child_codes`), kept with it.
ROOT_RELATIVE = "root-relative"
#: The arrays a fitted forest's predictions read, checksummed when it is pickled (a saved model, a
#: forest sent between processes) and checked when it is loaded.
STORED_ARRAYS = ("roots", "feature", "threshold", "left", "right", "leaf_values")
DIGEST_KEY = "_arrays_digest"


class FastForest:
    """The compiled engine's forest: ``n_trees`` trees on the class codes ``range(n_classes)``.

    Tree t's randomness depends only on (``seed``, t), so ``first(T)`` of a
    forest is the T-tree forest with the same seed.
    """

    def __init__(self, params: FastForestParams, n_trees: int, seed: int, n_classes: int) -> None:
        self.params = params
        self.n_trees = n_trees
        self.seed = seed
        self.n_classes = n_classes
        #: Shared with the ``first(T)`` forests taken from this one, once :meth:`memoize_leaves` sets it.
        self.leaf_memo: LeafMemo | None = None

    def fit(
        self,
        X: np.ndarray,
        y_code: np.ndarray,
        rows: np.ndarray | None = None,
        feature_major_rows: np.ndarray | None = None,
        sample_weight: np.ndarray | None = None,
    ) -> FastForest:
        """Grow the forest on (X, y_code), or on the examples ``rows`` of them (without copying them
        example-major first: the compiled code reads a feature-major copy, made here unless given as
        ``feature_major_rows``, ``feature_major(X, rows)``, which forests of one fold can share).
        ``sample_weight``: one non-negative weight per example of X (checked by the estimators; read
        as :func:`~disdf.forests._compiled.kernels.grow_forest` says), or None: no weights."""
        X = _as_input(X)
        y_code = np.ascontiguousarray(y_code if rows is None else y_code[rows], dtype=np.int64)
        Xt = feature_major(X, rows) if feature_major_rows is None else feature_major_rows
        n_rows = X.shape[0] if rows is None else len(rows)
        if Xt.shape != (X.shape[1], n_rows):
            raise ValueError(
                f"feature_major_rows must be feature_major(X, rows), of shape {(X.shape[1], n_rows)}; "
                f"got shape {Xt.shape}"
            )
        p = self.params
        import disdf.forests._compiled.kernels as kernels

        self.roots, feature, threshold, left, right, self.leaf_values, importances = kernels.grow_forest(
            Xt,
            y_code,
            _row_weights(sample_weight, rows, n_rows),
            self.n_classes,
            self.n_trees,
            self.seed,
            n_candidate_features(p.max_features, X.shape[1]),
            p.random_splits,
            p.bootstrap,
            -1 if p.max_depth is None else p.max_depth,
            p.min_samples_split,
            p.min_samples_leaf,
            kernels._HISTOGRAM_MIN_NODE,
            p.max_bins,
            _bin_sample(p, n_rows, self.seed),
            True,  # pure leaves share rows: what a fitted forest keeps
            0 if p.max_tree_samples is None else p.max_tree_samples,
        )
        del Xt
        self.n_features_in_ = X.shape[1]
        self.tree_importances = TreeImportances.from_raw(importances)
        self._compact(feature, threshold, left, right)
        return self

    def in_bag(self, n_rows: int, sample_weight: np.ndarray | None = None) -> np.ndarray:
        """(n_rows, T) booleans: whether each of the forest's n_rows training examples is in each tree's
        sample (``sample_weight``: the weights of those examples it grew with, None: none); the draws
        of :meth:`fit` made again (:func:`~disdf.forests._compiled.kernels.in_bag`)."""
        import disdf.forests._compiled.kernels as kernels

        p = self.params
        max_samples = 0 if p.max_tree_samples is None else p.max_tree_samples
        weights = _row_weights(sample_weight, None, n_rows)
        return kernels.in_bag(self.seed, self.n_trees, weights, n_rows, p.bootstrap, max_samples)

    def _compact(self, feature, threshold, left, right) -> None:
        """Keep the nodes in 10 bytes instead of 28: features int16 (below 32,768 features), thresholds
        float32, each rounded down to the largest float32 not above it, and child codes relative to
        their tree's root, int16 when every tree has at most 32,768 nodes and the forest at most
        32,768 leaf rows (on all of MNIST a completely-random tree has 22,000 nodes), else int32
        (:func:`local_child_codes`).

        Every prediction is unchanged: the kernels compare float32 values x, and for those
        ``x <= t`` holds exactly when ``x <= float32_floor(t)``. Pure leaves already share the
        rows of their class (:func:`~disdf.forests._compiled.kernels.grow_forest`): on 40,000
        MNIST images a completely-random tree has 22,000 leaves, 80 bytes each as rows of their own.
        """
        from disdf.forests._compiled.node_layout import float32_floor, local_child_codes

        self.roots, self.left, self.right = local_child_codes(self.roots, left, right, len(self.leaf_values))
        self.child_codes = ROOT_RELATIVE
        self.feature = feature.astype(np.int16 if self.n_features_in_ <= 2**15 else np.int32)
        self.threshold = float32_floor(threshold)

    def __getstate__(self) -> dict:
        """The forest's attributes, and a checksum of its tree arrays (:data:`STORED_ARRAYS`) once fitted."""
        state = dict(self.__dict__)
        if all(name in state for name in STORED_ARRAYS):
            state[DIGEST_KEY] = arrays_digest(state[name] for name in STORED_ARRAYS)
        return state

    def __setstate__(self, state: dict) -> None:
        """Restore, refusing tree arrays that do not match their checksum (a corrupted file)."""
        state = dict(state)
        saved = state.pop(DIGEST_KEY, None)
        if saved is not None and arrays_digest(state[name] for name in STORED_ARRAYS) != saved:
            raise CorruptedModelError(
                "A saved disdf model is corrupted: a forest's tree arrays do not match the checksum saved "
                "with them (the file changed after it was written). Restore the file or refit the model"
            )
        self.__dict__.update(state)

    def _arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return self.roots, self.feature, self.threshold, self.left, self.right

    def _routing_block(self, X: np.ndarray) -> int:
        """Examples routed through one tree before the next (:func:`prediction_kernels.routing_block`;
        the same results for any block). A ``first(T)`` forest shares its parent's nodes, so it
        reckons its trees larger than they are: a larger block, no other change."""
        import disdf.forests._compiled.prediction_kernels as prediction_kernels

        return prediction_kernels.routing_block(
            X, len(self.roots), self.feature, self.threshold, self.left, self.right
        )

    def first(self, n_trees: int) -> FastForest:
        """The forest of its first ``n_trees`` trees (shares the node arrays)."""
        if not 1 <= n_trees <= self.n_trees:
            raise ValueError(f"first(n_trees) needs 1 <= n_trees <= {self.n_trees}; got {n_trees}")
        head = type(self)(self.params, n_trees, self.seed, self.n_classes)
        head.__dict__.update({k: v for k, v in self.__dict__.items() if k not in ("n_trees", "roots")})
        head.roots = self.roots[:n_trees]
        return head

    def apply(self, X: np.ndarray) -> np.ndarray:
        """Row of ``leaf_values`` (the class distribution) each example reaches in each tree, shape (n, T).

        Pure leaves of one class share a row, so a row is not one leaf.
        """
        X = _as_input(X)
        import disdf.forests._compiled.prediction_kernels as prediction_kernels

        return prediction_kernels.apply_forest(X, *self._arrays(), self._routing_block(X))

    def probabilities(self, X: np.ndarray) -> np.ndarray:
        """Per-tree class probabilities of X, shape (n_examples, T, n_classes)."""
        X = _as_input(X)
        block = self._routing_block(X)
        import disdf.forests._compiled.prediction_kernels as prediction_kernels

        return prediction_kernels.tree_probabilities(X, *self._arrays(), self.leaf_values, block)

    def tree_leaves(self, X: np.ndarray, rows: np.ndarray | None = None) -> TreeLeaves:
        """:meth:`probabilities` of X (of its examples ``rows``, read in place) kept as leaf rows of
        ``leaf_values``: 4 bytes per example and tree."""
        X = _as_input(X)
        if rows is None or len(self.leaf_values) >= 2**31 - 1:
            return TreeLeaves(leaf_rows(self.apply(X if rows is None else X[rows])), self.leaf_values)
        rows = np.ascontiguousarray(rows, dtype=np.int64)
        import disdf.forests._compiled.prediction_kernels as prediction_kernels

        leaves = prediction_kernels.apply_rows(X, rows, *self._arrays(), self._routing_block(X))
        return TreeLeaves(leaves, self.leaf_values)

    def weighted_probabilities(self, X: np.ndarray, w: np.ndarray) -> np.ndarray:
        """Class vector sum_t w_t p_i^(t) of eq. (41), shape (n_examples, n_classes)."""
        w = np.ascontiguousarray(w, dtype=np.float64)
        import disdf.forests._compiled.prediction_kernels as prediction_kernels

        X = _as_input(X)
        if self.leaf_memo is not None and self.leaf_memo.fits(X):
            leaves = self.leaf_memo.leaves(X, self.feature, self.threshold, self.left, self.right)
            return prediction_kernels.weighted_leaf_rows(leaves, self.leaf_values, w)
        block = self._routing_block(X)
        return prediction_kernels.weighted_probabilities(X, *self._arrays(), self.leaf_values, w, block)

    def feature_importances(self, w: np.ndarray | None = None) -> np.ndarray:
        """Impurity-based importances of the input features: the trees' normalised mean decreases in
        Gini impurity (sample weights and bootstrap counts in the node weights, as in scikit-learn),
        averaged with the tree weights ``w`` (None: uniform, scikit-learn's forest rule) and
        normalised to sum 1 (:mod:`disdf.forests._importances`); shape ``(n_features_in_,)``."""
        return self.tree_importances.first(self.n_trees).weighted(w)

    def memoize_leaves(self) -> None:
        """Let this forest and the ``first(T)`` forests taken from it from now on share the leaves of
        the last examples they classified (:mod:`disdf.forests._compiled.leaf_memo`; same numbers)."""
        self.leaf_memo = LeafMemo(self.roots)


#: Forests on at least this many values (examples x features) grow on a float32 feature-major copy
#: of X, smaller ones on a float64 one (the same trees; float64 is faster, float32 half the memory).
FLOAT32_GROWTH_VALUES = 1 << 22


def feature_major(X: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """X[rows] (all of X when None) feature-major and C-ordered, the copy the compiled growth reads;
    gathered block by block, so no example-major copy of the rows is made."""
    n = X.shape[0] if rows is None else len(rows)
    dtype = np.float32 if n * X.shape[1] >= FLOAT32_GROWTH_VALUES else np.float64
    Xt = np.empty((X.shape[1], n), dtype=dtype)
    block = max(1, (1 << 20) // max(X.shape[1], 1))
    for start in range(0, n, block):
        Xt[:, start : start + block] = (
            X[start : start + block] if rows is None else X[rows[start : start + block]]
        ).T
    return Xt


#: Mixed into a forest's seed for its bin sample: a stream of its own, apart from every tree's.
_BIN_SAMPLE_STREAM = 0x62696E73


def _bin_sample(params: FastForestParams, n_rows: int, seed: int) -> np.ndarray:
    """The examples the bin edges are placed on, a boolean mask of the forest's ``n_rows`` (``bin_subsample``
    of them drawn without replacement from the forest's seed); empty: all of them (also when the
    forest bins nothing, on 256 examples or fewer, or the sample would hold them all)."""
    size = params.bin_subsample
    import disdf.forests._compiled.kernels as kernels

    if params.max_bins == 0 or size is None or size >= n_rows or n_rows <= kernels._MAX_CODES:
        return np.empty(0, dtype=np.bool_)
    chosen = np.random.default_rng([seed, _BIN_SAMPLE_STREAM]).choice(n_rows, size, replace=False)
    mask = np.zeros(n_rows, dtype=np.bool_)
    mask[chosen] = True
    return mask


def _row_weights(sample_weight: np.ndarray | None, rows: np.ndarray | None, n_rows: int) -> np.ndarray:
    """The grown examples' weights as the kernels read them (empty: no weights); refused when they
    sum to 0, as every leaf would then know nothing."""
    if sample_weight is None:
        return np.empty(0)
    weights = np.ascontiguousarray(sample_weight if rows is None else sample_weight[rows], dtype=np.float64)
    if weights.shape != (n_rows,) or not weights.sum() > 0:
        raise ValueError(
            f"sample_weight of the forest's {n_rows} training examples must be {n_rows} weights >= 0 "
            f"of positive sum; got shape {weights.shape} and sum {weights.sum()}"
        )
    return weights


def _all_finite(X: np.ndarray) -> bool:
    """np.isfinite(X).all() a block of rows at a time (no boolean copy of a large X)."""
    block = max(1, (1 << 22) // X.shape[1])
    return all(np.isfinite(X[start : start + block]).all() for start in range(0, X.shape[0], block))


def _as_input(X: np.ndarray) -> np.ndarray:
    """X as the kernels read it, C-ordered float32; refused as scikit-learn's forests refuse it.

    A finite float64 beyond the float32 maximum becomes inf here, so finiteness is
    checked after the conversion, with scikit-learn's message. What the cascade passes
    (a finite C-ordered 2-d float32 ndarray, several hundred times per split) is taken
    as it is: ``check_array`` would return it unchanged after about 70 µs of checks.
    """
    if (
        type(X) is np.ndarray
        and X.dtype == np.float32
        and X.ndim == 2
        and X.flags.c_contiguous
        and X.shape[0] > 0
        and X.shape[1] > 0
        and _all_finite(X)
    ):
        return X
    with np.errstate(over="ignore"):  # the overflow is reported as the error below, not as a warning
        return check_array(X, dtype=np.float32, order="C", input_name="X")
