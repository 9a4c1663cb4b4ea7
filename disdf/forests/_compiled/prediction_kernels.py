"""Compiled (numba) kernels that read a grown forest: which leaf row every example reaches, per-tree
and weighted class probabilities, and the leaf table in which pure leaves share a row.

The forest's arrays are those :func:`disdf.forests._compiled.kernels.grow_forest` returns (the layout is
in that module's docstring), with the children's codes relative to their tree's root, as a fitted
:class:`~disdf.forests._compiled.FastForest` keeps them
(:func:`disdf.forests._compiled.node_layout.local_child_codes`).
These kernels call no kernel of growing, nor it one of theirs, so
they can live in a file of their own: numba's ``cache=True`` keys a cached function on its own
file only (numba issue 1833), and a cached kernel here calls compiled code of this file only.
"""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(cache=True, nogil=True)
def _leaf(X, i, root, feature, threshold, left, right):
    """The leaf row example i of X reaches in the tree whose root has child code ``root``.

    The children's codes are relative to their tree's root (node ``root + code``; see
    :func:`disdf.forests._compiled.node_layout.local_child_codes`), so they fit int16 in trees of up to 32,768
    nodes; a negative code is the leaf row ``-code - 1``.
    """
    if root < 0:
        return -np.int64(root) - 1
    node = np.int64(root)
    while True:
        if X[i, feature[node]] <= threshold[node]:
            code = np.int64(left[node])
        else:
            code = np.int64(right[node])
        if code < 0:
            return -code - 1
        node = root + code


#: Examples routed together through one tree before the next tree (:func:`apply_rows` and the other
#: kernels that route every example through every tree), at least: a tree's upper nodes stay in cache
#: while a block's examples pass them, instead of every tree's evicting the others' per example, and
#: the block's rows of X stay in cache while every tree reads them. The results are the same for any
#: block size: each output is written once, each sum over trees still runs t = 0, 1, ...
ROUTING_BLOCK = 256
#: The largest block :func:`routing_block` chooses.
ROUTING_BLOCK_MAX = 1 << 15
#: A block holds about this many trees' bytes of X rows (:func:`routing_block`).
TREES_OF_ROWS = 3


