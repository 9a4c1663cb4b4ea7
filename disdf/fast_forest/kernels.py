"""Compiled (numba) kernels that grow and apply a whole forest in one call.

Layout of a fitted forest, flat arrays shared by all its trees:

* internal nodes: ``feature`` (int32), ``threshold`` (float64), ``left`` and
  ``right`` (int64 child codes);
* a child code ``c >= 0`` is an internal node, ``c < 0`` is the leaf ``-c - 1``;
* ``roots[t]`` is the child code of tree t's root (a leaf for a one-leaf tree);
* ``leaf_values[leaf, :]`` is the leaf's class distribution (weighted class
  counts of its training examples, normalised), over the cascade's full class
  list. :func:`grow_forest` writes one row per leaf; a fitted
  :class:`~disdf.fast_forest.FastForest` then lets pure leaves share rows and
  stores child codes as int32 (the prediction kernels take either).

Tree t's nodes and leaves are written after those of trees 0..t-1 and its
random stream depends only on (seed, t), so the first T trees of a forest are
exactly the T-tree forest with the same seed: slicing ``roots`` is enough.

The split rules follow scikit-learn's ``BestSplitter`` (random forests) and
``RandomSplitter`` (extremely randomised / completely-random trees) with the
Gini criterion: candidate features are drawn without replacement until
``max_features`` were visited, constant ones included (as scikit-learn
counts them), and further only until one non-constant feature was visited; a
split must leave ``min_samples_leaf`` distinct examples on each side.
"""

from __future__ import annotations

import numba as nb
import numpy as np

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
# Two values closer than this are one value for a split (scikit-learn's FEATURE_THRESHOLD).
_FEATURE_THRESHOLD = 1e-7
_EPSILON = 1e-12
# How a node orders its values of a feature (see _sort_method): insertion sort, filtering the
# forest's presorted order of the feature, or gathering and sorting.
_INSERT, _FILTER, _GATHER = 0, 1, 2
# Nodes up to this size always sort by insertion.
_INSERTION_SORT_MAX = 16
# Cost of one comparison-sort step relative to one step of filtering the presorted order: a
# node of m examples sorts (about m log2 m steps) unless filtering all n is cheaper. On a few
# hundred examples nodes filter; on tens of thousands most nodes are small against n and sort.
_SORT_STEP_COST = 0.5
# Up to this size a node that does not filter sorts by insertion (no allocation).
_GATHER_SORT_MIN = 48
# Constant features a random split draws in a node before it ORs the node's nonzero bits.
_DRAWS_BEFORE_BITS = 2


