"""The compiled forest engine: tree-level invariants, nesting, determinism, and its cascade."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.model_selection import train_test_split

from disdf import CascadeForestClassifier, DisDFClassifier
from disdf.cascade._shared_first_level import fit_sharing_first_level
from disdf.forests._compiled import FastForest, FastForestParams, kernels, prediction_kernels
from disdf.forests._compiled.forest import n_candidate_features
from disdf.forests._compiled.node_layout import local_child_codes
from disdf.forests._specs import fit_fold_model

#: The bin sample that places bins on every example.
NO_SAMPLE = np.empty(0, dtype=np.bool_)


def grow_unshared(X, y, *args):
    """The compiled grower with one leaf row per leaf, from X example-major as the tests build it
    (``args``: n_classes to min_samples_leaf, then optionally histogram_min_node and max_bins), its
    bins on every example: the tree arrays (roots, feature, threshold, left, right, leaf_values)."""
    args = (*args, *(kernels._HISTOGRAM_MIN_NODE, 0)[len(args) - 9 :])  # the defaults not given
    Xt = np.ascontiguousarray(X.T).astype(np.float64)
    return kernels.grow_forest(Xt, y, np.empty(0), *args, np.empty(0, dtype=np.bool_), False)[:6]


COMPLETELY_RANDOM = FastForestParams(random_splits=True, max_features=1, bootstrap=False)
RANDOM_FOREST = FastForestParams(random_splits=False, max_features="sqrt", bootstrap=True)
KINDS = {"completely_random": COMPLETELY_RANDOM, "random_forest": RANDOM_FOREST}


@pytest.fixture(scope="module")
def data() -> tuple[np.ndarray, np.ndarray]:
    X, y = make_classification(
        n_samples=80, n_features=12, n_informative=5, n_classes=3, n_clusters_per_class=1, random_state=0
    )
    return X.astype(np.float32), y


def grow(params, X, y, n_trees=20, seed=0, n_classes=3) -> FastForest:
    return FastForest(params, n_trees, seed, n_classes).fit(X, y)


def tree_paths(forest: FastForest, X: np.ndarray, tree: int) -> dict[int, np.ndarray]:
    """Internal node -> indices of the rows of X that reach it (a plain traversal, for checking)."""
    reached: dict[int, np.ndarray] = {}
    root = int(forest.roots[tree])
    frontier = [(root, np.arange(len(X)))]
    while frontier:
        code, rows = frontier.pop()
        if code < 0:
            continue
        reached[code] = rows
        goes_left = X[rows, forest.feature[code]] <= forest.threshold[code]
        frontier += [(node_index(root, forest.left[code]), rows[goes_left])]
        frontier += [(node_index(root, forest.right[code]), rows[~goes_left])]
    return reached


def leaf_sizes(forest: FastForest, X: np.ndarray, tree: int) -> list[int]:
    """Number of rows of X that reach each leaf of the tree (a plain traversal)."""
    if forest.roots[tree] < 0:
        return [len(X)]
    sizes = []
    for node, rows in tree_paths(forest, X, tree).items():
        goes_left = X[rows, forest.feature[node]] <= forest.threshold[node]
        for child, reaching in ((forest.left[node], goes_left), (forest.right[node], ~goes_left)):
            if child < 0:
                sizes.append(int(reaching.sum()))
    return sizes


def node_index(root: int, code) -> int:
    """A child code relative to its tree's root (as a fitted forest keeps them) as a node index; leaves
    (negative) as they are."""
    return root + int(code) if code >= 0 else int(code)


def tree_depth(forest: FastForest, code: int, root: int | None = None) -> int:
    if code < 0:
        return 0
    root = code if root is None else root
    return 1 + max(
        tree_depth(forest, node_index(root, forest.left[code]), root),
        tree_depth(forest, node_index(root, forest.right[code]), root),
    )


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_fully_grown_trees_have_pure_leaves_on_their_training_examples(data, kind):
    X, y = data
    forest = grow(KINDS[kind], X, y)
    leaves = forest.apply(X)
    for t in range(forest.n_trees):
        in_sample = (
            kernels.bootstrap_counts(forest.seed, t, len(y)) > 0
            if KINDS[kind].bootstrap
            else np.ones(len(y), bool)
        )
        distributions = forest.leaf_values[leaves[in_sample, t]]
        np.testing.assert_array_equal(distributions[np.arange(in_sample.sum()), y[in_sample]], 1.0)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_class_distributions_sum_to_one(data, kind):
    X, y = data
    forest = grow(KINDS[kind], X, y)
    np.testing.assert_allclose(forest.leaf_values.sum(axis=1), 1.0)
    probabilities = forest.probabilities(np.random.default_rng(0).normal(size=(30, X.shape[1])))
    assert probabilities.shape == (30, forest.n_trees, 3)
    np.testing.assert_allclose(probabilities.sum(axis=2), 1.0)
    assert probabilities.min() >= 0.0


def test_bootstrap_samples_n_with_replacement(data):
    n = 120
    counts = np.array([kernels.bootstrap_counts(5, t, n) for t in range(200)])
    np.testing.assert_array_equal(counts.sum(axis=1), n)
    in_bag = (counts > 0).mean()
    assert abs(in_bag - (1 - (1 - 1 / n) ** n)) < 0.01  # 63.3 % distinct on average
    assert not np.array_equal(counts[0], counts[1])


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_thresholds_lie_inside_the_node_range(data, kind):
    X, y = data
    forest = grow(KINDS[kind], X, y, n_trees=5)
    for t in range(forest.n_trees):
        rows_in_sample = np.flatnonzero(
            kernels.bootstrap_counts(forest.seed, t, len(y)) > 0 if KINDS[kind].bootstrap else np.ones(len(y))
        )
        for node, rows in tree_paths(forest, X[rows_in_sample], t).items():
            values = X[rows_in_sample[rows], forest.feature[node]]
            assert values.min() <= forest.threshold[node] < values.max()


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_growth_limits_are_honoured(data, kind):
    X, y = data
    from dataclasses import replace

    shallow = grow(replace(KINDS[kind], max_depth=3), X, y)
    assert max(tree_depth(shallow, int(root)) for root in shallow.roots) <= 3
    leafy = grow(replace(KINDS[kind], min_samples_leaf=5, bootstrap=False), X, y)
    for t in range(leafy.n_trees):
        assert min(leaf_sizes(leafy, X, t)) >= 5
    split = grow(replace(KINDS[kind], min_samples_split=30, bootstrap=False), X, y)
    for t in range(split.n_trees):
        for rows in tree_paths(split, X, t).values():
            assert len(rows) >= 30


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_first_trees_of_a_forest_are_the_smaller_forest(data, kind):
    X, y = data
    big = grow(KINDS[kind], X, y, n_trees=30, seed=11)
    small = grow(KINDS[kind], X, y, n_trees=12, seed=11)
    np.testing.assert_array_equal(big.first(12).probabilities(X), small.probabilities(X))
    w = np.random.default_rng(0).dirichlet(np.ones(12))
    np.testing.assert_allclose(big.first(12).weighted_probabilities(X, w), small.weighted_probabilities(X, w))


@pytest.mark.parametrize("kind", ["completely_random", "random_forest"])
def test_sklearn_first_trees_are_the_smaller_forest(data, kind):
    """The property level-1 sharing relies on, for scikit-learn's forests too."""
    X, y = data
    options = {"n_classes": 3, "random_state": 4, "tree_params": {}}
    big = fit_fold_model(kind, {}, "sklearn", X, y, n_trees=15, **options)
    small = fit_fold_model(kind, {}, "sklearn", X, y, n_trees=6, **options)
    np.testing.assert_array_equal(big.first(6).probabilities(X), small.probabilities(X))


