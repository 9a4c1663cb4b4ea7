"""Compiled (numba) kernels that grow squared-error regression trees, one tree per call.

The regression trees of :class:`~disdf.forests._compiled.FastRegressionForest`, in the flat layout of
:mod:`disdf.forests._compiled.kernels` (internal nodes ``feature``, ``threshold``, child codes, a
negative code ``-c - 1`` for leaf row c; a tree's nodes written root first), so that the prediction
kernels of :mod:`disdf.forests._compiled.prediction_kernels` read them unchanged. A leaf's row of
``leaf_values`` is the weighted mean of its examples' targets (one column per output).

The split rules are scikit-learn's ``DecisionTreeRegressor`` with ``criterion="squared_error"``:
a best split maximises the proxy sum_k S_Lk^2 / W_L + sum_k S_Rk^2 / W_R (S: weighted target sums,
W: weights of the two sides) over the midpoints between consecutive distinct values of the node;
a random split (extremely randomised and completely-random trees) draws one threshold uniformly
between the node's minimum and maximum of the feature. Candidate features are drawn without
replacement until ``max_features`` were visited, and further only until one non-constant feature
was visited; a node is a leaf when it is at ``max_depth``, holds fewer than ``min_samples_split``
or ``2 min_samples_leaf`` examples, or its impurity (the mean over outputs of the weighted variance)
is below 1e-12. With every feature a candidate and no bootstrap the tree is
``DecisionTreeRegressor``'s (a test compares their predictions).

Coded features (``n_codes[f] > 0``) are split, at nodes of at least :data:`HISTOGRAM_MIN_NODE`
examples, by a histogram of the node's weights and target sums per code, in one pass: a feature of
at most 256 distinct values coded by value (the same split as the sort), or, with
``engine="binned"``, a feature of more coded by bins of about equal counts, split between bins
(DF21's and LightGBM's approach; smaller nodes sort). The codes are made in Python
(:mod:`disdf.forests._compiled.regression_forest`).

Randomness: splitmix64, tree t's stream seeded from (seed, t) alone, so the first T trees of a
forest are the T-tree forest of its seed. The classification kernels are not touched: the trees
of the classifiers, and their random streams, are those of before.
"""

from __future__ import annotations

import numba as nb
import numpy as np

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
# Two values closer than this are one value for a split (scikit-learn's FEATURE_THRESHOLD).
_FEATURE_THRESHOLD = 1e-7
# A node of impurity at most this is a leaf (scikit-learn's EPSILON).
_EPSILON = 1e-12
#: Nodes of at least this many examples split a coded feature by its histogram.
HISTOGRAM_MIN_NODE = 64


