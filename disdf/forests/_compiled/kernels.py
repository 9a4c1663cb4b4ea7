"""Compiled (numba) kernels that grow a whole forest in one call.

Why one file of about 1,050 lines: its compiled functions (random numbers, bootstrap weights, the
sorts of a node's values, the threshold searches, the growth loop, the coding and binning of
features) are one call tree under :func:`grow_forest`, and numba's ``cache=True`` keys a cached
function on its own file only (numba issue 1833): split along those concerns, a cached grower
would keep running an edited splitter's old code, unless the files gave up caching and every new
process compiled them again (about 15 s). The kernels that read a grown forest call none of these and
live in :mod:`disdf.forests._compiled.prediction_kernels`. tests/disdf/test_layout.py refuses any cached
kernel that calls a compiled function of another file.

Layout of a fitted forest, flat arrays shared by all its trees:

* internal nodes: ``feature`` (int32), ``threshold`` (float64), ``left`` and
  ``right`` (int64 child codes);
* a child code ``c >= 0`` is an internal node, ``c < 0`` is the leaf ``-c - 1``;
* ``roots[t]`` is the child code of tree t's root (a leaf for a one-leaf tree);
* ``leaf_values[leaf, :]`` is the leaf's class distribution (weighted class
  counts of its training examples, normalised), over the cascade's full class
  list. :func:`grow_forest` writes one row per leaf, or with ``share_pure`` one row per class
  that every pure leaf of that class shares; a fitted
  :class:`~disdf.forests._compiled.FastForest` then lets pure leaves share rows and
  stores the children's codes relative to their tree's root, int16 or int32, as the prediction
  kernels read them (:func:`disdf.forests._compiled.node_layout.local_child_codes`).

Tree t's nodes and leaves are written after those of trees 0..t-1 and its
random stream depends only on (seed, t), so the first T trees of a forest are
exactly the T-tree forest with the same seed: slicing ``roots`` is enough.

The split rules follow scikit-learn's ``BestSplitter`` (random forests) and
``RandomSplitter`` (extremely randomised / completely-random trees) with the
Gini criterion: candidate features are drawn without replacement until
``max_features`` were visited, constant ones included (as scikit-learn
counts them), and further only until one non-constant feature was visited; a
split must leave ``min_samples_leaf`` distinct examples on each side.

Example weights (``sample_weight``) as scikit-learn (1.8 and later) reads them: a tree
without bootstrap weighs each example by its weight in every sum of the Gini criterion and
in its leaf's class distribution; a bootstrapped tree draws its n examples with probability
proportional to the weights, and weighs each by how often it was drawn. Either way an example
of weight 0 is in no node, and whole weights stand for repeated examples (exactly without
bootstrap; a bootstrap draws n, not sum(weights), examples). ``min_samples_split`` and
``min_samples_leaf`` count distinct examples, as scikit-learn does. No weights (an empty
``sample_weight``) is the code path of old: the same random stream, the same trees.

``max_samples > 0`` caps a tree's sample for large data: a bootstrapped tree draws
min(n, max_samples) examples (scikit-learn's ``max_samples``), any other tree takes that many
distinct examples, drawn without replacement. On n <= max_samples it draws nothing more: the
trees of no cap.

A best split orders the node's values of a feature (insertion sort, a filter of
the forest's presorted order, or a sort), or, on a large node and a feature of
at most 256 distinct values (pixels), reads a histogram of the node's class
weights per value: the same split, in one pass (:func:`_histogram_threshold`).
"""

from __future__ import annotations

from collections import namedtuple

import numba as nb
import numpy as np
from numba.core import cgutils, types
from numba.extending import intrinsic

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
# A node filters the presorted order when it holds at least 1/6 as many examples as the order
# to scan: the branch-free filter needs no sort, and on the protocol's folds (80 examples) this
# beat gathering and sorting from about 3x to 12x (a factor of 6: random forests 13 % faster
# on MNIST, 25 % on Parkinsons). Larger nodes use the cost rule below.
_FILTER_FACTOR = 6
# Cost of one comparison-sort step relative to one step of filtering the presorted order: a
# node of m examples sorts (about m log2 m steps) unless filtering all n is cheaper. On a few
# hundred examples nodes filter; on tens of thousands most nodes are small against n and sort.
_SORT_STEP_COST = 0.5
# Up to this size a node that does not filter sorts by insertion (no allocation).
_GATHER_SORT_MIN = 48
# Constant features a random split draws in a node before it ORs the node's nonzero bits.
_DRAWS_BEFORE_BITS = 2
# Best splits on a feature with at most this many distinct values (pixels: 256) may read a histogram
# of the node's class weights per value instead of sorting the node's values (_histogram_threshold).
_MAX_CODES = 256
# Nodes of at least this many examples use that histogram (one pass over the node and one over
# the feature's values, against a sort or a scan of the presorted order; 64 measured best on
# MNIST).
_HISTOGRAM_MIN_NODE = 64
# Forests on fewer examples code no feature (no node of theirs is that large often enough to pay
# for coding; every forest of the paper's protocol is one of them).
_CODING_MIN_EXAMPLES = 256

# What growing reads and writes, bundled. How the code is split follows from numba's costs:
# * every array a compiled function uses gets an atomic reference-count increment and decrement
#   per call, or per loop iteration for an array read from a tuple inside a loop, unless numba's
#   pruning removes them, which it does only for simple control flow and never across a call
#   to another compiled function; one such pair per node or per drawn feature costs more than
#   the work of a small node (1,000 trees on 120 examples: 30-100 % slower);
# * arrays allocated in the function that loops over them are known to alias nothing, which
#   the compiler uses; arrays received as arguments are not.
# So these bundles cross a function boundary once per forest or per tree and are unpacked at
# the top of the function receiving them; the node loop and the feature draw stay in
# _grow_tree, which allocates the tree's arrays itself (through the inlined _tree_arrays); the
# steps it calls per node or per feature take the few arrays they use, and only the sorts and
# threshold searches, as before, both take arrays and call other compiled functions.
TrainingData = namedtuple(
    "TrainingData",
    [
        "Xt",
        "y",
        "presorted",
        "first_nonzero",
        "nonzero_bits",
        "use_zero_bits",
        "codes",
        "code_values",
        "n_codes",
        "binned",
        "sample_weight",
        "cumulative_weight",
    ],
)
GrowthRules = namedtuple(
    "GrowthRules",
    [
        "n_classes",
        "max_features",
        "random_splits",
        "bootstrap",
        "max_depth",
        "min_split",
        "min_leaf",
        "histogram_min_node",
        "share_pure",
        "max_samples",
    ],
)
ForestArrays = namedtuple("ForestArrays", ["feature", "threshold", "children", "leaf_values"])
TreeArrays = namedtuple(
    "TreeArrays",
    [
        "samples",
        "node_y",
        "node_weight",
        "features",
        "counts",
        "left_counts",
        "right_counts",
        "values",
        "sorted_samples",
        "mark",
        "any_nonzero",
        "stack",
        "stack_counts",
        "histogram",
        "bin_sizes",
    ],
)


