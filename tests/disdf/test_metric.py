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
        (np.zeros((4, 2, 5)), "manhattan", r"n_features = 6, the features DisDFClassifier was fitted on"),
    ],
)
def test_bad_pairs_or_distance_are_named(fitted, pairs, distance, message):
    model, _, _ = fitted
    with pytest.raises(ValueError, match=message):
        model.pair_distance(pairs, distance)


@pytest.mark.parametrize(
    ("u", "v"), [(np.zeros(6), np.zeros(5)), (np.zeros(7), np.zeros(7)), (np.zeros((1, 6)), np.zeros(6))]
)
def test_get_metric_names_the_length_it_expects(fitted, u, v):
    model, _, _ = fitted
    with pytest.raises(ValueError, match=r"two samples of 6 features .* got shapes"):
        model.get_metric()(u, v)


def test_an_unfitted_estimator_has_no_metric_yet():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        CascadeForestClassifier().pair_distance(np.zeros((1, 2, 3)))


def test_the_papers_surrogates_bound_the_distances_they_stand_for(fitted):
    """<Q_ij, w> >= ||v_i - v_j||_1 per fold model (triangle inequality); computed directly for one level."""
    model, X, _ = fitted
    pairs = np.stack([X[:15], X[15:30]], axis=1)
    q = model.pair_distance(pairs, "surrogate_q")
    p2 = model.pair_distance(pairs, "surrogate_p")
    # direct computation at the last level
    inputs = model.last_level_input(np.vstack([X[:15], X[15:30]]))
    expected_q, expected_p = np.zeros(15), np.zeros(15)
    for forest in model.levels_[-1].forests:
        for table, w in zip(forest.models, forest.weights, strict=True):
            d = table.probabilities(inputs[:15]) - table.probabilities(inputs[15:])
            expected_q += (np.abs(d).sum(axis=2) * w).sum(axis=1) / len(forest.models)
            expected_p += ((d**2).sum(axis=2) * w**2).sum(axis=1) / len(forest.models)
    np.testing.assert_allclose(q, expected_q)
    np.testing.assert_allclose(p2, expected_p)
    assert np.all(q >= model.pair_distance(pairs) - 1e-9)  # the fold mean only shrinks d_1 further


def test_pair_score_is_minus_the_distance_and_ranks_same_class_pairs_higher(fitted):
    """metric-learn's convention: score = -distance, so a larger score means more similar."""
    from sklearn.metrics import roc_auc_score

    model, X, y = fitted
    i, j = np.triu_indices(len(y), 1)
    pairs = np.stack([X[i], X[j]], axis=1)
    for distance in ("manhattan", "squared_euclidean", "surrogate_q"):
        np.testing.assert_array_equal(
            model.pair_score(pairs, distance), -model.pair_distance(pairs, distance)
        )
    assert roc_auc_score(y[i] == y[j], model.pair_score(pairs)) > 0.5
    with pytest.raises(ValueError, match="distance"):
        model.pair_score(pairs, "cosine")


def test_the_manhattan_distance_of_four_forests_lies_in_0_to_8(fitted):
    """Four concatenated probability vectors: each forest adds at most 2 (the docs state [0, 2M])."""
    model, X, _ = fitted
    i, j = np.triu_indices(len(X), 1)
    distances = model.pair_distance(np.stack([X[i], X[j]], axis=1))
    assert len(model.levels_[-1].forests) == 4
    assert distances.min() >= 0 and distances.max() <= 8 + 1e-12
    assert distances.max() > 2  # the old claim "[0, 2]" was wrong for the representation
