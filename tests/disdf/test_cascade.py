"""The gcForest cascade: class vectors, depth selection, label handling, determinism."""

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier

import disdf.cascade._cascade
from disdf import CascadeForestClassifier, DisDFClassifier
from disdf.forests._tree_leaves import SklearnFoldModel

SMALL = {"n_trees": 8, "random_state": 0}


def test_leaf_table_averages_to_predict_proba(three_class_data):
    X, y = three_class_data
    forest = RandomForestClassifier(n_estimators=12, random_state=0).fit(X, y)
    probabilities = SklearnFoldModel(forest, 3).probabilities(X)
    assert probabilities.shape == (len(X), 12, 3)
    np.testing.assert_allclose(probabilities.sum(axis=2), 1.0)
    np.testing.assert_allclose(probabilities.mean(axis=1), forest.predict_proba(X), atol=1e-12)


def test_leaf_table_maps_unseen_classes_to_zero(three_class_data):
    X, y = three_class_data
    seen = y != 1
    codes = y[seen]  # the forest never sees class 1
    forest = RandomForestClassifier(n_estimators=5, random_state=0).fit(X[seen], codes)
    probabilities = SklearnFoldModel(forest, 3).probabilities(X)
    assert np.all(probabilities[:, :, 1] == 0)
    np.testing.assert_allclose(probabilities[:, :, [0, 2]].mean(axis=1), forest.predict_proba(X), atol=1e-12)


def test_fit_predict_shapes_and_string_labels(three_class_data):
    X, y = three_class_data
    labels = np.array(["setosa", "versicolor", "virginica"])[y]
    model = CascadeForestClassifier(**SMALL).fit(X, labels)
    assert list(model.classes_) == ["setosa", "versicolor", "virginica"]
    proba = model.predict_proba(X)
    assert proba.shape == (len(X), 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert set(model.predict(X)) <= set(labels)
    assert model.transform(X).shape == (len(X), 4 * 3)
    assert len(model.weights_) == model.n_levels_ == len(model.levels_)
    assert len(model.level_scores_) >= model.n_levels_


def test_predict_is_argmax_of_the_summed_class_vectors(three_class_data):
    X, y = three_class_data
    model = CascadeForestClassifier(**SMALL).fit(X, y)
    vectors = model.transform(X).reshape(len(X), 4, 3).sum(axis=1)
    np.testing.assert_array_equal(model.predict(X), model.classes_[vectors.argmax(axis=1)])


def test_new_example_vector_is_the_mean_of_the_fold_models(three_class_data):
    X, y = three_class_data
    model = CascadeForestClassifier(**SMALL, max_levels=1).fit(X, y)
    level = model.levels_[0]
    first_forest = np.mean([table.probabilities(X).mean(axis=1) for table in level.forests[0].models], axis=0)
    np.testing.assert_allclose(model.transform(X)[:, :3], first_forest, atol=1e-12)
    assert len(level.forests[0].models) == 3  # K = 3 fold models, no refit on all data


@pytest.mark.parametrize(
    ("scores", "patience", "kept", "grown"),
    [
        ([0.5, 0.7, 0.6, 0.8, 0.9], 1, 2, 3),
        ([0.5, 0.7, 0.6, 0.8, 0.9], 2, 5, 5),
        ([0.5, 0.7, 0.6, 0.65, 0.9], 2, 2, 4),
        ([0.5, 0.5, 0.5, 0.5, 0.5], 1, 1, 2),
    ],
)
def test_depth_selection_keeps_the_best_level(monkeypatch, three_class_data, scores, patience, kept, grown):
    X, y = three_class_data
    script = iter(scores)
    monkeypatch.setattr(
        disdf.cascade._cascade, "level_accuracy", lambda vectors, y, sample_weight=None: next(script)
    )
    model = CascadeForestClassifier(n_trees=3, patience=patience, max_levels=5, random_state=0).fit(X, y)
    assert model.n_levels_ == kept
    assert len(model.levels_) == kept
    assert model.level_scores_ == scores[:grown]


def test_tol_requires_a_real_improvement(monkeypatch, three_class_data):
    X, y = three_class_data
    script = iter([0.5, 0.505, 0.9])
    monkeypatch.setattr(
        disdf.cascade._cascade, "level_accuracy", lambda vectors, y, sample_weight=None: next(script)
    )
    model = CascadeForestClassifier(n_trees=3, tol=0.01, random_state=0).fit(X, y)
    assert model.n_levels_ == 1


@pytest.mark.parametrize(("augmentation", "extra_levels"), [("cumulative", 2), ("previous", 1)])
def test_augmentation(three_class_data, augmentation, extra_levels, monkeypatch):
    X, y = three_class_data
    script = iter([0.3, 0.4, 0.5])
    monkeypatch.setattr(
        disdf.cascade._cascade, "level_accuracy", lambda vectors, y, sample_weight=None: next(script)
    )
    model = CascadeForestClassifier(
        n_trees=3, max_levels=3, augmentation=augmentation, random_state=0, engine="sklearn"
    )
    model.fit(X, y)
    third = model.levels_[2].forests[0].models[0].forest
    assert third.n_features_in_ == X.shape[1] + extra_levels * 4 * 3


def test_rare_class_missing_from_fold_models():
    """A class with one example: the fold model holding it out never sees it; vectors cover every class."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 4))
    y = np.array([0] * 20 + [1] * 19 + [2])
    X[y == 2] += 4
    with pytest.warns(UserWarning, match="least populated class"):
        model = DisDFClassifier(n_trees=6, random_state=0, engine="sklearn").fit(X, y)
    assert model.predict_proba(X).shape == (40, 3)
    blind = [t for t in model.levels_[0].forests[0].models if 2 not in t.forest.classes_]
    assert blind, "expected a fold model that never saw class 2"
    assert np.all(blind[0].probabilities(X)[:, :, 2] == 0)


@pytest.mark.parametrize("estimator", [CascadeForestClassifier, DisDFClassifier])
def test_results_do_not_depend_on_n_jobs(three_class_data, estimator):
    X, y = three_class_data
    one = estimator(n_trees=10, random_state=7, n_jobs=1).fit(X, y)
    two = estimator(n_trees=10, random_state=7, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(one.predict_proba(X), two.predict_proba(X))
    assert one.level_scores_ == two.level_scores_
    for w1, w2 in zip(one.weights_, two.weights_, strict=True):
        np.testing.assert_array_equal(np.asarray(w1), np.asarray(w2))


def test_same_seed_same_model_other_seed_other_model(three_class_data):
    X, y = three_class_data
    a = CascadeForestClassifier(**SMALL).fit(X, y).predict_proba(X)
    b = CascadeForestClassifier(**SMALL).fit(X, y).predict_proba(X)
    c = CascadeForestClassifier(n_trees=8, random_state=1).fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