@intrinsic
def _borrowed(typingctx, bundle):
    """An array, or a tuple's arrays, as views without a reference count (a null meminfo):
    passing them to compiled functions costs no atomic increments and decrements. Whoever
    owns the arrays keeps them alive (:func:`_keep_alive`)."""
    members = [bundle] if isinstance(bundle, types.Array) else list(bundle.types)

    def codegen(context, builder, signature, arguments):
        value = arguments[0]
        for position, member in enumerate(members):
            if not isinstance(member, types.Array):
                continue
            array = value if isinstance(bundle, types.Array) else builder.extract_value(value, position)
            view = context.make_array(member)(context, builder, value=array)
            view.meminfo = cgutils.get_null_value(view.meminfo.type)
            view.parent = cgutils.get_null_value(view.parent.type)
            if isinstance(bundle, types.Array):
                return view._getvalue()
            value = builder.insert_value(value, view._getvalue(), position)
        return value

    return bundle(bundle), codegen


@nb.njit(cache=True, nogil=True)
def _keep_alive(owner):
    """Holds ``owner`` (and the arrays in it) alive up to this call."""
    return None


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
def _example_weights(state, n, bootstrap, n_draws):
    """How often each example is in the tree's sample: a bootstrap of ``n_draws`` draws, or once each
    of ``n_draws`` distinct examples (all n when ``n_draws == n``: no draw, the stream of old)."""
    weight = np.zeros(n)
    if bootstrap:
        for _ in range(n_draws):
            weight[_randint(state, n)] += 1.0
    elif n_draws < n:
        _subsample(state, n, n_draws, weight)
    else:
        weight[:] = 1.0
    return weight


@nb.njit(cache=True, nogil=True)
def _subsample(state, n, n_draws, weight):
    """A weight of 1 on ``n_draws`` of the n examples drawn without replacement (the first n_draws
    steps of a Fisher-Yates shuffle)."""
    order = np.arange(n)
    for k in range(n_draws):
        j = k + _randint(state, n - k)
        order[k], order[j] = order[j], order[k]
        weight[order[k]] = 1.0


@nb.njit(cache=True, nogil=True)
def bootstrap_counts(seed, tree, n):
    """The bootstrap counts tree ``tree`` of a bootstrapped forest seeded ``seed`` trains on."""
    return _example_weights(tree_stream(seed, tree), n, True, n)


@nb.njit(cache=True, nogil=True)
def tree_sample_counts(seed, tree, n, bootstrap, max_samples):
    """How often each of n unweighted examples is in tree ``tree``'s sample (``max_samples``: as
    :func:`grow_forest` reads it)."""
    return _example_weights(tree_stream(seed, tree), n, bootstrap, _n_draws(n, max_samples))


@nb.njit(cache=True, nogil=True)
def in_bag(seed, n_trees, sample_weight, n, bootstrap, max_samples):
    """(n, n_trees) booleans: whether example i is in the sample of tree t of the forest seeded ``seed``
    (a weight above 0 there), the draws of :func:`grow_forest` with the same ``sample_weight`` (empty:
    none), ``bootstrap`` and ``max_samples`` made again from (seed, t): a forest's out-of-bag examples."""
    draws = _n_draws(n, max_samples)
    cumulative = np.cumsum(sample_weight)
    mask = np.zeros((n, n_trees), dtype=np.bool_)
    for t in range(n_trees):
        weight = _tree_sample_weights(tree_stream(seed, t), sample_weight, cumulative, n, bootstrap, draws)
        for i in range(n):
            mask[i, t] = weight[i] > 0.0
    return mask


@nb.njit(cache=True, nogil=True)
def _n_draws(n, max_samples):
    """The examples a tree draws: n, or at most ``max_samples`` (> 0) of them."""
    return n if max_samples <= 0 else min(n, max_samples)


@nb.njit(cache=True, nogil=True)
def _tree_sample_weights(state, sample_weight, cumulative_weight, n, bootstrap, n_draws):
    """Each example's weight in the tree (module docstring): without sample weights (empty),
    :func:`_example_weights`; with them, the weight itself (on ``n_draws`` examples drawn
    uniformly without replacement when fewer than n), or with bootstrap how often it is among
    ``n_draws`` draws in proportion to the weights (``cumulative_weight``: their running sum)."""
    if sample_weight.shape[0] == 0:
        return _example_weights(state, n, bootstrap, n_draws)
    if not bootstrap:
        if n_draws < n:
            return _example_weights(state, n, False, n_draws) * sample_weight
        return sample_weight.copy()
    weight = np.zeros(n)
    total = cumulative_weight[n - 1]
    for _ in range(n_draws):
        i = min(np.searchsorted(cumulative_weight, _uniform(state) * total, side="right"), n - 1)
        while sample_weight[i] == 0.0:  # only if the product rounded up to total: the last weighed row
            i -= 1
        weight[i] += 1.0
    return weight


@nb.njit(cache=True, nogil=True)
def _class_weights(node_y, node_weight, start, end, counts):
    """counts[c]: the weight of the node's examples of class c (``node_y``, ``node_weight``: the
    classes and weights of samples[start:end], in its order: :func:`_tree_arrays`)."""
    for c in range(counts.shape[0]):  # loops, not slice assignment: these arrays are tiny
        counts[c] = 0.0
    for s in range(start, end):
        counts[node_y[s]] += node_weight[s]


@nb.njit(cache=True, nogil=True, inline="always")
def _swap(samples, node_y, node_weight, s, pos):
    """Exchange positions s and pos of the node's examples, their classes and weights alike."""
    samples[s], samples[pos] = samples[pos], samples[s]
    node_y[s], node_y[pos] = node_y[pos], node_y[s]
    node_weight[s], node_weight[pos] = node_weight[pos], node_weight[s]


@nb.njit(cache=True, nogil=True)
def _partition(values, samples, node_y, node_weight, start, end, threshold):
    """Move the node's examples with values <= threshold first (their classes and weights along;
    ``values[s - start]``: as :func:`_partition_counting` reads them); return the split position."""
    pos = start
    for s in range(start, end):
        if values[s - start] <= threshold:
            _swap(samples, node_y, node_weight, s, pos)
            pos += 1
    return pos


@nb.njit(cache=True, nogil=True)
def _partition_counting(values, samples, node_y, node_weight, start, end, threshold, left, right, unit):
    """:func:`_partition`, the same moves, also summing each side's class weights into left / right,
    in the order of the node's examples: a child's class weights without a pass over the child.
    ``values[s - start]``: the split feature's value of the example at position s, gathered in the
    node's order (:func:`_value_range`, :func:`_node_values`): read in order, not through samples.
    ``unit``: every weight is 1 (no bootstrap, no sample weights), so none is read."""
    for c in range(left.shape[0]):
        left[c] = 0.0
        right[c] = 0.0
    pos = start
    for s in range(start, end):
        c = node_y[s]  # the examples after s are not moved yet: the node's order is read
        w = 1.0 if unit else node_weight[s]
        if values[s - start] <= threshold:
            left[c] += w
            _swap(samples, node_y, node_weight, s, pos)
            pos += 1
        else:
            right[c] += w
    return pos