def test_same_seed_same_forest_other_seed_other_forest(data):
    X, y = data
    a, b, c = (grow(RANDOM_FOREST, X, y, seed=s) for s in (3, 3, 4))
    np.testing.assert_array_equal(a.probabilities(X), b.probabilities(X))
    assert not np.array_equal(a.probabilities(X), c.probabilities(X))


@pytest.mark.parametrize(
    ("max_features", "d", "expected"),
    [(1, 34, 1), ("sqrt", 784, 28), ("sqrt", 7, 2), ("log2", 34, 5), (None, 9, 9), (0.5, 9, 4)],
)
def test_max_features_resolves_like_scikit_learn(max_features, d, expected):
    assert n_candidate_features(max_features, d) == expected


def test_constant_and_duplicate_features_do_not_break_growth():
    X = np.zeros((30, 5), dtype=np.float32)
    X[:, 3] = np.arange(30) % 4  # the only informative feature
    y = (np.arange(30) % 4 >= 2).astype(int)
    forest = grow(RANDOM_FOREST, X, y, n_classes=2)
    assert set(np.unique(forest.feature)) == {3}
    np.testing.assert_array_equal(forest.probabilities(X).mean(axis=1).argmax(axis=1), y)


def test_identical_examples_with_different_labels_make_a_mixed_leaf():
    X = np.ones((4, 2), dtype=np.float32)
    forest = grow(COMPLETELY_RANDOM, X, np.array([0, 1, 1, 1]), n_trees=3, n_classes=2)
    np.testing.assert_allclose(forest.probabilities(X[:1])[0], [[0.25, 0.75]] * 3)


