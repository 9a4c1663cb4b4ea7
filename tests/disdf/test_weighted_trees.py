"""Example weights in the trees of every engine: they weigh the Gini sums and the leaves, whole weights
are repeated examples (exactly where no bootstrap draws), weight 0 is a dropped example, a weighted
bootstrap draws in proportion to the weights."""

import numpy as np
import pytest
from scipy import stats

from disdf import CascadeForestClassifier, DisDFClassifier, PlainForestClassifier
from disdf.forests._compiled import FastForest, FastForestParams, kernels
from disdf.forests._specs import fit_fold_model

#: Forests without bootstrap: every tree sees every example with its weight.
NO_BOOTSTRAP = {
    "completely_random": FastForestParams(random_splits=True, max_features=1, bootstrap=False),
    "extra_trees": FastForestParams(random_splits=True, max_features="sqrt", bootstrap=False),
    "best_splits": FastForestParams(random_splits=False, max_features="sqrt", bootstrap=False),
    "best_splits_depth_3": FastForestParams(
        random_splits=False, max_features=None, bootstrap=False, max_depth=3
    ),
}
FOREST_ARRAYS = ("roots", "feature", "threshold", "left", "right", "leaf_values")


@pytest.fixture(scope="module")
def weighted_data():
    """60 examples of 5 features in 3 overlapping classes, whole weights 0 to 3 (some 0)."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 60)
    X = (rng.normal(size=(60, 5)) + 0.8 * y[:, None]).astype(np.float32)
    weights = rng.integers(0, 4, 60).astype(float)
    return X, y, weights


def assert_same_forest(a: FastForest, b: FastForest) -> None:
    for name in FOREST_ARRAYS:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


@pytest.mark.parametrize("kind", sorted(NO_BOOTSTRAP))
def test_constant_weights_grow_the_unweighted_trees_without_bootstrap(weighted_data, kind):
    """Weights of 2 scale every Gini sum by a power of two (exact in floating point), and leaves are
    normalised: the weighted code path must grow exactly the unweighted trees, so the weights reach
    the criterion and the leaves consistently."""
    X, y, _ = weighted_data
    unweighted = FastForest(NO_BOOTSTRAP[kind], 20, 7, 3).fit(X, y)
    doubled = FastForest(NO_BOOTSTRAP[kind], 20, 7, 3).fit(X, y, sample_weight=np.full(len(y), 2.0))
    assert_same_forest(unweighted, doubled)


@pytest.mark.parametrize("kind", sorted(NO_BOOTSTRAP))
def test_whole_weights_grow_the_trees_of_repeated_examples_without_bootstrap(weighted_data, kind):
    """Example i with weight k grows the trees of k copies of it (none for 0: a dropped example), bit
    for bit: the same draws, the same Gini comparisons (whole sums are exact), the same leaves."""
    X, y, weights = weighted_data
    repeats = weights.astype(int)
    weighted = FastForest(NO_BOOTSTRAP[kind], 20, 7, 3).fit(X, y, sample_weight=weights)
    repeated = FastForest(NO_BOOTSTRAP[kind], 20, 7, 3).fit(
        np.repeat(X, repeats, axis=0), np.repeat(y, repeats)
    )
    assert_same_forest(weighted, repeated)


def test_zero_weights_drop_their_examples_without_bootstrap(weighted_data):
    X, y, _ = weighted_data
    keep = np.arange(len(y)) % 4 != 0
    params = NO_BOOTSTRAP["best_splits"]
    dropped = FastForest(params, 20, 3, 3).fit(X[keep], y[keep])
    zeroed = FastForest(params, 20, 3, 3).fit(X, y, sample_weight=keep.astype(float))
    assert_same_forest(dropped, zeroed)


@pytest.mark.parametrize("engine", ["fast", "sklearn"])
def test_a_plain_extra_trees_forest_weighs_as_it_repeats(weighted_data, engine):
    """PlainForestClassifier's extremely randomised trees draw no bootstrap: whole weights give the
    probabilities of the repeated examples on either engine (scikit-learn's trees read the weights
    alike: the same draws, the same splits)."""
    X, y, weights = weighted_data
    repeats = weights.astype(int)
    options = {"kind": "extra_trees", "n_trees": 5, "engine": engine, "random_state": 1}
    weighted = PlainForestClassifier(**options).fit(X, y, sample_weight=weights)
    repeated = PlainForestClassifier(**options).fit(np.repeat(X, repeats, axis=0), np.repeat(y, repeats))
    np.testing.assert_array_equal(weighted.predict_proba(X), repeated.predict_proba(X))


def test_the_sklearn_engine_passes_the_rows_weights_to_scikit_learn(weighted_data):
    from sklearn.ensemble import ExtraTreesClassifier

    X, y, weights = weighted_data
    rows = np.arange(10, 60)
    model = fit_fold_model(
        "completely_random", {}, "sklearn", X, y, n_classes=3, n_trees=6, random_state=3,
        tree_params={}, rows=rows, sample_weight=weights,
    )  # fmt: skip
    reference = ExtraTreesClassifier(n_estimators=6, max_features=1, random_state=3, n_jobs=1)
    reference.fit(X[rows], y[rows], sample_weight=weights[rows])
    np.testing.assert_array_equal(model.forest.predict_proba(X), reference.predict_proba(X))


def test_a_weighted_bootstrap_draws_in_proportion_to_the_weights_and_never_a_weight_of_zero():
    weights = np.array([0.0, 1.0, 3.0, 0.0, 0.5, 2.5, 0.0])
    cumulative = np.cumsum(weights)
    counts = np.zeros(len(weights))
    for tree in range(3000):
        drawn = kernels._tree_sample_weights(
            kernels.tree_stream(11, tree), weights, cumulative, len(weights), True, len(weights)
        )
        assert drawn.sum() == len(weights)  # n draws, each a whole count
        counts += drawn
    assert np.all(counts[weights == 0] == 0)
    positive = weights > 0
    expected = counts.sum() * weights[positive] / weights.sum()
    assert stats.chisquare(counts[positive], expected).pvalue > 1e-3


def test_without_weights_the_kernels_draw_the_bootstrap_of_old():
    """An empty weight array is the unweighted path: the same counts as bootstrap_counts (the stream
    every committed forest was grown from)."""
    for tree in range(5):
        stream = kernels.tree_stream(4, tree)
        drawn = kernels._tree_sample_weights(stream, np.empty(0), np.empty(0), 30, True, 30)
        np.testing.assert_array_equal(drawn, kernels.bootstrap_counts(4, tree, 30))


def bootstrapped_tree_sizes(X, y, weights, seed, n_trees=400):
    """Leaves of each tree of a compiled random forest (best splits, bootstrap) of 2 classes."""
    Xt = np.ascontiguousarray(X.T, dtype=np.float64)
    roots, feature, *_ = kernels.grow_forest(
        Xt, y.astype(np.int64), weights, 2, n_trees, seed, 2, False, True, -1, 2, 1, 64, 0, np.empty(0, bool),
        False,
    )  # fmt: skip
    return np.diff(np.append(roots, len(feature))) + 1  # a tree's internal nodes are contiguous


def test_a_bootstrapped_forest_grows_like_repeated_examples_when_the_weights_sum_to_n():
    """A bootstrap draws n examples, repeated examples draw sum(weights): where the two agree (half
    the examples weighing 2, half 0) the draws are the same multinomial, so the trees are alike in
    distribution though not bit for bit (other random draws). Their mean size agrees within 3
    standard errors; counts times weights (scikit-learn before 1.8) would put each example in 63 %
    of the trees instead of 86 % and grow trees of about 5 leaves instead of 6.4 (z about 14)."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 60)
    X = rng.normal(size=(60, 5)) + 0.8 * y[:, None]
    weights = np.zeros(60)
    weights[rng.permutation(60)[:30]] = 2.0
    repeats = weights.astype(int)
    weighted = bootstrapped_tree_sizes(X, y, weights, seed=1)
    repeated = bootstrapped_tree_sizes(
        np.repeat(X, repeats, axis=0), np.repeat(y, repeats), np.empty(0), seed=2
    )
    standard_error = np.sqrt(weighted.var() / len(weighted) + repeated.var() / len(repeated))
    assert abs(weighted.mean() - repeated.mean()) < 3 * standard_error