@nb.njit(cache=True, nogil=True)
def _partition_node(
    Xt, codes, code_values, n_codes, binned, large, samples, node_y, node_weight, start, end, feature,
    threshold, left, right, counting, unit, values,
):  # fmt: skip
    """A split node's examples partitioned at its best split (the split position): with ``counting``, by
    :func:`_partition_counting` (its children's class weights into left / right), else by
    :func:`_partition`, on the values :func:`_split_values` gathers into ``values`` (scratch)."""
    split = _split_values(
        Xt, codes, code_values, n_codes, binned, large, samples, start, end, feature, threshold, values
    )
    if counting:
        return _partition_counting(values, samples, node_y, node_weight, start, end, split, left, right, unit)
    return _partition(values, samples, node_y, node_weight, start, end, split)


@nb.njit(cache=True, nogil=True)
def _split_values(
    Xt, codes, code_values, n_codes, binned, large, samples, start, end, feature, threshold, values
):
    """The node's values of its split feature, into values[:end - start] in the node's order, and the
    threshold on them (returned).

    A coded feature's codes instead, and the split's code p: X <= threshold iff code <= p, where
    ``code_values[p] <= threshold < code_values[p + 1]``, for exact codes (the node's values are code
    values, the threshold lies between two of them) and for bins split by a histogram (``large``: a node
    of at least histogram_min_node examples; the threshold is bin p's upper edge, a bin's code counts
    the edges below its values), not for bins split on the node's sorted values. Why: a row of codes
    (one byte an example) stays in the core's cache where X's row does not (4 bytes; at 660,000
    examples 2.6 MB), and partitions read it at random through ``samples``."""
    k = n_codes[feature]
    if k > 0 and (large or not binned[feature]):
        row = codes[feature]
        for s in range(start, end):
            values[s - start] = row[samples[s]]
        return float(np.searchsorted(code_values[feature, :k], threshold, side="right") - 1)
    _node_values(Xt, samples, start, end, feature, values)
    return threshold


@nb.njit(cache=True, nogil=True)
def _stack_children_counts(exact_sums, stack_counts, top, left, right):
    """The class weights of the children about to be pushed at rows top (right) and top + 1 (left),
    where they will be read (``exact_sums``: :func:`_growth_shortcuts`)."""
    if not exact_sums:
        return
    for c in range(left.shape[0]):
        stack_counts[top, c] = right[c]
        stack_counts[top + 1, c] = left[c]


@nb.njit(cache=True, nogil=True)
def _node_counts(stacked, stack_counts, row, node_y, node_weight, start, end, counts):
    """counts: the node's class weights, as its parent's split stacked them at ``row`` (``stacked``),
    else summed over its examples (:func:`_class_weights`)."""
    if not stacked:
        _class_weights(node_y, node_weight, start, end, counts)
        return
    for c in range(counts.shape[0]):
        counts[c] = stack_counts[row, c]


@nb.njit(cache=True, nogil=True)
def _growth_shortcuts(data, rules):
    """(exact_sums, unit_weights, split_in_place): the shortcuts a tree's growth may take, each giving
    the same trees.

    ``exact_sums``: whole example weights (bootstrap counts or ones: no sample_weight) sum exactly in
    any order, so a child takes the class weights its parent's split counted instead of a pass of its
    own; fractional sample weights are summed over the child's own examples, as always.
    ``unit_weights``: moreover every weight is 1 (no bootstrap), never read. ``split_in_place``: one
    candidate per node (completely random trees): its first non-constant feature is the split, and
    the pass that counts the threshold's sides partitions the node too (:func:`_random_split_in_place`).
    """
    exact_sums = data.sample_weight.shape[0] == 0
    return exact_sums, exact_sums and not rules.bootstrap, rules.random_splits and rules.max_features == 1


@nb.njit(cache=True, nogil=True)
def _mark_bounds(presorted, first_nonzero, n_codes):
    """(min_scan, all_coded) for :func:`_needs_marks`: the shortest scan of a presorted order (past a
    feature's zeros) and whether every feature is coded."""
    d = n_codes.shape[0]
    return presorted.shape[1] - (first_nonzero.max() if d > 0 else 0), d > 0 and n_codes.min() > 0


@nb.njit(cache=True, nogil=True)
def _needs_marks(n_node, histogram_min_node, all_coded, min_scan):
    """Whether a best split's node marks its examples: only if some feature may filter the presorted
    order there, not when every feature reads a histogram (a large node, every feature coded)."""
    return (n_node < histogram_min_node or not all_coded) and _may_filter(n_node, min_scan)


@nb.njit(cache=True, nogil=True)
def _may_filter(n_node, min_scan):
    """Whether :func:`_sort_method` can choose _FILTER for a node of n_node examples on a feature whose
    scan is at least ``min_scan`` long: if not, no feature needs the node's membership marks."""
    if min_scan <= _FILTER_FACTOR * n_node:
        return True
    return n_node > _INSERTION_SORT_MAX and _SORT_STEP_COST * n_node * np.log2(n_node) >= min_scan


@nb.njit(cache=True, nogil=True)
def _sort_method(n_node, scan_length):
    """How a node orders its values of a feature: _INSERT, _FILTER or _GATHER.

    Filtering a presorted order costs ``scan_length`` steps whatever the node's
    size and needs no sort; a node much smaller than that sorts its own values
    instead, by insertion while small (no allocation), else by gathering and
    sorting. The order among equal values differs between the methods; the
    split does not (:func:`_sort_gathered`).
    """
    if scan_length <= _FILTER_FACTOR * n_node:
        return _FILTER
    if n_node <= _INSERTION_SORT_MAX:
        return _INSERT
    if _SORT_STEP_COST * n_node * np.log2(n_node) >= scan_length:
        return _FILTER
    return _INSERT if n_node <= _GATHER_SORT_MIN else _GATHER