def test_forest_accuracy_matches_scikit_learn_on_held_out_data():
    """A coarse same-learner check per forest kind (the full paired comparison is in results/bench)."""
    from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier

    X, y = load_breast_cancer(return_X_y=True)
    accuracies = {"fast": [], "sklearn": []}
    for seed in range(6):
        X_train, X_test, y_train, y_test = train_test_split(
            X, y, train_size=120, random_state=seed, stratify=y
        )
        for params, reference in [
            (COMPLETELY_RANDOM, ExtraTreesClassifier(max_features=1)),
            (RANDOM_FOREST, RandomForestClassifier()),
        ]:
            fast = grow(params, X_train, y_train, n_trees=100, seed=seed, n_classes=2)
            accuracies["fast"].append(
                np.mean(fast.probabilities(X_test).mean(axis=1).argmax(axis=1) == y_test)
            )
            reference.set_params(n_estimators=100, random_state=seed).fit(X_train, y_train)
            accuracies["sklearn"].append(reference.score(X_test, y_test))
    assert abs(np.mean(accuracies["fast"]) - np.mean(accuracies["sklearn"])) < 0.02


def n_leaves(forest: FastForest, code: int, root: int | None = None) -> int:
    if code < 0:
        return 1
    root = code if root is None else root
    return n_leaves(forest, node_index(root, forest.left[code]), root) + n_leaves(
        forest, node_index(root, forest.right[code]), root
    )


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_tree_sizes_match_scikit_learn_where_features_are_often_constant(kind):
    """Same draw rule as scikit-learn: constant features count towards max_features.

    Rare binary features are constant in most nodes; counting only non-constant
    draws (the rule of kernel version 1) gave random-forest trees 16.1 leaves
    against scikit-learn's 19.1 here (z = -13).
    """
    from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 12))
    X[:, 4:] = rng.random((80, 8)) < 0.05
    y = (X[:, 0] + X[:, 1] + 0.5 * rng.normal(size=80) > 0).astype(int) + (X[:, 2] > 1)
    params = KINDS[kind]
    reference = RandomForestClassifier() if kind == "random_forest" else ExtraTreesClassifier(max_features=1)
    reference.set_params(n_estimators=400, random_state=0).fit(X, y)
    sklearn_sizes = np.array([tree.tree_.n_leaves for tree in reference.estimators_])
    forest = grow(params, X, y, n_trees=400)
    fast_sizes = np.array([n_leaves(forest, int(root)) for root in forest.roots])
    standard_error = np.sqrt(sklearn_sizes.var() / 400 + fast_sizes.var() / 400)
    assert abs(fast_sizes.mean() - sklearn_sizes.mean()) < 3 * standard_error


def test_fast_engine_refuses_parameters_it_does_not_implement():
    with pytest.raises(ValueError, match=r"does not implement the forest parameter\(s\) \['class_weight'\]"):
        CascadeForestClassifier(
            engine="fast", forests=[{"kind": "random_forest", "class_weight": "balanced"}]
        ).fit(np.eye(6), [0, 1] * 3)
    with pytest.raises(ValueError, match="criterion='gini' only"):
        CascadeForestClassifier(
            engine="fast", forests=[{"kind": "random_forest", "criterion": "entropy"}]
        ).fit(np.eye(6), [0, 1] * 3)
    with pytest.raises(ValueError, match="engine must be one of"):
        CascadeForestClassifier(engine="numba").fit(np.eye(6), [0, 1] * 3)


@pytest.mark.parametrize("engine", ["sklearn", "fast"])
def test_sharing_the_first_level_gives_the_estimators_fit_gives(engine):
    X, y = load_breast_cancer(return_X_y=True)
    X, y = X[:90], y[:90]
    estimators = [
        cls(n_trees=T, random_state=3, engine=engine)
        for T in (5, 12)
        for cls in (CascadeForestClassifier, DisDFClassifier)
    ]
    plain = [clone(e).fit(X, y) for e in estimators]
    fit_sharing_first_level(estimators, X, y)
    for shared, alone in zip(estimators, plain, strict=True):
        assert shared.level_scores_ == alone.level_scores_
        np.testing.assert_array_equal(shared.predict_proba(X), alone.predict_proba(X))
        for w_shared, w_alone in zip(shared.weights_, alone.weights_, strict=True):
            np.testing.assert_array_equal(np.asarray(w_shared), np.asarray(w_alone))


