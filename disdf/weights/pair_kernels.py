"""Compiled pair kernels: Q_ij^t = ||a_it - a_jt||_1 row by row, with no (pairs, T, C) temporary."""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(cache=True, nogil=True)
def manhattan_rows(tree_probabilities: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Row p, column t: sum_c |P[first[p], t, c] - P[second[p], t, c]|, shape (pairs, T)."""
    _, n_trees, n_classes = tree_probabilities.shape
    q = np.empty((first.shape[0], n_trees))
    for p in range(first.shape[0]):
        a = tree_probabilities[first[p]]
        b = tree_probabilities[second[p]]
        for t in range(n_trees):
            total = 0.0
            for c in range(n_classes):
                total += abs(a[t, c] - b[t, c])
            q[p, t] = total
    return q