@nb.njit(cache=True, nogil=True)
def _insert_sorted(values, sorted_samples, k, v, i):
    """Insertion-sort step: put value v (of the example at position i) into the increasing values[:k]."""
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
    """The node's values of a feature in increasing order, into values, and their examples' positions
    in ``samples`` (hence in node_y and node_weight) into sorted_samples; returns n_zero.

    If first_nonzero[feature] > 0 (a non-negative feature with zeros: pixels),
    the node's n_zero zeros, its smallest values, are left out as one block that
    comes first in the order: most pixels of a small node are zero, so sorting
    only the rest saves most of the work. Otherwise n_zero is 0. How
    (:func:`_sort_method`): insertion sort, filtering the forest's presorted
    order of the feature past its zeros by node membership (:func:`_mark_node`; O(n), no
    comparisons), or gathering and sorting.
    """
    first = first_nonzero[feature]
    n_node = end - start
    method = _sort_method(n_node, presorted.shape[1] - first)
    k = 0
    if method == _FILTER:
        order = presorted[feature]
        base = stamp * mark.shape[0]  # mark[i] - base: example i's position, if marked for this node
        for r in range(first, order.shape[0]):
            i = order[r]
            values[k] = Xt[feature, i]
            sorted_samples[k] = mark[i] - base
            k += mark[i] >= base  # branch-free: node members come in no predictable pattern
        return n_node - k
    if first > 0:  # keep the nonzero values: branch-free, as zeros and nonzeros alternate unpredictably
        for s in range(start, end):
            v = Xt[feature, samples[s]]
            values[k] = v
            sorted_samples[k] = s
            k += v != 0.0
    else:
        for s in range(start, end):
            values[k] = Xt[feature, samples[s]]
            sorted_samples[k] = s
            k += 1
    if method == _INSERT:
        for j in range(1, k):  # the insertion sort, in place
            _insert_sorted(values, sorted_samples, j, values[j], sorted_samples[j])
    else:
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
def _best_threshold(
    node_y, node_weight, n_node, n_zero, min_leaf, node_counts, values, sorted_samples, left, right
):
    """Best Gini threshold of a feature (BestSplitter): (proxy, threshold, constant).

    The node's values in increasing order are n_zero zeros, then
    values[:n_node - n_zero] (of the examples at positions sorted_samples[:n_node - n_zero], whose
    classes and weights node_y and node_weight hold: reads within the node's range);
    ``constant`` if they span at most _FEATURE_THRESHOLD. The proxy
    sum_c L_c^2 / |L| + sum_c R_c^2 / |R| (larger = larger Gini decrease; -inf if
    no position leaves min_leaf examples on each side) is updated in O(1) per
    position from running sums of squares; with whole weights these sums are
    exact, so moving the zeros at once gives the proxies of one at a time (with
    fractional sample weights, the same up to rounding).
    """
    n_sorted = n_node - n_zero
    if values[n_sorted - 1] <= (0.0 if n_zero > 0 else values[0]) + _FEATURE_THRESHOLD:
        return -np.inf, 0.0, True
    for c in range(left.shape[0]):  # left of the first position: the zeros, the node minus the rest
        left[c] = node_counts[c] if n_zero > 0 else 0.0
    for p in range(n_sorted if n_zero > 0 else 0):
        left[node_y[sorted_samples[p]]] -= node_weight[sorted_samples[p]]  # exact for whole weights
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
            s = sorted_samples[p]
            c = node_y[s]
            w = node_weight[s]
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
def _histogram_threshold(
    codes,
    code_values,
    n_codes,
    binned,
    samples,
    node_y,
    node_weight,
    start,
    end,
    min_leaf,
    node_counts,
    histogram,
    bin_sizes,
    left,
    right,
):
    """Best Gini threshold of a coded feature from a histogram: (proxy, threshold, constant).

    The same split as :func:`_best_threshold` gives, in one pass over the node and one over the
    feature's values instead of a sort: the candidate positions are the boundaries between the
    node's consecutive distinct values, taken in increasing order; with whole weights the running
    sums are exact integers, so adding a value's class weights at once gives the same proxies,
    the same comparisons and the same threshold as adding its examples one at a time. A
    ``binned`` feature's codes are bins of values, not values (engine "binned"): its candidate
    positions are the boundaries between the node's bins, at the bins' upper edges.
    """
    n_classes = left.shape[0]
    for k in range(n_codes):
        bin_sizes[k] = 0
        for c in range(n_classes):
            histogram[k, c] = 0.0
    for s in range(start, end):  # one random read per example: its code (node_y, node_weight: in order)
        k = codes[samples[s]]
        histogram[k, node_y[s]] += node_weight[s]
        bin_sizes[k] += 1
    square_left = square_right = weight_left = weight_right = 0.0
    for c in range(n_classes):
        left[c] = 0.0
        right[c] = node_counts[c]
        square_right += right[c] * right[c]
        weight_right += right[c]
    n_node = end - start
    best_numerator, best_denominator, best_threshold = -1.0, 1.0, 0.0
    n_left = 0
    previous = -1
    for k in range(n_codes):
        if bin_sizes[k] == 0:
            continue
        if previous >= 0 and n_left >= min_leaf:  # the boundary between values previous and k
            if n_node - n_left < min_leaf:
                break
            numerator = square_left * weight_right + square_right * weight_left
            denominator = weight_left * weight_right
            if numerator * best_denominator > best_numerator * denominator:
                best_numerator, best_denominator = numerator, denominator
                # A binned feature splits at the upper edge of the last bin on the left.
                best_threshold = (
                    code_values[previous] if binned else _midpoint(code_values[previous], code_values[k])
                )
        for c in range(n_classes):
            w = histogram[k, c]
            if w != 0.0:
                square_left += w * (2.0 * left[c] + w)
                square_right += w * (w - 2.0 * right[c])
                left[c] += w
                right[c] -= w
                weight_left += w
                weight_right -= w
        n_left += bin_sizes[k]
        if previous < 0 and n_left == n_node:
            return -np.inf, 0.0, True  # one value: constant
        previous = k
    if best_numerator < 0.0:
        return -np.inf, best_threshold, False
    return best_numerator / best_denominator, best_threshold, False


@nb.njit(cache=True, nogil=True)
def _value_range(Xt, samples, start, end, feature, values):
    """(min, max) of the node's values of a feature, gathered into values[:end - start] in the node's
    order: the pass that counts a threshold's sides reads them there, in order, not a second time at
    random through samples (a completely random tree on 660,000 examples grew in 421 ms instead of 457)."""
    lo = np.inf
    hi = -np.inf
    for s in range(start, end):
        v = Xt[feature, samples[s]]
        values[s - start] = v
        lo = min(lo, v)
        hi = max(hi, v)
    return lo, hi


@nb.njit(cache=True, nogil=True)
def _node_values(Xt, samples, start, end, feature, values):
    """The node's values of a feature into values[:end - start], in the node's order."""
    for s in range(start, end):
        values[s - start] = Xt[feature, samples[s]]


@nb.njit(cache=True, nogil=True)
def _uniform_threshold(Xt, samples, start, end, feature, state, values):
    """(threshold, constant): a uniform threshold in [lo, hi) of the node's values of the feature
    (RandomSplitter); a feature constant in the node (hi <= lo + _FEATURE_THRESHOLD) draws nothing."""
    lo, hi = _value_range(Xt, samples, start, end, feature, values)
    if hi <= lo + _FEATURE_THRESHOLD:
        return 0.0, True
    threshold = lo + _uniform(state) * (hi - lo)
    return (lo if threshold >= hi else threshold), False