def test_sharing_refuses_estimators_whose_first_levels_differ():
    with pytest.raises(ValueError, match=r"differs from estimators\[0\] in \['n_folds'\]"):
        fit_sharing_first_level(
            [CascadeForestClassifier(random_state=0), CascadeForestClassifier(n_folds=4, random_state=0)],
            np.eye(6),
            [0, 1] * 3,
        )
    with pytest.raises(ValueError, match="integer random_state"):
        fit_sharing_first_level([CascadeForestClassifier()], np.eye(6), [0, 1] * 3)


def test_the_sharing_docs_name_every_parameter_that_must_agree():
    """fit_sharing_first_level's public docstring lists LEVEL_ONE_PARAMS in prose: it keeps up."""
    from disdf.cascade._shared_first_level import LEVEL_ONE_PARAMS

    doc = fit_sharing_first_level.__doc__ or ""
    assert [name for name in LEVEL_ONE_PARAMS if f"``{name}``" not in doc] == []


@pytest.mark.parametrize("estimator", [CascadeForestClassifier, DisDFClassifier])
def test_fast_results_do_not_depend_on_n_jobs(estimator, data):
    X, y = data
    one = estimator(n_trees=10, random_state=7, n_jobs=1, engine="fast").fit(X, y)
    two = estimator(n_trees=10, random_state=7, n_jobs=2, engine="fast").fit(X, y)
    np.testing.assert_array_equal(one.predict_proba(X), two.predict_proba(X))
    assert one.level_scores_ == two.level_scores_


#: sha256 of the trees grown below, per KERNEL_VERSION. A kernel change that changes any tree
#: must bump disdf.forests._compiled.KERNEL_VERSION (so experiment records of the old trees are not
#: resumed) and add its fingerprint here; a speed-up that keeps the trees keeps the fingerprint.
TREE_FINGERPRINTS = {
    1: "c95f2a8a0f9fec1fa0c6f53e69a397e13da9a052f8477b5bf4a4abc25f1e1438",
    # 2: constant features count towards max_features, as in scikit-learn.
    2: "922f197f3f5c654dd5277e7f2dbda6d27fb0ce52244b86044bc842fd870ce68e",
}


def test_trees_match_the_fingerprint_of_the_kernel_version():
    import hashlib

    from sklearn.datasets import load_digits

    from disdf.forests._compiled import KERNEL_VERSION

    X, y = load_digits(return_X_y=True)
    X, y = np.ascontiguousarray(X[:90], dtype=np.float32), y[:90].astype(np.int64)
    digest = hashlib.sha256()
    for random_splits, max_features, bootstrap in [(False, 8, True), (True, 1, False)]:
        for array in grow_unshared(X, y, 10, 20, 7, max_features, random_splits, bootstrap, -1, 2, 1):
            digest.update(np.ascontiguousarray(array).tobytes())
    assert digest.hexdigest() == TREE_FINGERPRINTS[KERNEL_VERSION]


def test_node_sort_method_depends_on_node_size_against_the_presorted_length():
    assert kernels._sort_method(10, 100_000) == kernels._INSERT
    assert kernels._sort_method(40, 100_000) == kernels._INSERT
    assert kernels._sort_method(500, 100_000) == kernels._GATHER
    assert kernels._sort_method(500, 1_000) == kernels._FILTER
    assert kernels._sort_method(40, 100) == kernels._FILTER