@nb.njit(cache=True, nogil=True)
def _next_bits(state):
    """splitmix64: the next 64 random bits of the stream in state[0]."""
    state[0] += _GOLDEN
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@nb.njit(cache=True, nogil=True)
def _uniform(state):
    return float(_next_bits(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@nb.njit(cache=True, nogil=True)
def _randint(state, n):
    return np.int64(_next_bits(state) % np.uint64(n))


@nb.njit(cache=True, nogil=True)
def _weighted_draw(cumulative, sample_weight, u):
    """The example drawn by u in [0, 1) with probability in proportion to its weight."""
    n = cumulative.shape[0]
    i = np.int64(min(np.searchsorted(cumulative, u * cumulative[n - 1], side="right"), n - 1))
    while sample_weight[i] == 0.0:  # only if the product rounded up to the total: the last weighed row
        i -= 1
    return i


@nb.njit(cache=True, nogil=True)
def _tree_weights(seed, tree, sample_weight, n, bootstrap, n_draws):
    """Tree ``tree``'s weight of each example: with bootstrap, how often it is among ``n_draws`` draws
    (in proportion to ``sample_weight``, when given); else its weight, on ``n_draws`` distinct
    examples when fewer than n (a Fisher-Yates prefix)."""
    state = np.empty(1, dtype=np.uint64)
    state[0] = np.uint64(seed) * _GOLDEN + np.uint64(tree)
    _next_bits(state)
    weighted = sample_weight.shape[0] > 0
    weight = np.zeros(n)
    if bootstrap:
        cumulative = np.cumsum(sample_weight) if weighted else np.empty(0)
        for _ in range(n_draws):
            i = _weighted_draw(cumulative, sample_weight, _uniform(state)) if weighted else _randint(state, n)
            weight[i] += 1.0
    elif n_draws < n:
        order = np.arange(n)
        for k in range(n_draws):
            j = k + _randint(state, n - k)
            order[k], order[j] = order[j], order[k]
            weight[order[k]] = sample_weight[order[k]] if weighted else 1.0
    elif weighted:
        weight[:] = sample_weight
    else:
        weight[:] = 1.0
    return weight, state


@nb.njit(cache=True, nogil=True)
def _n_draws(n, max_samples):
    """The examples a tree draws: n, or at most ``max_samples`` (> 0) of them."""
    return n if max_samples <= 0 else min(n, max_samples)


@nb.njit(cache=True, nogil=True)
def in_bag(seed, n_trees, sample_weight, n, rules):
    """(n, n_trees) booleans: whether example i is in the sample of tree t of the forest seeded ``seed``
    (a weight above 0 there: the draws of :func:`grow_regression_tree` with the same ``rules``, made
    again from (seed, t))."""
    bootstrap, n_draws = rules[2], _n_draws(n, rules[6])
    mask = np.zeros((n, n_trees), dtype=np.bool_)
    for t in range(n_trees):
        weight, _ = _tree_weights(seed, t, sample_weight, n, bootstrap, n_draws)
        for i in range(n):
            mask[i, t] = weight[i] > 0.0
    return mask


@nb.njit(cache=True, nogil=True)
def _node_sums(Y, weight, samples, start, end, sums):
    """sums[:k] = the node's weighted target sums S_k; return (W, i(node)), i the mean over outputs of
    the weighted variance, sum_i w_i y_ik^2 / W - (S_k / W)^2 (scikit-learn's ``node_impurity``)."""
    k = Y.shape[1]
    sums[:] = 0.0
    total, squares = 0.0, 0.0
    for j in range(start, end):
        i = samples[j]
        w = weight[i]
        total += w
        for o in range(k):
            sums[o] += w * Y[i, o]
            squares += w * Y[i, o] * Y[i, o]
    spread = 0.0
    for o in range(k):
        spread += sums[o] * sums[o]
    return total, max((squares / total - spread / (total * total)) / k, 0.0)


@nb.njit(cache=True, nogil=True)
def _proxy(left, total, w_left, w_right):
    """scikit-learn's proxy of the impurity decrease: sum_k S_Lk^2 / W_L + sum_k S_Rk^2 / W_R."""
    proxy_left, proxy_right = 0.0, 0.0
    for o in range(left.shape[0]):
        proxy_left += left[o] * left[o]
        right_sum = total[o] - left[o]
        proxy_right += right_sum * right_sum
    return proxy_left / w_left + proxy_right / w_right


@nb.njit(cache=True, nogil=True)
def _midpoint(low, high):
    """scikit-learn's threshold between two values: their mean, or the lower one if that rounds up."""
    threshold = low / 2.0 + high / 2.0
    if threshold == high or np.isinf(threshold):
        threshold = low
    return threshold


@nb.njit(cache=True, nogil=True)
def _sorted_split(Xt, Y, weight, samples, start, end, f, min_leaf, total, w_node, left, values):
    """Best split of the node on feature f by sorting its values; (proxy, threshold, constant)."""
    n_node = end - start
    for j in range(n_node):
        values[j] = Xt[f, samples[start + j]]
    order = np.argsort(values[:n_node], kind="mergesort")
    if values[order[n_node - 1]] <= values[order[0]] + _FEATURE_THRESHOLD:
        return -np.inf, 0.0, True
    left[:] = 0.0
    w_left, best, threshold = 0.0, -np.inf, 0.0
    for p in range(n_node - 1):
        i = samples[start + order[p]]
        w_left += weight[i]
        for o in range(Y.shape[1]):
            left[o] += weight[i] * Y[i, o]
        low, high = values[order[p]], values[order[p + 1]]
        if high <= low + _FEATURE_THRESHOLD or p + 1 < min_leaf or n_node - p - 1 < min_leaf:
            continue
        proxy = _proxy(left, total, w_left, w_node - w_left)
        if proxy > best:
            best, threshold = proxy, _midpoint(low, high)
    return best, threshold, False


@nb.njit(cache=True, nogil=True)
def _histogram_split(codes, code_values, n_codes, binned, Y, weight, samples, start, end, min_leaf,
                     total, w_node, left, hist_w, hist_n, hist_s):  # fmt: skip
    """Best split of the node on a coded feature from its histogram of weights, counts and target sums
    per code; between two consecutive non-empty codes a and b the threshold is the midpoint of their
    values (coded by value: the sort's split) or the edge above bin a (``binned``)."""
    hist_w[:n_codes] = 0.0
    hist_n[:n_codes] = 0
    hist_s[:n_codes] = 0.0
    for j in range(start, end):
        i = samples[j]
        c = codes[i]
        hist_w[c] += weight[i]
        hist_n[c] += 1
        for o in range(Y.shape[1]):
            hist_s[c, o] += weight[i] * Y[i, o]
    n_node = end - start
    left[:] = 0.0
    w_left, n_left, previous, best, threshold, non_empty = 0.0, 0, -1, -np.inf, 0.0, 0
    for c in range(n_codes):
        if hist_n[c] == 0:
            continue
        non_empty += 1
        if previous >= 0 and n_left >= min_leaf and n_node - n_left >= min_leaf:
            proxy = _proxy(left, total, w_left, w_node - w_left)
            if proxy > best:
                best = proxy
                threshold = (
                    code_values[previous] if binned else _midpoint(code_values[previous], code_values[c])
                )
        w_left += hist_w[c]
        n_left += hist_n[c]
        left += hist_s[c]
        previous = c
    return best, threshold, non_empty < 2


@nb.njit(cache=True, nogil=True)
def _random_split(Xt, Y, weight, samples, start, end, f, min_leaf, total, w_node, left, state):
    """A random threshold of feature f, uniform between the node's extremes; (proxy, threshold, constant)."""
    low, high = np.inf, -np.inf
    for j in range(start, end):
        v = Xt[f, samples[j]]
        low, high = min(low, v), max(high, v)
    if high <= low + _FEATURE_THRESHOLD:
        return -np.inf, 0.0, True
    threshold = low + _uniform(state) * (high - low)
    if threshold == high:
        threshold = low
    left[:] = 0.0
    w_left, n_left = 0.0, 0
    for j in range(start, end):
        i = samples[j]
        if Xt[f, i] <= threshold:
            n_left += 1
            w_left += weight[i]
            for o in range(Y.shape[1]):
                left[o] += weight[i] * Y[i, o]
    if n_left < min_leaf or end - start - n_left < min_leaf:
        return -np.inf, threshold, False
    return _proxy(left, total, w_left, w_node - w_left), threshold, False


@nb.njit(cache=True, nogil=True)
def _partition(Xt, samples, start, end, f, threshold):
    """Examples of the node with x_f <= threshold first; return where the right child starts."""
    pos = start
    for j in range(start, end):
        if Xt[f, samples[j]] <= threshold:
            samples[pos], samples[j] = samples[j], samples[pos]
            pos += 1
    return pos


@nb.njit(cache=True, nogil=True)
def _best_split(Xt, Y, codes, code_values, n_codes, binned, weight, samples, start, end, rules, state,
                features, total, w_node, buffers):  # fmt: skip
    """Draw candidate features (module docstring) and return the best (feature, threshold), -1 if none."""
    max_features, random_splits, min_leaf = rules[0], rules[1], rules[4]
    left, values, hist_w, hist_n, hist_s = buffers
    d = Xt.shape[0]
    best, best_feature, best_threshold, visited, n_constant = -np.inf, -1, 0.0, 0, 0
    while visited < d and (visited < max_features or visited <= n_constant):
        r = visited + _randint(state, d - visited)
        features[visited], features[r] = features[r], features[visited]
        f = features[visited]
        visited += 1
        if random_splits:
            proxy, threshold, constant = _random_split(
                Xt, Y, weight, samples, start, end, f, min_leaf, total, w_node, left, state)  # fmt: skip
        elif n_codes[f] > 0 and end - start >= HISTOGRAM_MIN_NODE:
            proxy, threshold, constant = _histogram_split(
                codes[f], code_values[f], n_codes[f], binned[f], Y, weight, samples, start, end, min_leaf,
                total, w_node, left, hist_w, hist_n, hist_s)  # fmt: skip
        else:
            proxy, threshold, constant = _sorted_split(
                Xt, Y, weight, samples, start, end, f, min_leaf, total, w_node, left, values)  # fmt: skip
        if constant:
            n_constant += 1
        elif proxy > best:
            best, best_feature, best_threshold = proxy, f, threshold
    return best_feature, best_threshold


@nb.njit(cache=True, nogil=True)
def _push(stack, top, start, end, depth, parent, is_left):
    stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3], stack[top, 4] = (
        start,
        end,
        depth,
        parent,
        is_left,
    )
    return top + 1


@nb.njit(cache=True, nogil=True)
def grow_regression_tree(Xt, Y, codes, code_values, n_codes, binned, sample_weight, seed, tree, rules):
    """Grow tree ``tree`` of the forest seeded ``seed``; return (root code, feature, threshold, left,
    right, leaf_values, importances), node codes local to the tree (a leaf c is -c - 1).

    ``Xt``: (d, n) feature-major values; ``Y``: (n, k) float64 targets; ``codes``/``code_values``/
    ``n_codes``/``binned``: each feature's codes (module docstring; ``n_codes[f] == 0``: not coded);
    ``sample_weight``: (n,) weights or empty; ``rules``: (max_features, random_splits, bootstrap,
    max_depth (< 0: none), min_samples_leaf, min_samples_split, max_samples (0: all n)).
    ``importances[f]``: the weighted impurity decreases W_t i(t) - W_L i(L) - W_R i(R) of the splits
    on f, as scikit-learn sums them before normalising."""
    d, n = Xt.shape
    k = Y.shape[1]
    bootstrap, max_depth, min_leaf, min_split, max_samples = rules[2], rules[3], rules[4], rules[5], rules[6]
    weight, state = _tree_weights(seed, tree, sample_weight, n, bootstrap, _n_draws(n, max_samples))
    samples = np.flatnonzero(weight > 0.0)
    m = samples.shape[0]
    feature, threshold = np.empty(max(m - 1, 1), dtype=np.int32), np.empty(max(m - 1, 1))
    children = np.empty((max(m - 1, 1), 2), dtype=np.int64)
    leaf_values, importances = np.empty((m, k)), np.zeros(d)
    buffers = (np.empty(k), np.empty(m), np.empty(256), np.empty(256, dtype=np.int64), np.empty((256, k)))
    features, total = np.arange(d), np.empty(k)
    stack = np.empty((m + 2, 5), dtype=np.int64)  # start, end, depth, parent, is_left
    top = _push(stack, 0, 0, m, 0, -1, 0)
    n_nodes, n_leaves, root = 0, 0, 0
    while top > 0:
        top -= 1
        start, end, depth, parent, is_left = (
            stack[top, 0],
            stack[top, 1],
            stack[top, 2],
            stack[top, 3],
            stack[top, 4],
        )
        w_node, impurity = _node_sums(Y, weight, samples, start, end, total)
        n_node = end - start
        best_feature = -1
        leaf = (
            (0 <= max_depth <= depth) or n_node < min_split or n_node < 2 * min_leaf or impurity <= _EPSILON
        )
        if not leaf:
            best_feature, best_threshold = _best_split(
                Xt, Y, codes, code_values, n_codes, binned, weight, samples, start, end, rules, state,
                features, total, w_node, buffers)  # fmt: skip
        if parent >= 0:
            importances[feature[parent]] -= w_node * impurity
        if best_feature < 0:
            leaf_values[n_leaves] = total / w_node
            code, n_leaves = -n_leaves - 1, n_leaves + 1
        else:
            code, n_nodes = n_nodes, n_nodes + 1
            feature[code], threshold[code] = best_feature, best_threshold
            importances[best_feature] += w_node * impurity
            pos = _partition(Xt, samples, start, end, best_feature, best_threshold)
            top = _push(stack, top, pos, end, depth + 1, code, 0)  # right first: the left grows first
            top = _push(stack, top, start, pos, depth + 1, code, 1)
        if parent < 0:
            root = code
        else:
            children[parent, 0 if is_left else 1] = code
    return (root, feature[:n_nodes].copy(), threshold[:n_nodes].copy(), children[:n_nodes, 0].copy(),
            children[:n_nodes, 1].copy(), leaf_values[:n_leaves].copy(), importances)  # fmt: skip
