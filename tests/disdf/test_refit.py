"""test_vectors="refit": new examples' vectors from a forest grown on all the level's examples."""

import numpy as np
import pytest
from sklearn.datasets import make_classification

from disdf import CascadeForestClassifier, DisDFClassifier
from disdf.forests._specs import fit_fold_model


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=150, n_features=8, n_informative=4, n_classes=3, random_state=1)
    return X[:90], y[:90], X[90:]


@pytest.mark.parametrize("cls", [CascadeForestClassifier, DisDFClassifier])
def test_refit_changes_only_the_test_vectors(cls, data):
    X, y, X_new = data
    common = {"n_trees": 12, "engine": "fast", "random_state": 4}
    folds = cls(**common).fit(X, y)
    refit = cls(**common, test_vectors="refit").fit(X, y)
    # the training path (fold models, out-of-fold vectors, scores, depth) is untouched ...
    assert refit.level_scores_ == folds.level_scores_ and refit.n_levels_ == folds.n_levels_
    for a, b in zip(folds.weights_, refit.weights_, strict=True):
        for wa, wb in zip(a, b, strict=True):
            np.testing.assert_array_equal(np.stack(wa), np.stack(wb))
    # ... and the test-time vectors are not the fold models' mean
    assert not np.allclose(folds.transform(X_new), refit.transform(X_new))
    assert all(level.refit_models is not None for level in refit.levels_)


def test_refit_vectors_are_the_all_data_forests_uniform_mean(data):
    X, y, X_new = data
    estimator = CascadeForestClassifier(n_trees=10, engine="fast", random_state=0, max_levels=1)
    estimator.set_params(test_vectors="refit").fit(X, y)
    level = estimator.levels_[0]
    specs = estimator._validate_hyperparameters()
    for m, ((kind, params), model) in enumerate(zip(specs, level.refit_models, strict=True)):
        # the refit forest was grown on every training example (it predicts them from its leaves) ...
        assert model.n_trees == 10
        again = fit_fold_model(
            kind,
            params,
            "fast",
            X.astype(np.float32),
            np.unique(y, return_inverse=True)[1],
            n_classes=3,
            n_trees=10,
            random_state=model.seed,
            tree_params={"max_depth": None, "min_samples_split": 2, "min_samples_leaf": 1},
        )
        np.testing.assert_allclose(again.probabilities(X_new), model.probabilities(X_new))
        # ... and the forest's class vector is its trees' uniform mean
        vectors = estimator.transform(X_new)[:, 3 * m : 3 * (m + 1)]
        np.testing.assert_allclose(vectors, model.probabilities(X_new).mean(axis=1))


def test_refit_is_independent_of_n_jobs(data):
    X, y, X_new = data
    a = DisDFClassifier(n_trees=8, engine="fast", random_state=2, test_vectors="refit", n_jobs=1).fit(X, y)
    b = DisDFClassifier(n_trees=8, engine="fast", random_state=2, test_vectors="refit", n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(a.transform(X_new), b.transform(X_new))


def test_an_unknown_test_vectors_is_refused_naming_it(data):
    X, y, _ = data
    with pytest.raises(ValueError, match="test_vectors"):
        CascadeForestClassifier(test_vectors="refitted").fit(X, y)


@pytest.mark.parametrize("cls", [CascadeForestClassifier, DisDFClassifier])
def test_fit_transform_returns_the_out_of_fold_vectors_the_cascade_scored(cls, data):
    """Not transform(X) of the training examples (in-sample): the kept level's out-of-fold vectors."""
    X, y, _ = data
    estimator = cls(n_trees=10, random_state=5, max_levels=1)
    vectors = estimator.fit_transform(X, y)
    shared = cls(n_trees=10, random_state=5, max_levels=1)._grow_first_level(X, y)
    n_forests, n_classes = len(shared.forests), 3
    assert vectors.shape == (len(y), n_forests * n_classes)
    if (
        cls is CascadeForestClassifier
    ):  # uniform weights: each example's vector from the model that never saw it
        expected = np.hstack(
            [
                forest.with_weights([np.full(10, 0.1)] * 3).out_of_fold_vectors(shared.folds, len(y))
                for forest in shared.forests
            ]
        )
        np.testing.assert_allclose(vectors, expected)
    # the level's score is the accuracy of these vectors' sum, and they differ from in-sample ones
    summed = vectors.reshape(len(y), n_forests, n_classes).sum(axis=1)
    assert estimator.level_scores_[0] == pytest.approx(
        np.mean(summed.argmax(axis=1) == np.unique(y, return_inverse=True)[1])
    )
    assert not np.allclose(vectors, estimator.transform(X))
    assert not hasattr(estimator, "_training_vectors")  # nothing extra kept on the fitted model


def test_a_forest_gives_its_class_vectors_and_a_level_concatenates_them(data):
    X, y, X_new = data
    model = DisDFClassifier(n_trees=6, random_state=1, max_levels=1).fit(X, y)
    level = model.levels_[0]
    expected = np.hstack([forest.class_vectors(X_new) for forest in level.forests])
    np.testing.assert_allclose(level.class_vectors(X_new, None), expected)
    np.testing.assert_allclose(model.transform(X_new), expected)