@pytest.mark.parametrize(
    "shift, fingerprint",
    [
        # Pixels: zeros come first as one block (the nonzero-values path).
        (0.0, "4acce42e5c3bd5a1770e30d67b6a1074a4097f9da6e39fc1a4f6f135a06b1cc3"),
        # Negative values: the plain sorted path.
        (-5.0, "8763315e326d28bcda07026ea2b2d58e04b63330c947128d23a6c32e21ca82e5"),
    ],
)
def test_trees_do_not_depend_on_how_nodes_sort_their_values(shift, fingerprint):
    """On 1,797 digits nodes insert, filter and gather-sort; the trees are those grown (kernel 2)
    when every node of more than 16 examples filtered the presorted order."""
    import hashlib

    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    X, y = np.ascontiguousarray(X + shift, dtype=np.float32), y.astype(np.int64)
    digest = hashlib.sha256()
    for random_splits, max_features, bootstrap in [(False, 8, True), (True, 1, False)]:
        for array in grow_unshared(X, y, 10, 20, 7, max_features, random_splits, bootstrap, -1, 2, 1):
            digest.update(np.ascontiguousarray(array).tobytes())
    assert digest.hexdigest() == fingerprint


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_pure_leaves_share_rows_and_probabilities_are_unchanged(data, kind):
    X, y = data
    forest = grow(KINDS[kind], X, y)
    grown = grow_unshared(
        np.ascontiguousarray(X, dtype=np.float32),
        y.astype(np.int64),
        3,
        20,
        0,
        kernels_max_features(KINDS[kind], X),
        KINDS[kind].random_splits,
        KINDS[kind].bootstrap,
        -1,
        2,
        1,
    )
    roots, feature, threshold, left, right, leaf_values = grown
    roots, left, right = local_child_codes(roots, left, right, len(leaf_values))
    assert forest.left.dtype == np.int16 and len(forest.leaf_values) < len(leaf_values)
    np.testing.assert_array_equal(forest.leaf_values[:3], np.eye(3))
    X_new = np.random.default_rng(1).normal(size=(200, X.shape[1]))
    one_row_per_leaf = prediction_kernels.tree_probabilities(
        np.ascontiguousarray(X_new, dtype=np.float32), roots, feature, threshold, left, right, leaf_values
    )
    np.testing.assert_array_equal(forest.probabilities(X_new), one_row_per_leaf)


def kernels_max_features(params, X) -> int:
    from disdf.forests._compiled.forest import n_candidate_features

    return n_candidate_features(params.max_features, X.shape[1])


def _grown_arrays(X, y, max_features, bootstrap, min_samples_leaf, histogram_min_node):
    return grow_unshared(
        X,
        y,
        int(y.max()) + 1,
        6,
        3,
        max_features,
        False,
        bootstrap,
        -1,
        2,
        min_samples_leaf,
        histogram_min_node,
    )


@pytest.mark.parametrize("min_samples_leaf", [1, 4])
@pytest.mark.parametrize("bootstrap", [True, False])
def test_histogram_splits_grow_the_trees_that_sorting_grows(min_samples_leaf, bootstrap):
    """Nodes that read class-weight histograms of coded features split where sorting splits them."""
    rng = np.random.default_rng(0)
    n = 1500
    y = rng.integers(0, 4, n).astype(np.int64)
    X = np.column_stack(
        [
            rng.integers(0, 256, n) * (rng.random(n) < 0.3),  # pixel-like: whole values, mostly zero
            rng.integers(-3, 4, n) + 0.25 * y,  # few distinct values, not whole: coded by rank
            rng.normal(size=n) + y,  # many distinct values: never coded, always sorted
            np.where(rng.random(n) < 0.5, 1.0, 1.0 + 1e-9) + y,  # values 1e-9 apart count as one
            rng.integers(0, 3, n).astype(float),
        ]
    ).astype(np.float32)
    never = _grown_arrays(X, y, 2, bootstrap, min_samples_leaf, n + 1)
    always = _grown_arrays(X, y, 2, bootstrap, min_samples_leaf, 2)
    for sorted_array, histogram_array in zip(never, always, strict=True):
        np.testing.assert_array_equal(histogram_array, sorted_array)
    assert len(never[1]) > 100  # the trees did split, on many nodes


