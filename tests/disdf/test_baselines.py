"""The plain-forest baseline: one forest of 4T trees on all training examples."""

import numpy as np
import pytest
from sklearn.datasets import make_classification

from disdf.forests._plain import PlainForestClassifier


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=300, n_features=10, n_informative=5, n_classes=3, random_state=0)
    return X[:120], y[:120], X[120:], y[120:]


@pytest.mark.parametrize("kind", ["random_forest", "extra_trees"])
def test_one_forest_of_four_times_n_trees_on_every_example(kind, data):
    X, y, X_test, y_test = data
    model = PlainForestClassifier(kind=kind, n_trees=5, random_state=0).fit(X, y)
    assert model.forest_.n_trees == 20
    proba = model.predict_proba(X_test)
    np.testing.assert_allclose(proba, model.forest_.probabilities(X_test).mean(axis=1))
    np.testing.assert_allclose(proba.sum(axis=1), 1)
    assert model.score(X, y) == 1.0 or kind == "random_forest"  # unbootstrapped full trees fit all data
    assert model.score(X_test, y_test) > 0.6


@pytest.mark.parametrize("kind", ["random_forest", "extra_trees"])
def test_the_fast_engine_and_scikit_learn_grow_forests_of_like_accuracy(kind, data):
    """Not the same trees (other random streams): accuracy within 3 points over 10 splits."""
    X, y = np.vstack(data[::2]), np.concatenate(data[1::2])
    scores = {}
    for engine in ("fast", "sklearn"):
        accuracies = []
        for seed in range(10):
            order = np.random.RandomState(seed).permutation(len(y))
            train, test = order[:120], order[120:]
            model = PlainForestClassifier(kind=kind, n_trees=10, engine=engine, random_state=seed)
            accuracies.append(model.fit(X[train], y[train]).score(X[test], y[test]))
        scores[engine] = np.mean(accuracies)
    assert abs(scores["fast"] - scores["sklearn"]) < 0.03, scores


def test_bad_parameters_are_named_before_any_work(data):
    X, y, _, _ = data
    with pytest.raises(ValueError, match="kind"):
        PlainForestClassifier(kind="gradient_boosting").fit(X, y)
    with pytest.raises(ValueError, match="trees_per_T"):
        PlainForestClassifier(trees_per_T=0).fit(X, y)
