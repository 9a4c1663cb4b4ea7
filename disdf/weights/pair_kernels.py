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


@nb.njit(cache=True, nogil=True)
def pure_classes(tree_probabilities: np.ndarray) -> np.ndarray:
    """Entry (i, t): the class c if tree t gives example i the one-hot vector of c, else -1, shape (n, T).

    Fully grown trees end in pure leaves, so nearly every entry is one-hot; the
    Manhattan distance of two one-hot vectors is 0 or 2 without reading them.
    """
    n, n_trees, n_classes = tree_probabilities.shape
    pure = np.full((n, n_trees), -1, dtype=np.int16)
    for i in range(n):
        for t in range(n_trees):
            one = -1
            for c in range(n_classes):
                value = tree_probabilities[i, t, c]
                if value == 1.0 and one < 0:
                    one = c
                elif value != 0.0:
                    one = -2
                    break
            if one >= 0:
                pure[i, t] = one
    return pure


@nb.njit(cache=True, nogil=True)
def _manhattan_into(tree_probabilities, pure, i, j, row):
    """row[t] = Q_ij^t, from the pure classes where both vectors are one-hot (exactly 0 or 2, as the
    sum over classes gives), else summed over the classes in order as :func:`manhattan_rows` does."""
    n_trees, n_classes = tree_probabilities.shape[1], tree_probabilities.shape[2]
    for t in range(n_trees):
        a, b = pure[i, t], pure[j, t]
        if a >= 0 and b >= 0:
            row[t] = 0.0 if a == b else 2.0
        else:
            total = 0.0
            for c in range(n_classes):
                total += abs(tree_probabilities[i, t, c] - tree_probabilities[j, t, c])
            row[t] = total


@nb.njit(cache=True, nogil=True)
def manhattan_rows_of_pure(
    tree_probabilities: np.ndarray, pure: np.ndarray, first: np.ndarray, second: np.ndarray
) -> np.ndarray:
    """:func:`manhattan_rows`, the same numbers, given ``pure`` = :func:`pure_classes` of the
    probabilities: a pair of one-hot vectors (nearly every pair of fully grown trees) costs O(1)."""
    q = np.empty((first.shape[0], tree_probabilities.shape[1]))
    for p in range(first.shape[0]):
        _manhattan_into(tree_probabilities, pure, first[p], second[p], q[p])
    return q


@nb.njit(cache=True, nogil=True)
def sampled_hinge_sums(tree_probabilities, pure, first, second, w, tau, pull):
    """Over the pairs (first[b], second[b]): pull = sum_b max(0, S_b) Q_b and the return value
    sum_b max(0, S_b)^2, with S_b = tau - <Q_b, w>; no (pairs, T) array."""
    n_trees = w.shape[0]
    row = np.empty(n_trees)
    for t in range(n_trees):
        pull[t] = 0.0
    value = 0.0
    for b in range(first.shape[0]):
        _manhattan_into(tree_probabilities, pure, first[b], second[b], row)
        slack = tau
        for t in range(n_trees):
            slack -= row[t] * w[t]
        if slack > 0.0:
            value += slack * slack
            for t in range(n_trees):
                pull[t] += slack * row[t]
    return value