@nb.njit(cache=True, nogil=True)
def _sides_proxy(n_left, n_node, min_leaf, left, right):
    """:func:`_gini_proxy` of the sides' class weights, -inf if a side has fewer than min_leaf examples."""
    if n_left < min_leaf or n_node - n_left < min_leaf:
        return -np.inf
    return _gini_proxy(left, right)


@nb.njit(cache=True, nogil=True)
def _random_threshold(
    Xt, samples, node_y, node_weight, start, end, feature, min_leaf, state, left, right, values
):
    """A uniform threshold of the feature (:func:`_uniform_threshold`) and its sides' proxy
    (:func:`_sides_proxy`): (proxy, threshold, constant). ``values``: scratch for the node's values."""
    threshold, constant = _uniform_threshold(Xt, samples, start, end, feature, state, values)
    if constant:
        return -np.inf, 0.0, True
    for c in range(left.shape[0]):
        left[c] = 0.0
        right[c] = 0.0
    n_left = 0
    for s in range(start, end):
        if values[s - start] <= threshold:
            left[node_y[s]] += node_weight[s]
            n_left += 1
        else:
            right[node_y[s]] += node_weight[s]
    return _sides_proxy(n_left, end - start, min_leaf, left, right), threshold, False


@nb.njit(cache=True, nogil=True)
def _random_split_in_place(
    Xt, samples, node_y, node_weight, start, end, feature, min_leaf, state, left, right, unit, values
):
    """:func:`_random_threshold` with the node's examples partitioned at the threshold in the same pass
    (:func:`_partition_counting`: the same moves, the same sums in the same order): for a tree that
    draws one candidate feature (completely random), whose first non-constant feature is its split.
    Returns (proxy, threshold, constant, split position); a constant feature draws and moves nothing.
    ``unit``: every weight is 1 (:func:`_partition_counting`)."""
    threshold, constant = _uniform_threshold(Xt, samples, start, end, feature, state, values)
    if constant:
        return -np.inf, 0.0, True, start
    pos = _partition_counting(values, samples, node_y, node_weight, start, end, threshold, left, right, unit)
    return _sides_proxy(pos - start, end - start, min_leaf, left, right), threshold, False, pos


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
    """Bit f of any_nonzero: X[i, f] != 0 for some example i of the node (OR of its rows).

    Then every feature all zero in the node is known constant without a pass
    over the node. The OR costs one pass per 64 features: worth it at once for
    best splits, which sort every drawn feature; a random split draws one
    feature, so it ORs only once its draws keep hitting constant features (the
    deep nodes of pixel data).
    """
    for word in range(any_nonzero.shape[0]):
        any_nonzero[word] = 0
    for s in range(start, end):
        row = samples[s]
        for word in range(any_nonzero.shape[0]):
            any_nonzero[word] |= nonzero_bits[row, word]


@nb.njit(cache=True, nogil=True, inline="always")
def _tree_arrays(data, rules, state):
    """One tree's sample and working arrays (a TreeArrays), with the root on its stack.

    ``samples``: the examples of weight > 0 (:func:`_tree_sample_weights`: bootstrap counts or ones, or
    the sample weights), increasing, of which each node is a range; ``node_y`` and ``node_weight``:
    their classes and weights, moved with them by every partition, so that a node's passes read them
    in order or within the node's range (at 200,000 examples a histogram pass on the root took 1.5 ms
    instead of 5.3 ms reading them through ``samples``). The rest is scratch reused by every node: the
    draw order of the features, class weights (node, left, right), a node's sorted values and their
    positions, node-membership marks, the OR of a node's nonzero bits, the depth-first stack of nodes
    to grow, rows (start, end, depth, parent node, is left child), and beside it each stacked node's
    class weights, as its parent's split counted them (:func:`_grow_tree`).
    """
    d, n = data.Xt.shape
    n_classes = rules.n_classes
    draws = _n_draws(n, rules.max_samples)
    sample_weight, cumulative = data.sample_weight, data.cumulative_weight
    weight = _tree_sample_weights(state, sample_weight, cumulative, n, rules.bootstrap, draws)
    samples = np.flatnonzero(weight > 0)
    n_distinct = samples.shape[0]
    node_y = np.empty(n_distinct, dtype=data.y.dtype)
    node_weight = np.empty(n_distinct)
    for s in range(n_distinct):
        node_y[s] = data.y[samples[s]]
        node_weight[s] = weight[samples[s]]
    stack = np.empty((n_distinct + 1, 5), dtype=np.int64)
    _push(stack, 0, 0, n_distinct, 0, -1, True)  # the root: every example, no parent
    return TreeArrays(
        samples,
        node_y,
        node_weight,
        np.arange(d),
        np.empty(n_classes),
        np.empty(n_classes),
        np.empty(n_classes),
        np.empty(n_distinct + 1),  # + 1: the branch-free filter writes one past the node's last example
        np.empty(n_distinct + 1, dtype=np.int64),
        np.zeros(n, dtype=np.int64),
        np.empty(data.nonzero_bits.shape[1], dtype=np.uint64),
        stack,
        np.empty((n_distinct + 1, n_classes)),
        np.zeros((_MAX_CODES if data.codes.shape[0] > 0 else 0, n_classes)),
        np.zeros(_MAX_CODES if data.codes.shape[0] > 0 else 0, dtype=np.int64),
    )


@nb.njit(cache=True, nogil=True)
def _push(stack, top, start, end, depth, parent, is_left):
    """Put the node of the examples samples[start:end] on the stack at row top; return the new top."""
    stack[top, 0] = start
    stack[top, 1] = end
    stack[top, 2] = depth
    stack[top, 3] = parent
    stack[top, 4] = is_left
    return top + 1


@nb.njit(cache=True, nogil=True)
def _pop(stack, top):
    """The node on the stack's row top - 1: (top - 1, start, end, depth, parent, is left child)."""
    top -= 1
    return top, stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3], stack[top, 4]


@nb.njit(cache=True, nogil=True)
def _stops_growing(counts, n_node, depth, max_depth, min_split, min_leaf):
    """A node is a leaf without a search for a split: pure, too small to split, or at max_depth (if >= 0)."""
    n_present = 0
    for c in range(counts.shape[0]):
        if counts[c] > _EPSILON:
            n_present += 1
    return (
        n_present <= 1
        or n_node < min_split
        or n_node < 2 * min_leaf
        or (max_depth >= 0 and depth >= max_depth)
    )


@nb.njit(cache=True, nogil=True)
def _mark_node(mark, samples, start, end, stamp):
    """Mark the node's examples with a new stamp (returned) for filtering presorted orders by membership:
    ``mark[i] = stamp * n + s`` for the example i at position s (< n, the examples): i is in the node
    iff mark[i] >= stamp * n (earlier nodes' stamps are smaller), and mark[i] - stamp * n is where."""
    stamp += 1
    base = stamp * mark.shape[0]
    for s in range(start, end):
        mark[samples[s]] = base + s
    return stamp


