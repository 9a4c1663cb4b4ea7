"""max_tree_samples: the most examples a compiled tree draws, for large data (kernels, forest, cascades)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_classification

from disdf import CascadeForestClassifier, DisDFClassifier
from disdf.forests._compiled import FastForest, FastForestParams, kernels
from tests.disdf.test_fast_forest import KINDS, tree_paths

N = 90


@pytest.fixture(scope="module")
def data() -> tuple[np.ndarray, np.ndarray]:
    X, y = make_classification(
        n_samples=N, n_features=8, n_informative=4, n_classes=3, n_clusters_per_class=1, random_state=3
    )
    return X.astype(np.float32), y


def grow(kind: str, X, y, cap=None, sample_weight=None, n_trees=12) -> FastForest:
    params = FastForestParams(**{**KINDS[kind].__dict__, "max_tree_samples": cap})
    return FastForest(params, n_trees, 7, 3).fit(X, y, sample_weight=sample_weight)


def forest_arrays(forest: FastForest) -> list[np.ndarray]:
    return [forest.roots, forest.feature, forest.threshold, forest.left, forest.right, forest.leaf_values]


@pytest.mark.parametrize("bootstrap", [True, False])
def test_a_cap_of_n_or_more_draws_what_no_cap_draws(bootstrap):
    for tree in range(5):
        uncapped = kernels.tree_sample_counts(11, tree, 40, bootstrap, 0)
        for cap in (40, 41, 10**6):
            np.testing.assert_array_equal(kernels.tree_sample_counts(11, tree, 40, bootstrap, cap), uncapped)
    np.testing.assert_array_equal(
        kernels.tree_sample_counts(11, 2, 40, True, 0), kernels.bootstrap_counts(11, 2, 40)
    )


def test_a_capped_bootstrap_draws_the_cap_with_replacement():
    counts = np.array([kernels.tree_sample_counts(5, t, 200, True, 50) for t in range(300)])
    np.testing.assert_array_equal(counts.sum(axis=1), 50)
    assert counts.max() >= 2  # with replacement: some example drawn twice in 300 trees
    assert abs((counts > 0).mean() - (1 - (1 - 1 / 200) ** 50)) < 0.01


def test_a_capped_tree_without_bootstrap_takes_distinct_examples_uniformly():
    counts = np.array([kernels.tree_sample_counts(5, t, 60, False, 15) for t in range(2000)])
    assert set(np.unique(counts)) == {0.0, 1.0}
    np.testing.assert_array_equal(counts.sum(axis=1), 15)
    frequency = counts.mean(axis=0)  # each example in 15/60 of the trees, binomial sd about 0.01
    assert np.abs(frequency - 0.25).max() < 0.05
    assert not np.array_equal(counts[0], counts[1])


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("weighted", [False, True])
def test_a_cap_of_n_or_more_grows_the_uncapped_trees(data, kind, weighted):
    X, y = data
    weights = np.random.default_rng(0).uniform(0.5, 2.0, N) if weighted else None
    uncapped = forest_arrays(grow(kind, X, y, None, weights))
    for cap in (N, N + 1):
        for capped, reference in zip(forest_arrays(grow(kind, X, y, cap, weights)), uncapped, strict=True):
            np.testing.assert_array_equal(capped, reference)


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("weighted", [False, True])
def test_a_capped_tree_grows_on_its_drawn_examples_only(data, kind, weighted):
    """A fully grown tree on m distinct examples has at most m - 1 internal nodes, and puts each of
    its examples in a pure leaf of its class: a tree grown on all N would have more nodes."""
    X, y = data
    cap = 20
    weights = np.random.default_rng(1).uniform(0.5, 2.0, N) if weighted else None
    forest = grow(kind, X, y, cap, weights)
    leaves = forest.apply(X)
    for t in range(forest.n_trees):
        drawn = kernels.tree_sample_counts(forest.seed, t, N, KINDS[kind].bootstrap, cap) > 0
        if weighted and KINDS[kind].bootstrap:  # draws in proportion to the weights, another stream
            assert len(tree_paths(forest, X, t)) <= cap - 1
            continue
        assert len(tree_paths(forest, X, t)) <= drawn.sum() - 1
        distributions = forest.leaf_values[leaves[drawn, t]]
        np.testing.assert_array_equal(distributions[np.arange(drawn.sum()), y[drawn]], 1.0)
    assert max(len(tree_paths(grow(kind, X, y), X, t)) for t in range(12)) > cap


@pytest.mark.parametrize("estimator", [CascadeForestClassifier, DisDFClassifier])
def test_cascades_with_a_cap_above_their_folds_predict_as_without(data, estimator):
    X, y = data
    settings = {"n_trees": 8, "random_state": 0, "max_levels": 2}
    reference = estimator(**settings).fit(X, y)
    capped = estimator(**settings, max_tree_samples=N).fit(X, y)
    np.testing.assert_array_equal(capped.predict_proba(X), reference.predict_proba(X))
    smaller = estimator(**settings, max_tree_samples=25).fit(X, y)
    assert not np.array_equal(smaller.predict_proba(X), reference.predict_proba(X))
