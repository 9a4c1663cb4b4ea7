"""The estimators as metric learners: distances between class vectors, metric-learn's conventions."""

import numpy as np
import pytest
from sklearn.datasets import make_classification

from disdf import CascadeForestClassifier, DisDFClassifier


@pytest.fixture(scope="module")
def fitted():
    X, y = make_classification(n_samples=120, n_features=6, n_informative=4, n_classes=3, random_state=0)
    return DisDFClassifier(n_trees=10, random_state=0).fit(X[:80], y[:80]), X[80:], y[80:]


def test_pair_distance_is_the_distance_between_transformed_class_vectors(fitted):
    model, X, _ = fitted
    pairs = np.stack([X[:20], X[20:40]], axis=1)
    v, w = model.transform(X[:20]), model.transform(X[20:40])
    np.testing.assert_allclose(model.pair_distance(pairs), np.abs(v - w).sum(axis=1))
    np.testing.assert_allclose(model.pair_distance(pairs, "squared_euclidean"), ((v - w) ** 2).sum(axis=1))
    metric = model.get_metric()
    assert metric(X[0], X[20]) == pytest.approx(np.abs(v[0] - w[0]).sum())
    assert metric(X[3], X[3]) == 0.0 and metric(X[0], X[20]) == metric(X[20], X[0])


def test_same_class_pairs_are_closer_than_different_class_pairs(fitted):
    model, X, y = fitted
    i, j = np.triu_indices(len(y), 1)
    distances = model.pair_distance(np.stack([X[i], X[j]], axis=1))
    assert distances[y[i] == y[j]].mean() < distances[y[i] != y[j]].mean()


@pytest.mark.parametrize(
    ("pairs", "distance", "message"),
    [
        (np.zeros((4, 3, 6)), "manhattan", r"shape \(n_pairs, 2, n_features\)"),
        (np.zeros((4, 2, 6)), "cosine", "distance"),
    ],
)
def test_bad_pairs_or_distance_are_named(fitted, pairs, distance, message):
    model, _, _ = fitted
    with pytest.raises(ValueError, match=message):
        model.pair_distance(pairs, distance)


def test_an_unfitted_estimator_has_no_metric_yet():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        CascadeForestClassifier().pair_distance(np.zeros((1, 2, 3)))