def imbalanced_data(seed: int, n: int = 120):
    """Two overlapping classes, a quarter of the examples in class 1, and a test set of 400."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n + 400) < 0.25).astype(int)
    X = rng.normal(size=(n + 400, 4)) + 0.9 * y[:, None]
    return X[:n], y[:n], X[n:]


def minority_share(model, X, y, X_test, sample_weight=None):
    """The share of the test examples predicted as the minority class."""
    return float(np.mean(model.fit(X, y, sample_weight=sample_weight).predict(X_test) == 1))


@pytest.mark.parametrize(
    "estimator",
    [CascadeForestClassifier(n_trees=10, max_levels=2), DisDFClassifier(n_trees=10, max_levels=2)],
    ids=["gcForest", "DisDF"],
)
def test_zero_weights_act_as_dropped_examples_in_a_cascade_over_seeds(estimator):
    """In a cascade the examples of weight 0 stay in the 3-fold split (and get class vectors) and the
    random forests draw bootstraps of the fold's size, so the fit is not that of the dropped
    examples bit for bit. Over 12 seeds, giving 60 % of the minority class weight 0 shifts the
    predictions as dropping them does: the paired mean difference of the test examples predicted
    minority lies within +-0.04 with 95 % confidence (TOST), and both are far from no weights
    (weights that the trees or the score ignored would fail here)."""
    weighted, dropped, unweighted = [], [], []
    for seed in range(12):
        X, y, X_test = imbalanced_data(seed)
        keep = (y == 0) | (np.random.default_rng(100 + seed).random(len(y)) < 0.4)
        model = estimator.set_params(random_state=seed)
        weighted.append(minority_share(model, X, y, X_test, keep.astype(float)))
        dropped.append(minority_share(model, X[keep], y[keep], X_test))
        unweighted.append(minority_share(model, X, y, X_test))
    difference = np.array(weighted) - np.array(dropped)
    standard_error = difference.std(ddof=1) / np.sqrt(len(difference))
    assert abs(difference.mean()) + stats.t.ppf(0.95, len(difference) - 1) * standard_error < 0.04
    assert np.mean(unweighted) - np.mean(weighted) > 0.05
