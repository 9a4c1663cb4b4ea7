"""Impurity-based feature importances: scikit-learn's numbers on its engine, the same rule on the compiled
trees (checked against their impurity decreases recomputed by hand), each level's over its input, the
original features' over the levels, and permutation importance on a fitted cascade."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier
from sklearn.inspection import permutation_importance
from sklearn.utils import check_random_state

from disdf import CascadeForestClassifier, DisDFClassifier, PlainForestClassifier
from disdf._utils.random_seeds import SEED_HIGH
from disdf.cascade._importances import original_feature_importances
from disdf.forests._compiled import FastForest, FastForestParams, kernels
from disdf.forests._importances import normalised
from tests.disdf.test_fast_forest import tree_paths


def informative_problem(n=600, n_noise=5, seed=0):
    """Feature 0 decides the class (up to noise); the others are noise."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 1 + n_noise))
    y = (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X, y


def cancer(n=240):
    X, y = load_breast_cancer(return_X_y=True)
    return X[:n], y[:n]


def impurity_decreases_by_hand(forest: FastForest, X, y, tree_weights) -> np.ndarray:
    """Each tree's sum over its splits of N_t i(t) - N_L i(L) - N_R i(R) per feature (Gini, node
    weights from ``tree_weights(t)``: each training example's weight in tree t), normalised, then
    averaged over the trees that split and normalised: scikit-learn's rule, recomputed."""

    def weighted_gini(rows, w):
        counts = np.bincount(y[rows], weights=w[rows], minlength=forest.n_classes)
        total = counts.sum()
        return total - (counts**2).sum() / total if total > 0 else 0.0

    per_tree = []
    for t in range(forest.n_trees):
        if forest.roots[t] < 0:
            continue
        w, decrease = tree_weights(t), np.zeros(X.shape[1])
        for node, rows in tree_paths(forest, X, t).items():
            left = X[rows, forest.feature[node]] <= forest.threshold[node]
            decrease[forest.feature[node]] += (
                weighted_gini(rows, w) - weighted_gini(rows[left], w) - weighted_gini(rows[~left], w)
            )
        per_tree.append(normalised(np.maximum(decrease, 0.0)))
    return normalised(np.mean(per_tree, axis=0))


def test_a_bootstrapped_compiled_forests_importances_are_its_trees_impurity_decreases():
    X, y = cancer()
    X = X.astype(np.float32)
    forest = FastForest(FastForestParams(False, "sqrt", True), 15, 3, 2).fit(X, y)
    by_hand = impurity_decreases_by_hand(
        forest, X, y, lambda t: kernels.bootstrap_counts(forest.seed, t, len(y))
    )
    np.testing.assert_allclose(forest.feature_importances(), by_hand, rtol=1e-5, atol=1e-7)


def test_a_weighted_compiled_forests_importances_weigh_the_nodes_by_the_sample_weights():
    X, y = cancer()
    X = X.astype(np.float32)
    weights = np.random.default_rng(0).uniform(0.0, 3.0, len(y))
    weights[:20] = 0.0
    forest = FastForest(FastForestParams(True, 1, False), 15, 3, 2).fit(X, y, sample_weight=weights)
    by_hand = impurity_decreases_by_hand(forest, X, y, lambda t: weights)
    np.testing.assert_allclose(forest.feature_importances(), by_hand, rtol=1e-5, atol=1e-7)
    unweighted = FastForest(FastForestParams(True, 1, False), 15, 3, 2).fit(X, y).feature_importances()
    assert not np.allclose(forest.feature_importances(), unweighted)
    # the first T trees' importances are the T-tree forest's
    np.testing.assert_array_equal(
        forest.first(6).feature_importances(),
        FastForest(FastForestParams(True, 1, False), 6, 3, 2)
        .fit(X, y, sample_weight=weights)
        .feature_importances(),
    )


def test_the_plain_forest_on_scikit_learn_gives_scikit_learns_importances():
    X, y = cancer()
    model = PlainForestClassifier(n_trees=5, engine="sklearn", random_state=0).fit(X, y)
    seed = int(check_random_state(0).randint(SEED_HIGH))
    reference = RandomForestClassifier(n_estimators=20, random_state=seed).fit(X.astype(np.float32), y)
    np.testing.assert_array_equal(model.feature_importances_, reference.feature_importances_)


def level_inputs(model, n_features):
    """The width of each kept level's input: the raw features, then the earlier levels' class vectors."""
    n_vectors = len(model.levels_[0].forests) * len(model.classes_)
    return [n_features + q * n_vectors for q in range(model.n_levels_)]


def test_a_gcforest_levels_importances_on_scikit_learn_are_its_forests_feature_importances():
    X, y = cancer()
    model = CascadeForestClassifier(n_trees=8, max_levels=3, patience=3, engine="sklearn", random_state=0)
    model.fit(X, y)
    assert model.n_levels_ >= 2
    per_level = model.level_feature_importances_
    assert [len(importances) for importances in per_level] == level_inputs(model, X.shape[1])
    for level, importances in zip(model.levels_, per_level, strict=True):
        reference = np.mean([fold_model.forest.feature_importances_ for fold_model in level.models], axis=0)
        np.testing.assert_allclose(importances, reference, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(
        model.feature_importances_, original_feature_importances(per_level, X.shape[1]), rtol=1e-12
    )


def test_disdf_weighs_each_tree_by_its_learned_weight():
    X, y = cancer(150)
    model = DisDFClassifier(n_trees=8, max_levels=1, engine="sklearn", random_state=0).fit(X, y)
    level = model.levels_[0]
    forests = []
    for forest in level.forests:
        folds = []
        for fold_model, w in zip(forest.models, forest.weights, strict=True):
            assert not np.allclose(w, w[0])  # learned: not uniform
            trees = np.array([tree.feature_importances_ for tree in fold_model.forest.estimators_])
            folds.append(normalised(w @ trees))
        forests.append(np.mean(folds, axis=0))
    np.testing.assert_allclose(model.level_feature_importances_[0], normalised(np.mean(forests, axis=0)))
    # uniform weights: gcForest's importances, bit for bit
    uniform = DisDFClassifier(n_trees=8, max_levels=1, engine="sklearn", solver="uniform", random_state=0)
    gcf = CascadeForestClassifier(n_trees=8, max_levels=1, engine="sklearn", random_state=0)
    np.testing.assert_array_equal(uniform.fit(X, y).feature_importances_, gcf.fit(X, y).feature_importances_)


@pytest.mark.parametrize("engine", ["fast", "binned"])
@pytest.mark.parametrize("estimator", [CascadeForestClassifier, DisDFClassifier, PlainForestClassifier])
def test_compiled_importances_are_a_distribution_that_ranks_the_informative_feature_first(engine, estimator):
    X, y = informative_problem()
    params = {"n_trees": 10, "engine": engine, "random_state": 0}
    if estimator is not PlainForestClassifier:
        params |= {"max_levels": 3, "patience": 3}
    model = estimator(**params).fit(X, y)
    per_level = [model.feature_importances_, *getattr(model, "level_feature_importances_", [])]
    for importances in per_level:
        assert np.all(importances >= 0) and importances.sum() == pytest.approx(1.0)
    importances = model.feature_importances_
    assert importances.shape == (X.shape[1],)
    assert importances[0] > 2 * importances[1:].max()


def test_the_original_features_importances_skip_levels_that_split_on_class_vectors_only():
    assert original_feature_importances([np.array([0.0, 0.0, 1.0])], 2).tolist() == [0.0, 0.0]
    levels = [np.array([0.2, 0.2, 0.6]), np.array([0.0, 0.0, 1.0])]
    assert original_feature_importances(levels, 2).tolist() == [0.5, 0.5]


def test_the_previous_augmentation_has_its_own_level_inputs_and_disk_levels_the_same_importances(tmp_path):
    X, y = informative_problem(200)
    params = {"n_trees": 5, "max_levels": 3, "patience": 3, "augmentation": "previous", "random_state": 0}
    memory = CascadeForestClassifier(**params).fit(X, y)
    n_vectors = 4 * 2
    assert [len(i) for i in memory.level_feature_importances_] == [
        6,
        *[6 + n_vectors] * (memory.n_levels_ - 1),
    ]
    disk = CascadeForestClassifier(**params, keep_fitted_levels="disk", fitted_levels_dir=tmp_path).fit(X, y)
    np.testing.assert_array_equal(disk.feature_importances_, memory.feature_importances_)


def test_an_unfitted_cascade_has_no_importances_and_permutation_importance_runs_on_a_fitted_one():
    assert not hasattr(CascadeForestClassifier(), "feature_importances_")
    assert not hasattr(PlainForestClassifier(), "feature_importances_")
    X, y = informative_problem(300)
    model = CascadeForestClassifier(n_trees=10, random_state=0).fit(X[:200], y[:200])
    result = permutation_importance(model, X[200:], y[200:], n_repeats=3, random_state=0)
    assert result.importances_mean.shape == (X.shape[1],)
    assert result.importances_mean.argmax() == 0 == model.feature_importances_.argmax()