def routing_block(X: np.ndarray, n_trees: int, *node_arrays: np.ndarray) -> int:
    """Examples per block for routing X through a forest of ``n_trees`` trees whose nodes are
    ``node_arrays`` (feature, threshold, left, right): about :data:`TREES_OF_ROWS` trees' bytes of X
    rows, between :data:`ROUTING_BLOCK` and :data:`ROUTING_BLOCK_MAX`.

    Why: a block pays for each tree's nodes once, and for its rows of X once per tree unless they
    stay in cache. Wide rows and small trees (MNIST: 3 KB per row, 22,000 nodes per tree) route
    fastest in small blocks, which keep the rows in cache; narrow rows and large trees (HIGGS-shaped:
    112-144 bytes per row; a completely-random tree of 200,000 examples: 1.5 MB) in large ones, which
    load each tree fewer times (results/bench/routing_block.csv).
    """
    node_bytes = sum(array.itemsize for array in node_arrays)
    tree_bytes = node_arrays[0].shape[0] * node_bytes / max(n_trees, 1)
    row_bytes = max(X.shape[1] * X.itemsize, 1)
    return int(min(max(TREES_OF_ROWS * tree_bytes // row_bytes, ROUTING_BLOCK), ROUTING_BLOCK_MAX))


@nb.njit(cache=True, nogil=True)
def apply_forest(X, roots, feature, threshold, left, right, block=ROUTING_BLOCK):
    """Leaf index of every example in every tree, shape (n, T)."""
    n = X.shape[0]
    n_trees = roots.shape[0]
    leaves = np.empty((n, n_trees), dtype=np.int64)
    for first in range(0, n, block):
        stop = min(first + block, n)
        for t in range(n_trees):
            for i in range(first, stop):
                leaves[i, t] = _leaf(X, i, roots[t], feature, threshold, left, right)
    return leaves


@nb.njit(cache=True, nogil=True)
def apply_rows(X, rows, roots, feature, threshold, left, right, block=ROUTING_BLOCK):
    """:func:`apply_forest` of the examples ``rows`` of X, read in place: int32, shape (len(rows), T)."""
    n_trees = roots.shape[0]
    n = rows.shape[0]
    leaves = np.empty((n, n_trees), dtype=np.int32)
    for first in range(0, n, block):
        stop = min(first + block, n)
        for t in range(n_trees):
            for r in range(first, stop):
                leaves[r, t] = _leaf(X, rows[r], roots[t], feature, threshold, left, right)
    return leaves


@nb.njit(cache=True, nogil=True)
def tree_probabilities(X, roots, feature, threshold, left, right, leaf_values, block=ROUTING_BLOCK):
    """Per-tree class distributions p_i^(t) of every example, shape (n, T, C)."""
    n = X.shape[0]
    n_trees = roots.shape[0]
    n_classes = leaf_values.shape[1]
    out = np.empty((n, n_trees, n_classes))
    for first in range(0, n, block):
        stop = min(first + block, n)
        for t in range(n_trees):
            for i in range(first, stop):
                out[i, t, :] = leaf_values[_leaf(X, i, roots[t], feature, threshold, left, right)]
    return out


@nb.njit(cache=True, nogil=True)
def weighted_probabilities(X, roots, feature, threshold, left, right, leaf_values, w, block=ROUTING_BLOCK):
    """Class vectors sum_t w_t p_i^(t) of eq. (41), shape (n, C), without the (n, T, C) array."""
    n = X.shape[0]
    n_trees = roots.shape[0]
    n_classes = leaf_values.shape[1]
    out = np.zeros((n, n_classes))
    for first in range(0, n, block):
        stop = min(first + block, n)
        for t in range(n_trees):
            for i in range(first, stop):
                leaf = _leaf(X, i, roots[t], feature, threshold, left, right)
                for c in range(n_classes):
                    out[i, c] += w[t] * leaf_values[leaf, c]
    return out


@nb.njit(cache=True, nogil=True)
def weighted_leaf_rows(leaves, leaf_values, w):
    """:func:`weighted_probabilities` of examples whose leaf rows are known, ``leaves`` (n, >= T):
    the same sums in the same order, over the first T = len(w) trees."""
    n = leaves.shape[0]
    n_classes = leaf_values.shape[1]
    out = np.zeros((n, n_classes))
    for i in range(n):
        for t in range(w.shape[0]):
            leaf = leaves[i, t]
            for c in range(n_classes):
                out[i, c] += w[t] * leaf_values[leaf, c]
    return out


@nb.njit(cache=True, nogil=True)
def share_pure_leaves(roots, left, right, leaf_values):
    """Every pure leaf of class c pointed at row c of a new table (rows 0..C-1: the one-hot
    distributions), each impure leaf at a row of its own after them, in leaf order.

    Returns (roots, left, right, table): the child codes remapped (int64), and the table.
    """
    n_leaves, n_classes = leaf_values.shape
    row_of_leaf = np.empty(n_leaves, dtype=np.int64)
    n_impure = 0
    for leaf in range(n_leaves):
        top = 0  # the first largest class, as np.argmax
        for c in range(1, n_classes):
            if leaf_values[leaf, c] > leaf_values[leaf, top]:
                top = c
        if leaf_values[leaf, top] == 1.0:
            row_of_leaf[leaf] = top
        else:
            row_of_leaf[leaf] = n_classes + n_impure
            n_impure += 1
    table = np.zeros((n_classes + n_impure, n_classes))
    for c in range(n_classes):
        table[c, c] = 1.0
    for leaf in range(n_leaves):
        row = row_of_leaf[leaf]
        if row >= n_classes:
            for c in range(n_classes):
                table[row, c] = leaf_values[leaf, c]
    return _remap(roots, row_of_leaf), _remap(left, row_of_leaf), _remap(right, row_of_leaf), table


@nb.njit(cache=True, nogil=True)
def _remap(codes, row_of_leaf):
    """Child codes with every leaf code -l - 1 replaced by -row_of_leaf[l] - 1."""
    out = np.empty(codes.shape[0], dtype=np.int64)
    for j in range(codes.shape[0]):
        code = codes[j]
        out[j] = -row_of_leaf[-code - 1] - 1 if code < 0 else code
    return out
