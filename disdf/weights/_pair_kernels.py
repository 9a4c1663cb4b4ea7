"""Compiled pair kernels: Q_ij^t = ||a_it - a_jt||_1 row by row, with no (pairs, T, C) temporary.

Every compiled function of the weight solvers that calls another one lives here, the callers
with their callees: the pair draws and the iterations of the stochastic solver too. numba's
``cache=True`` keys a cached function on its own file only (numba issue 1833), so a cached caller
in another file would keep running a callee's old code after the callee changed
(tests/disdf/test_layout.py checks the rule, tests/disdf/test_compiled_cache.py the consequence).
"""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(cache=True, nogil=True)
def manhattan_rows(tree_probabilities: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Row p, column t: ``sum_c |P[first[p], t, c] - P[second[p], t, c]|``, shape (pairs, T)."""
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


def pure_classes(tree_probabilities: np.ndarray) -> np.ndarray:
    """Entry (i, t): the class c if tree t gives example i the one-hot vector of c, else -1, shape (n, T).

    Fully grown trees end in pure leaves, so nearly every entry is one-hot; the
    Manhattan distance of two one-hot vectors is 0 or 2 without reading them.
    int8 up to 128 classes (int16 beyond): the pair kernels read two rows of it per pair, at random,
    and at large held-out sets those reads, not the arithmetic, take most of their time.
    """
    n, n_trees, n_classes = tree_probabilities.shape
    dtype = np.int8 if n_classes <= np.iinfo(np.int8).max + 1 else np.int16
    pure = np.full((n, n_trees), -1, dtype=dtype)
    _mark_pure(tree_probabilities, pure)
    return pure


@nb.njit(cache=True, nogil=True)
def class_counts_of_pure(pure, codes, n_labels, n_classes):
    """Entry (g, t, c): the examples of label code g (``codes``) that tree t gives the one-hot vector
    of class c, for ``pure`` = :func:`pure_classes` with every entry one-hot (>= 0); int64."""
    n, n_trees = pure.shape
    counts = np.zeros((n_labels, n_trees, n_classes), dtype=np.int64)
    for i in range(n):
        g = codes[i]
        for t in range(n_trees):
            counts[g, t, pure[i, t]] += 1
    return counts


def pure_classes_of_rows(leaves: np.ndarray, table: np.ndarray) -> np.ndarray:
    """:func:`pure_classes` of the probabilities ``table[leaves]`` (shape (n, T, C)), without them:
    entry (i, t) is the class of row ``leaves[i, t]`` of ``table`` if that row is a one-hot vector,
    else -1 (the same dtype and numbers)."""
    row_class = pure_classes(np.ascontiguousarray(table, dtype=np.float64)[:, None, :])[:, 0]
    return row_class[leaves]


@nb.njit(cache=True, nogil=True)
def _mark_pure(tree_probabilities, pure):
    """pure[i, t] = c where tree t gives example i the one-hot vector of c (other entries as they are)."""
    n, n_trees, n_classes = tree_probabilities.shape
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


@nb.njit(cache=True, nogil=True, inline="always")
def _manhattan_entry(tree_probabilities, pure, i, j, t):
    """Q_ij^t: from the pure classes where both vectors are one-hot (exactly 0 or 2, as the sum over
    classes gives; without a branch on whether the classes differ, a coin toss the CPU cannot
    predict), else summed over the classes in order as :func:`manhattan_rows` does. Inlined where
    numba compiles its callers: called, the sampled pairs' loop ran about half as fast."""
    a, b = pure[i, t], pure[j, t]
    if a >= 0 and b >= 0:
        return 2.0 * np.float64(a != b)
    total = 0.0
    for c in range(tree_probabilities.shape[2]):
        total += abs(tree_probabilities[i, t, c] - tree_probabilities[j, t, c])
    return total


@nb.njit(cache=True, nogil=True)
def _manhattan_into(tree_probabilities, pure, i, j, row):
    """row[t] = Q_ij^t for every tree t (:func:`_manhattan_entry`)."""
    for t in range(row.shape[0]):
        row[t] = _manhattan_entry(tree_probabilities, pure, i, j, t)


@nb.njit(cache=True, nogil=True)
def manhattan_rows_of_pure(
    tree_probabilities: np.ndarray, pure: np.ndarray, first: np.ndarray, second: np.ndarray
) -> np.ndarray:
    """:func:`manhattan_rows`, the same numbers, given ``pure`` = :func:`pure_classes` of the
    probabilities: a pair of one-hot vectors (nearly every pair of fully grown trees) costs O(1), and a
    pair of examples whose every vector is one-hot is one branch-free pass over their classes."""
    n_trees = tree_probabilities.shape[1]
    q = np.empty((first.shape[0], n_trees))
    one_hot = _one_hot_rows(pure)
    for p in range(first.shape[0]):
        i, j = first[p], second[p]
        if one_hot[i] and one_hot[j]:  # every tree one-hot for both: a loop the compiler vectorises
            a, b, row = pure[i], pure[j], q[p]
            for t in range(n_trees):
                row[t] = 2.0 * np.float64(a[t] != b[t])
        else:
            _manhattan_into(tree_probabilities, pure, i, j, q[p])
    return q


@nb.njit(cache=True, nogil=True)
def _one_hot_rows(pure: np.ndarray) -> np.ndarray:
    """Whether every tree gives example i a one-hot vector (row i of ``pure`` has no -1)."""
    one_hot = np.ones(pure.shape[0], dtype=np.bool_)
    for i in range(pure.shape[0]):
        for t in range(pure.shape[1]):
            if pure[i, t] < 0:
                one_hot[i] = False
                break
    return one_hot


#: No sum of :func:`_touch_rows` reaches it (its entries are at least -1 and at most 2**15 - 1).
_NEVER = -(2**62)


@nb.njit(cache=True, nogil=True)
def _touch_rows(pure, first, second):
    """Read one entry per 64 bytes of the rows ``pure[first]`` and ``pure[second]``, and their sum.

    At large held-out sets the batch's rows are far apart in memory, and the pass over a pair's trees
    waits for them one pair after another; these reads depend on nothing but the indices, so the CPU
    issues many at once, and the pairs' passes then find their rows in cache. The sum is compared
    with :data:`_NEVER` so that the reads are not optimised away; it changes no number.
    """
    step = max(1, 64 // pure.itemsize)
    total = 0
    for b in range(first.shape[0]):
        i, j = first[b], second[b]
        for t in range(0, pure.shape[1], step):
            total += np.int64(pure[i, t]) + np.int64(pure[j, t])
    return total


@nb.njit(cache=True, nogil=True)
def sampled_hinge_sums(tree_probabilities, pure, first, second, w, tau, pull, example_weight):
    """Over the pairs (first[b], second[b]): pull = sum_b c_b max(0, S_b) Q_b and the return value
    sum_b c_b max(0, S_b)^2, with S_b = tau - <Q_b, w> and c_b the product of the pair's two
    ``example_weight`` (ones: exactly the unweighted sums, as 1.0 * x == x); no (pairs, T) array.

    Q_b^t (:func:`_manhattan_entry`) is found and subtracted from S_b in one pass over the trees, in
    the order t = 0, 1, ... of the dot product with a whole row of Q (the same numbers).
    """
    n_trees = w.shape[0]
    row = np.empty(n_trees)
    for t in range(n_trees):
        pull[t] = 0.0
    value = 0.0
    if _touch_rows(pure, first, second) == _NEVER:  # never true: it keeps the loads
        pull[0] += 0.0
    for b in range(first.shape[0]):
        i, j = first[b], second[b]
        slack = tau
        for t in range(n_trees):
            q = _manhattan_entry(tree_probabilities, pure, i, j, t)
            row[t] = q
            slack -= q * w[t]
        if slack > 0.0:
            weighted = example_weight[i] * example_weight[j] * slack
            value += weighted * slack
            for t in range(n_trees):
                pull[t] += weighted * row[t]
    return value


@nb.njit(cache=True, nogil=True)
def pairs_of_uniforms(first_cdf, codes, counts, starts, by_class, u_first, u_second, first, second):
    """i: the first example whose cumulative share of different-class partners exceeds u_first; j:
    the rank floor(u_second * partners of i) among the examples outside i's class (class-sorted)."""
    n = codes.shape[0]
    for b in range(u_first.shape[0]):
        i = np.searchsorted(first_cdf, u_first[b], side="right")
        own = codes[i]
        rank = int(u_second[b] * (n - counts[own]))
        if rank >= starts[own]:
            rank += counts[own]
        first[b] = i
        second[b] = by_class[rank]


@nb.njit(cache=True, nogil=True)
def stochastic_iterations(
    tree_probabilities, pure, tables, quadratic, w, tau, n_pairs, uniforms, iterations, example_weight
):
    """The iterations of :func:`~disdf.weights._stochastic_frank_wolfe.stochastic_frank_wolfe` on
    pre-drawn uniforms (in place on w).

    ``uniforms[k]`` holds iteration k's draws (first examples, then partners), in the order
    ``PairSampler.sample`` draws them, so the pairs are those the sampler gives. The pair
    sampler's tables are ``tables``; ``quadratic`` is pi + lambda; ``example_weight`` weighs each
    drawn pair by the product of its examples' weights (:func:`sampled_hinge_sums`).
    """
    first_cdf, codes, counts, starts, by_class = tables
    n_trees = w.shape[0]
    batch_size = uniforms.shape[2]
    first = np.empty(batch_size, dtype=np.intp)
    second = np.empty(batch_size, dtype=np.intp)
    pull = np.empty(n_trees)
    averaged = np.zeros(n_trees)
    gradient = np.empty(n_trees)
    scale = n_pairs / batch_size
    for k in range(iterations):
        pairs_of_uniforms(
            first_cdf, codes, counts, starts, by_class, uniforms[k, 0], uniforms[k, 1], first, second
        )
        sampled_hinge_sums(tree_probabilities, pure, first, second, w, tau, pull, example_weight)
        rho = 4.0 / (k + 8) ** (2.0 / 3.0)
        for t in range(n_trees):
            estimate = -2.0 * scale * pull[t]
            averaged[t] = estimate if k == 0 else (1.0 - rho) * averaged[t] + rho * estimate
            gradient[t] = 2.0 * quadratic[t] * w[t] + averaged[t]
        toward = np.argmin(gradient)
        gamma = 2.0 / (k + 8)
        for t in range(n_trees):
            w[t] *= 1.0 - gamma
        w[toward] += gamma