@nb.njit(cache=True, nogil=True)
def _splitmix(state: np.ndarray) -> np.uint64:
    """splitmix64: the next 64 random bits of the stream held in state[0]."""
    state[0] += _GOLDEN
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@nb.njit(cache=True, nogil=True)
def _uniform(state: np.ndarray) -> float:
    """Uniform in [0, 1) with 53 random bits."""
    return float(_splitmix(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@nb.njit(cache=True, nogil=True)
def _randint(state: np.ndarray, n: int) -> int:
    """Uniform integer in [0, n) (n is small, so the modulo bias is < 2**-40)."""
    return int(_splitmix(state) % np.uint64(n))


@nb.njit(cache=True, nogil=True)
def tree_stream(seed: int, tree: int) -> np.ndarray:
    """The random state of tree ``tree`` of the forest seeded with ``seed``."""
    state = np.empty(1, dtype=np.uint64)
    state[0] = np.uint64(seed) * _GOLDEN + np.uint64(tree)
    _splitmix(state)
    state[0] ^= np.uint64(tree) * _MIX1
    return state


@nb.njit(cache=True, nogil=True)
def _example_weights(state, n, bootstrap):
    """How often each example is in the tree's sample: a bootstrap of size n, or once each."""
    weight = np.zeros(n)
    if bootstrap:
        for _ in range(n):
            weight[_randint(state, n)] += 1.0
    else:
        weight[:] = 1.0
    return weight


@nb.njit(cache=True, nogil=True)
def bootstrap_counts(seed, tree, n):
    """The bootstrap counts tree ``tree`` of a bootstrapped forest seeded ``seed`` trains on."""
    return _example_weights(tree_stream(seed, tree), n, True)


@nb.njit(cache=True, nogil=True)
def _class_weights(y, weight, samples, start, end, counts):
    for c in range(counts.shape[0]):  # loops, not slice assignment: these arrays are tiny
        counts[c] = 0.0
    for s in range(start, end):
        i = samples[s]
        counts[y[i]] += weight[i]


@nb.njit(cache=True, nogil=True)
def _partition(Xt, samples, start, end, feature, threshold):
    """Move the node's examples with X[:, feature] <= threshold first; return the split position."""
    pos = start
    for s in range(start, end):
        i = samples[s]
        if Xt[feature, i] <= threshold:
            samples[s], samples[pos] = samples[pos], samples[s]
            pos += 1
    return pos


@nb.njit(cache=True, nogil=True)
def _sort_method(n_node, scan_length):
    """How a node orders its values of a feature: _INSERT, _FILTER or _GATHER.

    Filtering a presorted order costs ``scan_length`` steps whatever the node's
    size; a node much smaller than that sorts its own values instead, by
    insertion while small (no allocation), else by gathering and sorting.
    """
    if n_node <= _INSERTION_SORT_MAX:
        return _INSERT
    if _SORT_STEP_COST * n_node * np.log2(n_node) >= scan_length:
        return _FILTER
    return _INSERT if n_node <= _GATHER_SORT_MIN else _GATHER


@nb.njit(cache=True, nogil=True)
def _insert_sorted(values, sorted_samples, k, v, i):
    """Insertion-sort step: put value v of example i into the increasing values[:k] (k + 1 filled after)."""
    while k > 0 and values[k - 1] > v:
        values[k] = values[k - 1]
        sorted_samples[k] = sorted_samples[k - 1]
        k -= 1
    values[k] = v
    sorted_samples[k] = i


@nb.njit(cache=True, nogil=True)
def _sort_gathered(values, sorted_samples, k):
    """Sort values[:k] increasingly, carrying sorted_samples[:k] along.

    The order among equal values does not matter: a split position between
    equal values is never a threshold, and the class counts at every other
    position are the same for any order of the ties.
    """
    order = np.argsort(values[:k])
    gathered_values = values[:k].copy()
    gathered_samples = sorted_samples[:k].copy()
    for r in range(k):
        values[r] = gathered_values[order[r]]
        sorted_samples[r] = gathered_samples[order[r]]


@nb.njit(cache=True, nogil=True)
def _sorted_node_values(
    Xt, samples, start, end, feature, presorted, first_nonzero, mark, stamp, values, sorted_samples
):
    """The node's values of a feature in increasing order, into values / sorted_samples; returns n_zero.

    If first_nonzero[feature] > 0 (a non-negative feature with zeros: pixels),
    the node's n_zero zeros, its smallest values, are left out as one block that
    comes first in the order: most pixels of a small node are zero, so sorting
    only the rest saves most of the work. Otherwise n_zero is 0. How
    (:func:`_sort_method`): insertion sort, filtering the forest's presorted
    order of the feature past its zeros by node membership (``mark[i] ==
    stamp``; O(n), no comparisons), or gathering and sorting.
    """
    first = first_nonzero[feature]
    n_node = end - start
    method = _sort_method(n_node, presorted.shape[1] - first)
    k = 0
    if method == _FILTER:
        order = presorted[feature]
        for r in range(first, order.shape[0]):
            i = order[r]
            if mark[i] == stamp:
                values[k] = Xt[feature, i]
                sorted_samples[k] = i
                k += 1
        return n_node - k
    for s in range(start, end):
        i = samples[s]
        v = Xt[feature, i]
        if first > 0 and v == 0.0:
            continue
        if method == _INSERT:
            _insert_sorted(values, sorted_samples, k, v, i)
        else:
            values[k] = v
            sorted_samples[k] = i
        k += 1
    if method == _GATHER:
        _sort_gathered(values, sorted_samples, k)
    return n_node - k


@nb.njit(cache=True, nogil=True)
def _midpoint(v0, v1):
    """The threshold between consecutive distinct values v0 < v1: halfway, or v0 if that rounds to v1."""
    threshold = v0 / 2.0 + v1 / 2.0
    if threshold == v1 or threshold == np.inf or threshold == -np.inf:
        threshold = v0
    return threshold


@nb.njit(cache=True, nogil=True)
def _best_threshold(y, weight, n_node, n_zero, min_leaf, node_counts, values, sorted_samples, left, right):
    """Best Gini threshold of a feature (BestSplitter): (proxy, threshold, constant).

    The node's values in increasing order are n_zero zeros, then
    values[:n_node - n_zero] (of the examples sorted_samples[:n_node - n_zero]);
    ``constant`` if they span at most _FEATURE_THRESHOLD. The proxy
    sum_c L_c^2 / |L| + sum_c R_c^2 / |R| (larger = larger Gini decrease; -inf if
    no position leaves min_leaf examples on each side) is updated in O(1) per
    position from running sums of squares; with whole weights these sums are
    exact, so moving the zeros at once gives the proxies of one at a time.
    """
    n_sorted = n_node - n_zero
    if values[n_sorted - 1] <= (0.0 if n_zero > 0 else values[0]) + _FEATURE_THRESHOLD:
        return -np.inf, 0.0, True
    for c in range(left.shape[0]):  # left of the first position: the zeros, the node minus the rest
        left[c] = node_counts[c] if n_zero > 0 else 0.0
    for p in range(n_sorted if n_zero > 0 else 0):
        left[y[sorted_samples[p]]] -= weight[sorted_samples[p]]  # exact: whole bootstrap counts
    square_left = square_right = weight_left = weight_right = 0.0
    for c in range(right.shape[0]):
        right[c] = node_counts[c] - left[c]
        square_left += left[c] * left[c]
        weight_left += left[c]
        square_right += right[c] * right[c]
        weight_right += right[c]
    # proxy = numerator / denominator, compared by cross-multiplication: no division per position.
    best_numerator, best_denominator, best_threshold = -1.0, 1.0, 0.0
    # Position p splits after values[p]; p = -1 is the split right after the block of zeros.
    for p in range(-1 if n_zero > 0 else 0, n_sorted - 1):
        v0 = 0.0
        if p >= 0:
            i = sorted_samples[p]
            c = y[i]
            w = weight[i]
            left_c = left[c]
            right_c = right[c]
            square_left += w * (2.0 * left_c + w)
            square_right += w * (w - 2.0 * right_c)
            left[c] = left_c + w
            right[c] = right_c - w
            weight_left += w
            weight_right -= w
            v0 = values[p]
        n_left = n_zero + p + 1
        if n_left < min_leaf:
            continue
        if n_node - n_left < min_leaf:
            break
        v1 = values[p + 1]
        if v1 <= v0 + _FEATURE_THRESHOLD:
            continue
        numerator = square_left * weight_right + square_right * weight_left
        denominator = weight_left * weight_right
        if numerator * best_denominator > best_numerator * denominator:
            best_numerator, best_denominator = numerator, denominator
            best_threshold = _midpoint(v0, v1)
    if best_numerator < 0.0:
        return -np.inf, best_threshold, False
    return best_numerator / best_denominator, best_threshold, False


@nb.njit(cache=True, nogil=True)
def _random_threshold(
    Xt, y, weight, samples, start, end, feature, lo, hi, min_samples_leaf, state, left, right
):
    """A uniform threshold in [lo, hi) (RandomSplitter): (proxy, threshold), proxy -inf if invalid."""
    threshold = lo + _uniform(state) * (hi - lo)
    if threshold >= hi:
        threshold = lo
    for c in range(left.shape[0]):
        left[c] = 0.0
        right[c] = 0.0
    n_left = 0
    for s in range(start, end):
        i = samples[s]
        if Xt[feature, i] <= threshold:
            left[y[i]] += weight[i]
            n_left += 1
        else:
            right[y[i]] += weight[i]
    if n_left < min_samples_leaf or (end - start) - n_left < min_samples_leaf:
        return -np.inf, threshold
    return _gini_proxy(left, right), threshold


@nb.njit(cache=True, nogil=True)
def _gini_proxy(left, right):
    """sum_c L_c^2 / |L| + sum_c R_c^2 / |R|: larger means a larger Gini decrease."""
    square_left = 0.0
    square_right = 0.0
    weight_left = 0.0
    weight_right = 0.0
    for c in range(left.shape[0]):
        square_left += left[c] * left[c]
        weight_left += left[c]
        square_right += right[c] * right[c]
        weight_right += right[c]
    return square_left / weight_left + square_right / weight_right


@nb.njit(cache=True, nogil=True)
def _node_nonzero_bits(nonzero_bits, samples, start, end, any_nonzero):
    """Bit f of any_nonzero: X[i, f] != 0 for some example i of the node (OR of its rows)."""
    for word in range(any_nonzero.shape[0]):
        any_nonzero[word] = 0
    for s in range(start, end):
        row = samples[s]
        for word in range(any_nonzero.shape[0]):
            any_nonzero[word] |= nonzero_bits[row, word]


@nb.njit(cache=True, nogil=True)
def _grow_tree(
    Xt,
    y,
    n_classes,
    state,
    max_features,
    random_splits,
    bootstrap,
    max_depth,
    min_samples_split,
    min_samples_leaf,
    feature,
    threshold,
    left,
    right,
    leaf_values,
    n_nodes,
    n_leaves,
    presorted,
    nonzero_bits,
    use_zero_bits,
    first_nonzero,
):
    """Grow one tree into the forest's arrays from position (n_nodes, n_leaves).

    Returns (root code, n_nodes, n_leaves) after the tree.
    """
    d, n = Xt.shape
    weight = _example_weights(state, n, bootstrap)
    n_distinct = 0
    for i in range(n):
        if weight[i] > 0:
            n_distinct += 1
    samples = np.empty(n_distinct, dtype=np.int64)
    k = 0
    for i in range(n):
        if weight[i] > 0:
            samples[k] = i
            k += 1
    features = np.arange(d)
    counts = np.empty(n_classes)
    left_counts = np.empty(n_classes)
    right_counts = np.empty(n_classes)
    values = np.empty(n_distinct, dtype=Xt.dtype)
    sorted_samples = np.empty(n_distinct, dtype=np.int64)
    mark = np.zeros(n, dtype=np.int64)
    any_nonzero = np.empty(nonzero_bits.shape[1], dtype=np.uint64)
    stamp = 0

    # Depth-first stack of (start, end, depth, parent node, is left child); parent -1 = root.
    stack_start = np.empty(n_distinct + 1, dtype=np.int64)
    stack_end = np.empty(n_distinct + 1, dtype=np.int64)
    stack_depth = np.empty(n_distinct + 1, dtype=np.int64)
    stack_parent = np.empty(n_distinct + 1, dtype=np.int64)
    stack_is_left = np.empty(n_distinct + 1, dtype=np.bool_)
    top = 0
    stack_start[0], stack_end[0], stack_depth[0], stack_parent[0], stack_is_left[0] = (
        0,
        n_distinct,
        0,
        -1,
        True,
    )
    top = 1
    root = 0
    while top > 0:
        top -= 1
        start = stack_start[top]
        end = stack_end[top]
        depth = stack_depth[top]
        parent = stack_parent[top]
        is_left = stack_is_left[top]
        n_node = end - start
        _class_weights(y, weight, samples, start, end, counts)
        n_present = 0
        for c in range(n_classes):
            if counts[c] > _EPSILON:
                n_present += 1
        is_leaf = (
            n_present <= 1
            or n_node < min_samples_split
            or n_node < 2 * min_samples_leaf
            or (max_depth >= 0 and depth >= max_depth)
        )
        best_proxy = -np.inf
        best_feature = -1
        best_threshold = 0.0
        if not is_leaf:
            if not random_splits and n_node > _INSERTION_SORT_MAX:
                stamp += 1
                for s in range(start, end):
                    mark[samples[s]] = stamp
            # The OR costs one pass over the node per 64 features: worth it for best splits, which
            # sort every drawn feature; a random split draws one feature, so it ORs only once its
            # draws keep hitting constant features (the deep nodes of pixel data).
            have_bits = use_zero_bits and not random_splits
            if have_bits:
                _node_nonzero_bits(nonzero_bits, samples, start, end, any_nonzero)
            # scikit-learn's draw: features without replacement (features[0:j] drawn in this
            # node); every draw counts as visited, constant or not, and drawing goes on past
            # max_features only until one non-constant feature was visited.
            n_constant = 0
            visited = 0
            j = 0
            while j < d and (visited < max_features or visited <= n_constant):
                r = j + _randint(state, d - j)
                features[j], features[r] = features[r], features[j]
                f = features[j]
                j += 1
                visited += 1
                if use_zero_bits and not have_bits and n_constant >= _DRAWS_BEFORE_BITS:
                    _node_nonzero_bits(nonzero_bits, samples, start, end, any_nonzero)
                    have_bits = True
                if have_bits and (any_nonzero[f >> 6] >> np.uint64(f & 63)) & np.uint64(1) == 0:
                    n_constant += 1  # all zero in this node: constant, known without a pass
                    continue
                if random_splits:
                    lo = np.inf
                    hi = -np.inf
                    for s in range(start, end):
                        v = Xt[f, samples[s]]
                        lo = min(lo, v)
                        hi = max(hi, v)
                    if hi <= lo + _FEATURE_THRESHOLD:
                        n_constant += 1
                        continue
                    proxy, thr = _random_threshold(
                        Xt,
                        y,
                        weight,
                        samples,
                        start,
                        end,
                        f,
                        lo,
                        hi,
                        min_samples_leaf,
                        state,
                        left_counts,
                        right_counts,
                    )
                else:
                    # Zeros of pixels first, as one block: only the nonzero values are sorted.
                    n_zero = _sorted_node_values(
                        Xt,
                        samples,
                        start,
                        end,
                        f,
                        presorted,
                        first_nonzero,
                        mark,
                        stamp,
                        values,
                        sorted_samples,
                    )
                    proxy, thr, constant = _best_threshold(
                        y,
                        weight,
                        n_node,
                        n_zero,
                        min_samples_leaf,
                        counts,
                        values,
                        sorted_samples,
                        left_counts,
                        right_counts,
                    )
                    if constant:
                        n_constant += 1
                        continue
                if proxy > best_proxy:
                    best_proxy = proxy
                    best_feature = f
                    best_threshold = thr
            is_leaf = best_feature < 0
        if is_leaf:
            total = counts.sum()
            for c in range(n_classes):
                leaf_values[n_leaves, c] = counts[c] / total
            code = -n_leaves - 1
            n_leaves += 1
        else:
            node = n_nodes
            n_nodes += 1
            feature[node] = best_feature
            threshold[node] = best_threshold
            code = node
            pos = _partition(Xt, samples, start, end, best_feature, best_threshold)
            # Right child pushed first, so the left subtree is grown first.
            stack_start[top], stack_end[top], stack_depth[top] = pos, end, depth + 1
            stack_parent[top], stack_is_left[top] = node, False
            top += 1
            stack_start[top], stack_end[top], stack_depth[top] = start, pos, depth + 1
            stack_parent[top], stack_is_left[top] = node, True
            top += 1
        if parent < 0:
            root = code
        elif is_left:
            left[parent] = code
        else:
            right[parent] = code
    return root, n_nodes, n_leaves


@nb.njit(cache=True, nogil=True)
def grow_forest(
    X,
    y,
    n_classes,
    n_trees,
    seed,
    max_features,
    random_splits,
    bootstrap,
    max_depth,
    min_samples_split,
    min_samples_leaf,
):
    """Grow ``n_trees`` trees on (X, y); y holds class codes in [0, n_classes).

    ``max_depth < 0`` means unlimited. Returns (roots, feature, threshold, left,
    right, leaf_values), the arrays trimmed to the nodes and leaves used.
    """
    n = X.shape[0]
    # Feature-major: a node's values of one feature are close. In float64 even for float32 X
    # (the values, hence the trees, are the same; the compiled code runs faster on float64).
    Xt = np.ascontiguousarray(X.T).astype(np.float64)
    # A tree on n distinct examples has at most n leaves and n - 1 internal nodes.
    node_capacity = n_trees * max(n - 1, 1)
    leaf_capacity = n_trees * n
    feature = np.empty(node_capacity, dtype=np.int32)
    threshold = np.empty(node_capacity)
    left = np.empty(node_capacity, dtype=np.int64)
    right = np.empty(node_capacity, dtype=np.int64)
    leaf_values = np.empty((leaf_capacity, n_classes))
    roots = np.empty(n_trees, dtype=np.int64)
    # Each feature's example order, sorted once for all trees (best splits only).
    presorted = np.empty((Xt.shape[0] if not random_splits else 0, n), dtype=np.int32)
    for f in range(presorted.shape[0]):
        presorted[f] = np.argsort(Xt[f], kind="mergesort")
    # Bit f of row i: X[i, f] != 0. A node ORs its rows once and then knows its all-zero
    # features (most pixels of a small MNIST node) without a pass per drawn feature.
    nonzero_bits = np.zeros((n, (Xt.shape[0] + 63) // 64), dtype=np.uint64)
    for f in range(Xt.shape[0]):
        for i in range(n):
            if Xt[f, i] != 0:
                nonzero_bits[i, f >> 6] |= np.uint64(1) << np.uint64(f & 63)
    # Worth it only where zeros are common (pixels); elsewhere few features are all zero.
    use_zero_bits = np.mean(Xt == 0) > 0.1
    # With zero bits, for a feature without negative values (its zeros are its smallest values, one
    # block first in its presorted order): where its nonzero values start in that order. 0 for other
    # features, whose zeros are sorted like any value.
    first_nonzero = np.zeros(Xt.shape[0], dtype=np.int64)
    for f in range(Xt.shape[0]):
        if use_zero_bits and Xt[f].min() >= 0.0:
            first_nonzero[f] = np.sum(Xt[f] == 0.0)
    n_nodes = 0
    n_leaves = 0
    for t in range(n_trees):
        state = tree_stream(seed, t)
        roots[t], n_nodes, n_leaves = _grow_tree(
            Xt,
            y,
            n_classes,
            state,
            max_features,
            random_splits,
            bootstrap,
            max_depth,
            min_samples_split,
            min_samples_leaf,
            feature,
            threshold,
            left,
            right,
            leaf_values,
            n_nodes,
            n_leaves,
            presorted,
            nonzero_bits,
            use_zero_bits,
            first_nonzero,
        )
    return (
        roots,
        feature[:n_nodes].copy(),
        threshold[:n_nodes].copy(),
        left[:n_nodes].copy(),
        right[:n_nodes].copy(),
        leaf_values[:n_leaves].copy(),
    )


@nb.njit(cache=True, nogil=True)
def _leaf(X, i, code, feature, threshold, left, right):
    while code >= 0:
        if X[i, feature[code]] <= threshold[code]:
            code = left[code]
        else:
            code = right[code]
    return -code - 1


@nb.njit(cache=True, nogil=True)
def apply_forest(X, roots, feature, threshold, left, right):
    """Leaf index of every example in every tree, shape (n, T)."""
    n = X.shape[0]
    n_trees = roots.shape[0]
    leaves = np.empty((n, n_trees), dtype=np.int64)
    for i in range(n):
        for t in range(n_trees):
            leaves[i, t] = _leaf(X, i, roots[t], feature, threshold, left, right)
    return leaves


@nb.njit(cache=True, nogil=True)
def tree_probabilities(X, roots, feature, threshold, left, right, leaf_values):
    """Per-tree class distributions p_i^(t) of every example, shape (n, T, C)."""
    n = X.shape[0]
    n_trees = roots.shape[0]
    n_classes = leaf_values.shape[1]
    out = np.empty((n, n_trees, n_classes))
    for i in range(n):
        for t in range(n_trees):
            out[i, t, :] = leaf_values[_leaf(X, i, roots[t], feature, threshold, left, right)]
    return out


@nb.njit(cache=True, nogil=True)
def weighted_probabilities(X, roots, feature, threshold, left, right, leaf_values, w):
    """Class vectors sum_t w_t p_i^(t) of eq. (41), shape (n, C), without the (n, T, C) array."""
    n = X.shape[0]
    n_trees = roots.shape[0]
    n_classes = leaf_values.shape[1]
    out = np.zeros((n, n_classes))
    for i in range(n):
        for t in range(n_trees):
            leaf = _leaf(X, i, roots[t], feature, threshold, left, right)
            for c in range(n_classes):
                out[i, c] += w[t] * leaf_values[leaf, c]
    return out