@nb.njit(cache=True, nogil=True)
def _all_zero(any_nonzero, feature):
    """Every example of the node is 0 on the feature (bit ``feature`` of the OR of its nonzero bits is 0)."""
    return (any_nonzero[feature >> 6] >> np.uint64(feature & 63)) & np.uint64(1) == 0


@nb.njit(cache=True, nogil=True)
def _write_leaf(leaf_values, n_rows, counts, share_pure):
    """The node as a leaf: (its child code, the rows of leaf_values now used).

    Row ``n_rows`` becomes the node's class weights, normalised; with ``share_pure``
    (rows 0..C-1 hold the one-hot distributions) a pure leaf of class c is row c
    instead and takes no row: the test and the rows of
    :func:`disdf.forests._compiled.prediction_kernels.share_pure_leaves`, as it grows.
    """
    total = 0.0
    for c in range(counts.shape[0]):
        total += counts[c]
    if total <= 0.0:  # a tree whose bootstrap drew only examples of weight 0: it knows nothing
        for c in range(counts.shape[0]):
            leaf_values[n_rows, c] = 1.0 / counts.shape[0]
        return -n_rows - 1, n_rows + 1
    if share_pure:
        top = 0  # the first largest class, as np.argmax
        for c in range(1, counts.shape[0]):
            if counts[c] / total > counts[top] / total:
                top = c
        if counts[top] / total == 1.0:
            return -top - 1, n_rows
    for c in range(counts.shape[0]):
        leaf_values[n_rows, c] = counts[c] / total
    return -n_rows - 1, n_rows + 1


@nb.njit(cache=True, nogil=True)
def _set_child(children, parent, is_left, code):
    """Make ``code`` the left (column 0) or right child of internal node ``parent`` (none for the root)."""
    if parent >= 0:
        children[parent, 1 - is_left] = code


@nb.njit(cache=True, nogil=True, inline="always")
def _draw_feature(state, features, visited):
    """A node's next candidate feature, uniform among those it has not drawn (features[:visited]
    holds those it has: a Fisher-Yates step); returns (feature, visited + 1)."""
    r = visited + _randint(state, features.shape[0] - visited)
    features[visited], features[r] = features[r], features[visited]
    return features[visited], visited + 1


@nb.njit(cache=True, nogil=True)
def _credit_impurity(importance, feature, counts, parent, split_feature):
    """Mean decrease in impurity as scikit-learn counts it (``compute_feature_importances``): the node's
    weighted Gini impurity N_t i(t) = N_t - sum_c N_tc^2 / N_t (``counts``: its class weights N_tc) is
    credited to the feature it splits on (``split_feature``, if >= 0) and debited from its parent's,
    so that a tree's ``importance[f]`` sums N_t i(t) - N_L i(L) - N_R i(R) over its splits on f."""
    total = 0.0
    square = 0.0
    for c in range(counts.shape[0]):
        total += counts[c]
        square += counts[c] * counts[c]
    weighted = total - square / total if total > 0.0 else 0.0
    if parent >= 0:
        importance[feature[parent]] -= weighted
    if split_feature >= 0:
        importance[split_feature] += weighted


@nb.njit(cache=True, nogil=True)
def _grow_tree(data, rules, forest, state, n_nodes, n_leaves, importance):
    """Grow one tree into the forest's arrays from (n_nodes, n_leaves); return (root code, n_nodes, n_leaves).

    Depth first: a node that does not stop growing draws candidate features (module docstring) and is
    split at the best split found (its impurity decrease into ``importance``: :func:`_credit_impurity`),
    its examples partitioned and its children pushed; else it is a leaf."""
    # Borrowed views (3-8 % of a tree's time); not y and the weights. mypy sees numba's intrinsic untyped.
    Xt, _, presorted, first_nonzero, nonzero_bits, use_zero_bits, codes, code_values, n_codes, binned = (
        _borrowed(data[:10])  # type: ignore[call-arg, var-annotated]
    )
    max_features, random_splits, _, max_depth, min_split, min_leaf, histogram_min_node = rules[1:8]
    feature, threshold, children, leaf_values = _borrowed(forest)
    state, importance = _borrowed(state), _borrowed(importance)
    exact_sums, unit, split_in_place = _growth_shortcuts(data, rules)  # unit: every weight is 1
    tree = _tree_arrays(data, rules, state)  # inlined: the compiler sees these arrays are new
    samples, node_y, node_weight, features, counts, left, right = _borrowed(tree[:7])  # counts: node, sides
    values, sorted_samples, mark, any_nonzero, stack, stack_counts, histogram, bin_sizes = _borrowed(tree[7:])
    d, root, top, stamp = Xt.shape[0], 0, 1, 0
    min_scan, all_coded = _mark_bounds(presorted, first_nonzero, n_codes)  # see _needs_marks
    while top > 0:
        top, start, end, depth, parent, is_left = _pop(stack, top)
        n_node = end - start
        _node_counts(exact_sums and parent >= 0, stack_counts, top, node_y, node_weight, start, end, counts)
        stop = _stops_growing(counts, n_node, depth, max_depth, min_split, min_leaf)
        if not stop and not random_splits and _needs_marks(n_node, histogram_min_node, all_coded, min_scan):
            stamp = _mark_node(mark, samples, start, end, stamp)
        best_proxy, best_feature, best_threshold, n_constant, visited = -np.inf, -1, 0.0, 0, 0
        have_bits, pos = False, -1  # pos: the split position, once the node's examples are partitioned
        while not stop and visited < d and (visited < max_features or visited <= n_constant):
            f, visited = _draw_feature(state, features, visited)
            if use_zero_bits and not have_bits and (not random_splits or n_constant >= _DRAWS_BEFORE_BITS):
                _node_nonzero_bits(nonzero_bits, samples, start, end, any_nonzero)
                have_bits = True
            if have_bits and _all_zero(any_nonzero, f):
                n_constant += 1  # constant, known without a pass over the node
                continue
            if split_in_place:
                proxy, thr, constant, moved = _random_split_in_place(
                    Xt, samples, node_y, node_weight, start, end, f, min_leaf, state, left, right, unit,
                    values)  # fmt: skip
                pos = pos if constant else moved
            elif random_splits:
                proxy, thr, constant = _random_threshold(
                    Xt, samples, node_y, node_weight, start, end, f, min_leaf, state, left, right, values
                )
            elif n_node >= histogram_min_node and n_codes[f] > 0:
                proxy, thr, constant = _histogram_threshold(
                    codes[f], code_values[f], n_codes[f], binned[f], samples, node_y, node_weight, start, end,
                    min_leaf, counts, histogram, bin_sizes, left, right,
                )  # fmt: skip
            else:
                n_zero = _sorted_node_values(
                    Xt, samples, start, end, f, presorted, first_nonzero, mark, stamp, values, sorted_samples
                )
                proxy, thr, constant = _best_threshold(
                    node_y, node_weight, n_node, n_zero, min_leaf, counts, values, sorted_samples, left, right
                )
            if constant:
                n_constant += 1
            elif proxy > best_proxy:
                best_proxy, best_feature, best_threshold = proxy, f, thr
        _credit_impurity(importance, feature, counts, parent, best_feature)
        if best_feature < 0:
            code, n_leaves = _write_leaf(leaf_values, n_leaves, counts, rules.share_pure)
        else:
            code, n_nodes = n_nodes, n_nodes + 1
            feature[code], threshold[code] = best_feature, best_threshold
            if pos < 0:  # else split_in_place partitioned the node and counted left / right already
                pos = _partition_node(
                    Xt, codes, code_values, n_codes, binned, n_node >= histogram_min_node, samples, node_y,
                    node_weight, start, end, best_feature, best_threshold, left, right, exact_sums, unit,
                    values,
                )  # fmt: skip
            _stack_children_counts(exact_sums, stack_counts, top, left, right)
            top = _push(stack, top, pos, end, depth + 1, code, False)  # right first: the left grows first
            top = _push(stack, top, start, pos, depth + 1, code, True)
        root = code if parent < 0 else root
        _set_child(children, parent, is_left, code)
    _keep_alive(tree)
    return root, n_nodes, n_leaves


