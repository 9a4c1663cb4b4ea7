"""The leaves a forest sends the last examples it saw to, shared by the forests of its first T trees.

A sweep over T on one split (:func:`disdf.cascade._shared_first_level.fit_sharing_first_level`)
gives every cascade the first T trees of one shared level 1, and every cascade
then routes the same test examples through them: a split of the paper's
protocol routed them through 2,200 trees per fold model where 1,000 hold every
one of them. With a memo, the first cascade routes them through all the shared
trees once; the others read their first T leaves back. The class vectors are
the same numbers, summed in the same order (:func:`prediction_kernels.weighted_leaf_rows`).
"""

from __future__ import annotations

import hashlib
import threading

import numpy as np

#: Largest memo, in bytes of leaf rows (int32, examples x trees); larger inputs are routed as
#: without a memo, so a big prediction costs no more memory than before.
MAX_MEMO_BYTES = 64 * 2**20


class LeafMemo:
    """For one fitted forest's full set of trees (``roots``): the leaf row of every tree for the
    last X (kept while X has at most :data:`MAX_MEMO_BYTES` of them), recognised by its content."""

    def __init__(self, roots: np.ndarray) -> None:
        self.roots = roots
        self._key: tuple | None = None
        self._leaves: np.ndarray | None = None
        self._lock = threading.Lock()

    def __getstate__(self) -> dict:  # a pickled forest keeps its trees, not the memo's contents
        return {"roots": self.roots}

    def __setstate__(self, state: dict) -> None:
        type(self).__init__(self, state["roots"])

    def fits(self, X: np.ndarray) -> bool:
        return X.shape[0] * self.roots.shape[0] * 4 <= MAX_MEMO_BYTES

    def leaves(self, X: np.ndarray, feature, threshold, left, right) -> np.ndarray:
        """Leaf rows of X (C-ordered float32) in every tree, shape (n, T_all), int32."""
        import disdf.forests._compiled.prediction_kernels as prediction_kernels

        key = (X.shape, hashlib.blake2b(X.data, digest_size=16).digest())
        with self._lock:
            if key != self._key:
                nodes = (feature, threshold, left, right)
                block = prediction_kernels.routing_block(X, len(self.roots), *nodes)
                rows = prediction_kernels.apply_forest(X, self.roots, *nodes, block)
                self._key, self._leaves = key, rows.astype(np.int32)
            assert self._leaves is not None  # set with _key, which now equals key (never None)
            return self._leaves