def test_forest_training_data_codes_few_valued_features_and_counting_sort_is_the_stable_order():
    rng = np.random.default_rng(1)
    n = 700
    X = np.column_stack(
        [rng.integers(0, 256, n), rng.integers(0, 5, n) * 0.1, rng.normal(size=n), [0.0, 1e-9] * (n // 2)]
    )
    Xt = np.ascontiguousarray(X.astype(np.float32).T, dtype=np.float64)  # as grow_forest reads X
    data = kernels._training_data(Xt, np.zeros(n, dtype=np.int64), np.empty(0), False, 64, 0, NO_SAMPLE)
    for f in range(X.shape[1]):
        np.testing.assert_array_equal(data.presorted[f], np.argsort(data.Xt[f], kind="stable"))
    assert data.n_codes[0] == data.Xt[0].max() + 1 and data.n_codes[1] == 5
    assert data.n_codes[2] == 0 and data.n_codes[3] == 0  # too many values; two that count as one
    for f in (0, 1):
        np.testing.assert_array_equal(data.code_values[f][data.codes[f]], data.Xt[f])
    small = kernels._training_data(
        np.ascontiguousarray(Xt[:, :60]), np.zeros(60, dtype=np.int64), np.empty(0), False, 64, 0, NO_SAMPLE
    )
    assert small.codes.shape[0] == 0  # nodes that small never read histograms: nothing is coded


def test_binned_engine_grows_the_fast_trees_where_no_feature_needs_bins():
    """On at most 256 examples, or with features of at most 256 distinct values (none closer than
    1e-7 to another), "binned" is "fast"; above 256 examples a feature it cannot code exactly is binned."""
    rng = np.random.default_rng(2)
    y = rng.integers(0, 3, 900).astype(np.int64)
    few_values = rng.integers(0, 200, (900, 6)).astype(np.float32) / 7
    continuous = (rng.normal(size=(250, 6)) + y[:250, None]).astype(np.float32)
    continuous[:, 0] *= 1e-3
    continuous[::2, 0] = continuous[1::2, 0] + 5e-9  # pairs of distinct values closer than 1e-7

    def training_data(X, labels):  # X feature-major in float64, as grow_forest reads it
        Xt = np.ascontiguousarray(X.T, dtype=np.float64)
        return kernels._training_data(Xt, labels, np.empty(0), False, 64, 255, NO_SAMPLE)

    assert not training_data(continuous, y[:250]).binned.any()
    near = np.vstack([continuous] * 4)  # the same values on 1,000 examples: binned
    assert training_data(near, np.tile(y[:250], 4)).binned.tolist() == [
        True,
        *[False] * 5,
    ]
    for X, labels in ((few_values, y), (continuous, y[:250])):
        for random_splits, max_features, bootstrap in [(False, 3, True), (True, 1, False)]:
            args = (X, labels, 3, 8, 4, max_features, random_splits, bootstrap, -1, 2, 1, 64)
            for exact, binned in zip(grow_unshared(*args, 0), grow_unshared(*args, 255), strict=True):
                np.testing.assert_array_equal(binned, exact)


def test_bins_hold_about_equal_counts_and_split_at_their_upper_edges():
    rng = np.random.default_rng(3)
    n = 5000
    y = rng.integers(0, 2, n).astype(np.int64)
    X = np.column_stack([rng.normal(size=n) + y, rng.exponential(size=n)]).astype(np.float32)
    Xt = np.ascontiguousarray(X.T, dtype=np.float64)
    data = kernels._training_data(Xt, y, np.empty(0), False, 64, 50, NO_SAMPLE)
    for f in range(2):
        n_bins, edges, codes = data.n_codes[f], data.code_values[f], data.codes[f].astype(int)
        assert data.binned[f] and n_bins == 50 and np.all(np.diff(edges[: n_bins - 1]) > 0)
        assert np.all(data.Xt[f] <= edges[codes])  # a bin's values lie below its upper edge ...
        assert np.all(data.Xt[f][codes > 0] > edges[codes[codes > 0] - 1])  # ... and above the last one
        counts = np.bincount(codes, minlength=n_bins)
        assert counts.min() >= 0.9 * n / 50 and counts.max() <= 1.1 * n / 50
    roots, feature, threshold, *_ = grow_unshared(X, y, 2, 3, 1, 2, False, True, -1, 2, 1, 64, 50)
    split_at_root = [threshold[r] for r in roots if r >= 0]
    assert all(np.isin(t, data.code_values[feature[r]]) for t, r in zip(split_at_root, roots, strict=True))


@pytest.mark.parametrize("engine", ["fast", "binned"])
def test_both_compiled_engines_learn_a_continuous_problem(engine):
    X, y = make_classification(n_samples=3000, n_features=10, n_informative=6, random_state=0)
    X_train, X_test, y_train, y_test = train_test_split(X.astype(np.float32), y, random_state=0)
    model = CascadeForestClassifier(n_trees=20, max_levels=1, engine=engine, random_state=0)
    assert model.fit(X_train, y_train).score(X_test, y_test) > 0.85


def test_a_leaf_memo_routes_examples_once_for_every_first_t_forest(data, monkeypatch):
    import pickle

    import disdf.forests._compiled.leaf_memo as leaf_memo

    X, y = data
    forest = grow(RANDOM_FOREST, X, y, n_trees=30)
    expected = {T: grow(forest.params, X, y, n_trees=T) for T in (7, 30)}  # no memo: the kernel
    routed = []
    apply_forest = prediction_kernels.apply_forest
    monkeypatch.setattr(
        prediction_kernels, "apply_forest", lambda *a: routed.append(a[0].shape) or apply_forest(*a)
    )
    forest.memoize_leaves()
    views = {7: forest.first(7), 30: forest}
    rng = np.random.default_rng(0)
    for round_, examples in enumerate([X[:40], X[:40].copy(), X[40:80]]):  # same content, then new
        for T, view in views.items():
            w = rng.dirichlet(np.ones(T))
            np.testing.assert_array_equal(
                view.weighted_probabilities(examples, w), expected[T].weighted_probabilities(examples, w)
            )
        assert routed == [(40, X.shape[1])] * (1 if round_ < 2 else 2)  # once per distinct X, all 30 trees
    assert pickle.loads(pickle.dumps(forest)).leaf_memo.roots.shape == (30,)
    monkeypatch.setattr(leaf_memo, "MAX_MEMO_BYTES", 30 * 4 * 10)  # 10 examples: 40 go without the memo
    w = np.full(7, 1 / 7)
    np.testing.assert_array_equal(
        views[7].weighted_probabilities(X[:40], w), expected[7].weighted_probabilities(X[:40], w)
    )
    assert len(routed) == 2


def numpy_shared_leaves(roots, left, right, values, n_nodes):
    """FastForest's pure-leaf sharing as numpy computes it (the compiled one must equal it)."""
    n_classes = values.shape[1]
    pure_class = np.where(values.max(axis=1) == 1.0, values.argmax(axis=1), -1)
    impure = np.flatnonzero(pure_class < 0)
    row_of_leaf = pure_class.copy()
    row_of_leaf[impure] = n_classes + np.arange(impure.size)
    table = np.vstack([np.eye(n_classes), values[impure]])
    index_type = np.int32 if max(n_nodes, len(table)) < 2**31 - 1 else np.int64

    def remap(codes):
        is_leaf = codes < 0
        return np.where(is_leaf, -row_of_leaf[np.where(is_leaf, -codes - 1, 0)] - 1, codes).astype(index_type)

    return remap(roots), remap(left), remap(right), table


@pytest.mark.parametrize("max_depth", [None, 3])
@pytest.mark.parametrize("kind", KINDS)
def test_pure_leaves_share_rows_as_numpy_computes_them(data, kind, max_depth):
    X, y = data
    params = FastForestParams(**{**KINDS[kind].__dict__, "max_depth": max_depth, "min_samples_leaf": 2})
    forest = grow(params, X, y, n_trees=25)
    raw = grow_unshared(
        X, y.astype(np.int64), 3, 25, 0, n_candidate_features(params.max_features, X.shape[1]),
        params.random_splits, params.bootstrap, -1 if max_depth is None else max_depth, 2, 2,
    )  # fmt: skip
    roots, left, right, table = numpy_shared_leaves(raw[0], raw[3], raw[4], raw[5], len(raw[1]))
    expected = (*local_child_codes(roots, left, right, len(table)), table)
    assert 3 < len(expected[3]) < len(raw[5])  # pure and impure leaves
    for name, got, want in zip(("roots", "left", "right", "leaf_values"), (forest.roots, forest.left,
                               forest.right, forest.leaf_values), expected, strict=True):  # fmt: skip
        assert got.dtype == want.dtype and np.array_equal(got, want), name


#: sha256 (first 16 hex digits) of the trees, importances and every prediction kernel's output below,
#: per (training examples, fractional sample weights, max_bins), grown by kernel 2 before the growth
#: loop passed the children's class weights down and the prediction kernels routed blocks of examples:
#: on 3,000 examples nodes read histograms, bins and every sort method; a speed-up keeps these.
LARGE_FINGERPRINTS = {
    (200, False, 0): "74a82e9d7ed33e2b",
    (200, True, 255): "9ed46aa09ca8b2de",
    (3000, False, 0): "91386fc928801d56",
    (3000, False, 255): "7e2cb4680df3c772",
    (3000, False, 16): "7989faef4e635cd6",
    (3000, True, 0): "e20fedb922bf67a9",
    (3000, True, 255): "8db9462d9c399733",
    (3000, True, 16): "97ba0ec6b8c8b590",
}


@pytest.mark.parametrize("n, weighted, max_bins", sorted(LARGE_FINGERPRINTS))
def test_every_growth_and_prediction_path_keeps_its_fingerprint(n, weighted, max_bins):
    import hashlib

    X, y = make_classification(
        n_samples=n + 500, n_features=12, n_informative=6, n_classes=3, flip_y=0.1, random_state=1
    )
    X = X.astype(np.float32)
    X[:, 0] = np.round(X[:, 0] * 3)  # few distinct values: coded exactly
    X[:, 1] = np.maximum(X[:, 1], 0)  # zeros: the nonzero-values path
    X_train, y_train, held_out = np.ascontiguousarray(X[:n]), y[:n].astype(np.int64), np.arange(n, n + 500)
    weights = np.random.default_rng(0).uniform(0.1, 2.0, n) if weighted else None
    digest = hashlib.sha256()
    # completely random, random forest, extremely randomised (3 candidates), best splits with min_leaf 5
    for random_splits, max_features, bootstrap, min_leaf in [
        (True, 1, False, 1),
        (False, "sqrt", True, 1),
        (True, "sqrt", False, 3),
        (False, 4, True, 5),
    ]:
        params = FastForestParams(
            random_splits, max_features, bootstrap, min_samples_leaf=min_leaf, max_bins=max_bins
        )
        forest = FastForest(params, 8, 3, 3).fit(X_train, y_train, sample_weight=weights)
        importances = forest.tree_importances
        for array in (
            forest.roots, forest.feature, forest.threshold, forest.left, forest.right, forest.leaf_values,
            importances.features, importances.values, importances.indptr,
            forest.apply(X[n:]), forest.tree_leaves(np.ascontiguousarray(X), held_out).leaves,
            forest.probabilities(X[n:]), forest.weighted_probabilities(X[n:], np.linspace(0.05, 0.2, 8)),
        ):  # fmt: skip
            digest.update(np.ascontiguousarray(array).tobytes())
    assert digest.hexdigest()[:16] == LARGE_FINGERPRINTS[(n, weighted, max_bins)]


@pytest.mark.parametrize("kind", KINDS)
def test_routing_gives_the_same_numbers_for_any_block_of_examples(data, kind):
    """Every routing kernel at blocks of 1, 7, 256 and all examples: the leaves, per-tree
    probabilities and weighted class vectors (the same sums in the same order) do not move."""
    X, y = data
    forest = grow(KINDS[kind], X, y, n_trees=15)
    nodes = (forest.roots, forest.feature, forest.threshold, forest.left, forest.right)
    rows = np.arange(len(X))[::-1].copy()
    w = np.random.default_rng(0).dirichlet(np.ones(15))
    results = {
        block: (
            prediction_kernels.apply_forest(X, *nodes, block),
            prediction_kernels.apply_rows(X, rows, *nodes, block),
            prediction_kernels.tree_probabilities(X, *nodes, forest.leaf_values, block),
            prediction_kernels.weighted_probabilities(X, *nodes, forest.leaf_values, w, block),
        )
        for block in (1, 7, 256, len(X))
    }
    for block, arrays in results.items():
        for got, expected in zip(arrays, results[256], strict=True):
            np.testing.assert_array_equal(got, expected, err_msg=f"block {block}")
    np.testing.assert_array_equal(results[1][1], results[1][0][rows])
    np.testing.assert_array_equal(forest.apply(X), results[256][0])


def test_routing_blocks_are_small_for_wide_rows_and_large_for_narrow_rows_and_large_trees():
    """About TREES_OF_ROWS trees' bytes of rows per block, within [ROUTING_BLOCK, ROUTING_BLOCK_MAX]."""

    def block(n_features: int, nodes_per_tree: int, code=np.int16, n_trees: int = 10) -> int:
        n_nodes = nodes_per_tree * n_trees
        arrays = [np.zeros(n_nodes, np.int16), np.zeros(n_nodes, np.float32), *[np.zeros(n_nodes, code)] * 2]
        return prediction_kernels.routing_block(np.zeros((2, n_features), np.float32), n_trees, *arrays)

    assert block(784, 22_000) == prediction_kernels.ROUTING_BLOCK  # MNIST's rows and trees
    expected = prediction_kernels.TREES_OF_ROWS * 5_000 * 10 // (36 * 4)  # 10 bytes per node
    assert prediction_kernels.ROUTING_BLOCK < block(36, 5_000) == expected
    assert block(36, 200_000, np.int32) == prediction_kernels.ROUTING_BLOCK_MAX  # past the largest block
    assert block(36, 1) == prediction_kernels.ROUTING_BLOCK