@nb.njit(cache=True, nogil=True)
def grow_forest(
    Xt,
    y,
    sample_weight,
    n_classes,
    n_trees,
    seed,
    max_features,
    random_splits,
    bootstrap,
    max_depth,
    min_samples_split,
    min_samples_leaf,
    histogram_min_node,
    max_bins,
    bin_sample,
    share_pure,
    max_samples=0,
):
    """Grow ``n_trees`` trees on X, given feature-major (``Xt``, float64 or float32: the same trees,
    as every value read is widened to float64); y holds class codes in [0, n_classes);
    ``sample_weight``: float64, one weight >= 0 per example, of positive sum, for each tree to weigh
    them (module docstring); empty: no weights.

    ``max_depth < 0`` means unlimited. Best splits of nodes of at least
    ``histogram_min_node`` examples on coded features read histograms
    (:func:`_histogram_threshold`; the same trees, faster on large nodes).
    ``max_bins > 0`` (engine "binned") also codes, on forests of more than
    256 examples, the features of more than ``max_bins + 1`` distinct values
    (or of values too close to code exactly) by bins of about equal counts (at
    most ``max_bins``; their edges placed on the examples of the boolean mask
    ``bin_sample``, empty: on all): not the same trees, as in DF21 and LightGBM.
    Returns (roots, feature, threshold, left, right, leaf_values, importances), the arrays
    trimmed to the nodes and leaves used; ``importances[t, f]``: the impurity decreases of
    tree t's splits on feature f, weighted by the nodes' weights, as scikit-learn sums them
    (:func:`_credit_impurity`), not yet normalised. ``share_pure``: pure leaves share the rows 0..C-1 of
    leaf_values (the one-hot distributions) as they are written, what a
    :class:`~disdf.forests._compiled.FastForest` keeps (on 40,000 MNIST images a row per leaf takes
    0.3 GB for 100 trees): the arrays of
    :func:`disdf.forests._compiled.prediction_kernels.share_pure_leaves` applied to the unshared
    ones, bit for bit (child codes int64). Without it, one row per leaf. ``max_samples``: 0 (every
    tree on all n examples) or the most examples a tree draws (module docstring).
    """
    rules = GrowthRules(
        n_classes,
        max_features,
        random_splits,
        bootstrap,
        max_depth,
        min_samples_split,
        min_samples_leaf,
        histogram_min_node,
        share_pure,
        max_samples,
    )
    return _grow_all(Xt, y, sample_weight, rules, n_trees, seed, max_bins, bin_sample)


@nb.njit(cache=True, nogil=True)
def _grow_all(Xt, y, sample_weight, rules, n_trees, seed, max_bins, bin_sample):
    """Every tree, into arrays that grow as the trees need (not sized for the worst case up front)."""
    d, n = Xt.shape
    data = _training_data(
        Xt, y, sample_weight, rules.random_splits, rules.histogram_min_node, max_bins, bin_sample
    )
    n_classes = rules.n_classes
    # A tree on m distinct examples (m <= the draws) has at most m leaves and m - 1 internal nodes.
    draws = _n_draws(n, rules.max_samples)
    room = max(draws - 1, 1)
    first_rows = n_classes if rules.share_pure else 0  # shared: rows 0..C-1, the one-hot distributions
    leaf_values = np.zeros((first_rows + draws, n_classes))
    for c in range(first_rows):
        leaf_values[c, c] = 1.0
    capacity = min(n_trees, 4) * room
    forest = ForestArrays(
        np.empty(capacity, dtype=np.int32),
        np.empty(capacity),
        np.empty((capacity, 2), dtype=np.int64),
        leaf_values,
    )
    roots = np.empty(n_trees, dtype=np.int64)
    importances = np.zeros((n_trees, d))
    # np.int64, not the literal 0: with a literal numba compiles _grow_tree and _with_room twice, once
    # for the first tree's Literal[int](0) and once for the rest (a second compile on a cold first fit)
    n_nodes = np.int64(0)
    n_leaves = first_rows
    for t in range(n_trees):
        forest = _with_room(forest, n_nodes, n_leaves, room)
        roots[t], n_nodes, n_leaves = _grow_tree(
            data, rules, forest, tree_stream(seed, t), n_nodes, n_leaves, importances[t]
        )
    feature, threshold, children, leaf_values = forest
    return (
        roots,
        feature[:n_nodes].copy(),
        threshold[:n_nodes].copy(),
        children[:n_nodes, 0].copy(),
        children[:n_nodes, 1].copy(),
        leaf_values[:n_leaves].copy(),
        importances,
    )


