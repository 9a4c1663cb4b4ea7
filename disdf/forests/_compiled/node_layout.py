"""How a fitted :class:`~disdf.forests._compiled.FastForest` keeps its nodes: in 10 bytes instead of 28.

The growth kernels return every node as an int64 feature, a float64 threshold and two int64
child codes (node indices, negative codes for leaf rows). The fitted forest keeps

* each child code relative to its tree's root, in the smallest of int16, int32 and int64 that
  holds every code (:func:`local_child_codes`);
* each threshold as the largest float32 not above it (:func:`float32_floor`): the prediction
  kernels compare float32 values x, and for those ``x <= t`` holds exactly when
  ``x <= float32_floor(t)``.

Both run once per fitted forest, thousands of times in one protocol split, so each is one compiled
pass over the nodes (numpy's version of each took a tenth of a small completely-random forest's
fit). Its kernels call no other file's, as numba's ``cache=True`` needs (numba issue 1833).
"""

from __future__ import annotations

import numba as nb
import numpy as np


def local_child_codes(
    roots: np.ndarray, left: np.ndarray, right: np.ndarray, n_leaf_rows: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The grown forest's child codes (node indices, negative for leaf rows) as the fitted forest keeps
    them: a node's children relative to its tree's root (the tree's first node: its nodes are
    ``root, root + 1, ...``, written before the next tree's), leaf codes as they are, in the smallest of
    int16, int32 and int64 that holds every code; roots stay node indices (int32, or int64 past 2**31).
    """
    n_nodes = len(left)
    starts = np.ascontiguousarray(roots[roots >= 0], dtype=np.int64)  # one-leaf trees have no nodes
    sizes = np.diff(np.append(starts, n_nodes))
    largest = max(int(sizes.max(initial=0)), n_leaf_rows)
    code_type = next(t for t in (np.int16, np.int32, np.int64) if largest <= -int(np.iinfo(t).min))
    root_type = np.int32 if max(n_nodes, n_leaf_rows) < 2**31 - 1 else np.int64
    local = []
    for codes in (left, right):
        out = np.empty(n_nodes, dtype=code_type)
        _root_relative(starts, np.ascontiguousarray(codes, dtype=np.int64), out)
        local.append(out)
    return roots.astype(root_type), local[0], local[1]


def float32_floor(values: np.ndarray) -> np.ndarray:
    """Each float64 value as the largest float32 not above it (for float32 x: x <= t iff x <= this)."""
    values = np.ascontiguousarray(values, dtype=np.float64)
    with np.errstate(over="ignore"):  # past float32's largest: inf, stepped down to the largest
        out = values.astype(np.float32)
    _step_down_where_rounded_up(values, out, out.view(np.int32))
    return out


@nb.njit(cache=True, nogil=True)
def _root_relative(starts, codes, out):
    """``out[j]``: node code ``codes[j]`` minus its tree's first node, leaf codes (< 0) as they are.
    Without a branch per node: whether a child is a leaf is a coin toss the CPU cannot predict."""
    n_nodes = codes.size
    for tree in range(starts.size):
        start = starts[tree]
        stop = starts[tree + 1] if tree + 1 < starts.size else n_nodes
        for node in range(start, stop):
            code = codes[node]
            out[node] = code - start * (code >= 0)


@nb.njit(cache=True, nogil=True)
def _step_down_where_rounded_up(values, rounded, bits):
    """One float32 step toward -inf for every ``rounded[i]`` (``values[i]`` rounded to nearest)
    above ``values[i]``.

    ``bits`` is ``rounded`` viewed as int32, where a step toward -inf is -1 for a positive float and
    +1 for a negative one (sign bit set: bits < 0). Only -0.0 can need a step at zero (a tiny negative
    value rounds to it), and +1 takes it to the negative float32 closest to zero. Without a branch:
    rounding up or down is a coin toss the CPU cannot predict.
    """
    for i in range(values.size):
        up = np.int32(np.float64(rounded[i]) > values[i])
        pattern = bits[i]
        bits[i] = pattern - up * (np.int32(1) - np.int32(2) * np.int32(pattern < 0))