@nb.njit(cache=True, nogil=True)
def _with_room(forest, n_nodes, n_rows, room):
    """The forest's arrays with room for one more tree (``room`` nodes and room + 1 leaves past the
    ``n_nodes`` and ``n_rows`` used): the same arrays, or copies a quarter larger at least."""
    feature, threshold, children, leaf_values = forest
    if n_nodes + room > feature.shape[0]:
        size = max(n_nodes + room, feature.shape[0] + feature.shape[0] // 4)
        grown_feature = np.empty(size, dtype=np.int32)
        grown_feature[:n_nodes] = feature[:n_nodes]
        grown_threshold = np.empty(size)
        grown_threshold[:n_nodes] = threshold[:n_nodes]
        grown_children = np.empty((size, 2), dtype=np.int64)
        grown_children[:n_nodes] = children[:n_nodes]
        feature, threshold, children = grown_feature, grown_threshold, grown_children
    if n_rows + room + 1 > leaf_values.shape[0]:
        size = max(n_rows + room + 1, leaf_values.shape[0] + leaf_values.shape[0] // 4)
        grown_values = np.empty((size, leaf_values.shape[1]))
        grown_values[:n_rows] = leaf_values[:n_rows]
        leaf_values = grown_values
    return ForestArrays(feature, threshold, children, leaf_values)


@nb.njit(cache=True, nogil=True)
def _training_data(Xt, y, sample_weight, random_splits, histogram_min_node, max_bins, bin_sample):
    """What every tree reads, computed once per forest (a TrainingData).

    ``Xt``: X feature-major, so that a node's values of one feature are close;
    float64 (:func:`grow_forest`: the compiled code runs faster on it) or float32
    (:func:`grow_forest` on large forests: half the memory; the values, hence
    the trees, are the same). ``presorted[f]``: the examples in
    increasing order of feature f (best splits only). ``nonzero_bits``: see
    :func:`_nonzero_bits`; ``use_zero_bits``: zeros are common enough (pixels)
    for them to pay, elsewhere few features are all zero in a node.
    ``first_nonzero[f]``: with zero bits, for a feature without negative values
    (its zeros are its smallest values, one block first in its presorted order),
    where its nonzero values start in that order; 0 for other features, whose
    zeros are sorted like any value. ``max_bins > 0``: features of more than ``max_bins + 1``
    distinct values, or none codable exactly, are coded by bins (:func:`_bin_codes`, edges placed
    on the rows ``bin_sample``), on forests of more than _MAX_CODES examples.
    """
    d, n = Xt.shape
    presorted = np.empty((d if not random_splits else 0, n), dtype=np.int32)
    # Coded features (see _histogram_threshold): only best splits on forests with nodes that large.
    coding = not random_splits and n >= max(histogram_min_node, _CODING_MIN_EXAMPLES)
    codes = np.empty((d if coding else 0, n), dtype=np.uint8)
    code_values = np.empty((d if coding else 0, _MAX_CODES))
    n_codes = np.zeros(d, dtype=np.int64)  # 0 (not coded) for every feature when not coding
    binned = np.zeros(d, dtype=np.bool_)
    for f in range(presorted.shape[0]):
        if coding and _small_integers(Xt[f]):
            n_codes[f] = _counting_sort(Xt[f], presorted[f], codes[f], code_values[f])
        else:
            presorted[f] = np.argsort(Xt[f], kind="mergesort")
            ranked = _rank_codes(Xt[f], presorted[f], codes[f], code_values[f]) if coding else -1
            n_codes[f] = max(ranked, 0)
        # Not coded exactly (0), or more values than max_bins + 1 (max_bins thresholds): bins.
        if max_bins > 0 and n > _MAX_CODES and (n_codes[f] == 0 or n_codes[f] > max_bins + 1):
            n_codes[f] = _bin_codes(
                Xt[f], presorted[f], min(max_bins, _MAX_CODES), bin_sample, codes[f], code_values[f]
            )
            binned[f] = True
    use_zero_bits = np.mean(Xt == 0) > 0.1
    first_nonzero = np.zeros(d, dtype=np.int64)
    for f in range(d):
        if use_zero_bits and Xt[f].min() >= 0.0:
            first_nonzero[f] = np.sum(Xt[f] == 0.0)
    return TrainingData(
        Xt,
        y,
        presorted,
        first_nonzero,
        _nonzero_bits(Xt),
        use_zero_bits,
        codes,
        code_values,
        n_codes,
        binned,
        sample_weight,
        np.cumsum(sample_weight),  # for bootstrap draws in proportion to the weights
    )


@nb.njit(cache=True, nogil=True)
def _small_integers(values):
    """Every value is a whole number in [0, _MAX_CODES) (pixels): it is its own code."""
    for v in values:
        if not (0.0 <= v < _MAX_CODES and v == np.floor(v)):
            return False
    return True


@nb.njit(cache=True, nogil=True)
def _counting_sort(values, order, codes, code_values):
    """For whole values in [0, _MAX_CODES): codes = values, and the stable increasing order by counting
    (the order mergesort gives, in O(n)); returns the number of codes, max value + 1."""
    starts = np.zeros(_MAX_CODES + 1, dtype=np.int64)
    for i in range(values.shape[0]):
        codes[i] = np.uint8(values[i])
        starts[codes[i] + 1] += 1
    for k in range(_MAX_CODES):
        starts[k + 1] += starts[k]
        code_values[k] = k
    n_codes = 0
    for i in range(values.shape[0]):
        k = codes[i]
        order[starts[k]] = i
        starts[k] += 1
        n_codes = max(n_codes, k + 1)
    return n_codes


@nb.njit(cache=True, nogil=True)
def _rank_codes(values, order, codes, code_values):
    """Code a feature by the rank of its value among its distinct values, in the increasing ``order``;
    returns the number of codes, or, if it cannot be coded, 0 when it has more than _MAX_CODES
    distinct values and -1 when two of them count as one for a split (at most _FEATURE_THRESHOLD
    apart)."""
    k = 0
    code_values[0] = values[order[0]]
    for r in range(order.shape[0]):
        i = order[r]
        v = values[i]
        if v != code_values[k]:
            if v <= code_values[k] + _FEATURE_THRESHOLD:
                return -1
            if k + 1 == _MAX_CODES:
                return 0
            k += 1
            code_values[k] = v
        codes[i] = k
    return k + 1


@nb.njit(cache=True, nogil=True)
def _bin_codes(values, order, max_bins, bin_sample, codes, code_values):
    """Code a feature by bins of about n / max_bins examples each; returns the number of bins.

    Bin edges lie halfway between the values on either side of every (b m / max_bins)-th position
    of the m sampled examples in increasing order (``bin_sample``: a boolean mask of the examples;
    empty: all, ``order`` itself) where those values differ; ``codes[i]`` is the bin of X[i, f] (the
    number of edges below it) and ``code_values[k]`` bin k's upper edge, the threshold of a split
    after it (the last bin's is +inf, never a threshold).
    """
    sample = order if bin_sample.shape[0] == 0 else order[bin_sample[order]]
    m = sample.shape[0]
    n_edges = 0
    for b in range(1, max_bins):
        r = (b * m) // max_bins
        if r < 1:  # fewer sampled examples than bins
            continue
        below, above = values[sample[r - 1]], values[sample[r]]
        if above > below + _FEATURE_THRESHOLD and (n_edges == 0 or below > code_values[n_edges - 1]):
            code_values[n_edges] = _midpoint(below, above)
            n_edges += 1
    code_values[n_edges] = np.inf
    k = 0
    for r in range(order.shape[0]):
        i = order[r]
        while values[i] > code_values[k]:
            k += 1
        codes[i] = k
    return n_edges + 1


@nb.njit(cache=True, nogil=True)
def _nonzero_bits(Xt):
    """Bit f of row i: X[i, f] != 0 (see :func:`_node_nonzero_bits`, which ORs a node's rows)."""
    d, n = Xt.shape
    bits = np.zeros((n, (d + 63) // 64), dtype=np.uint64)
    for f in range(d):
        for i in range(n):
            if Xt[f, i] != 0:
                bits[i, f >> 6] |= np.uint64(1) << np.uint64(f & 63)
    return bits
