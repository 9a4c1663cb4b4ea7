"""max_pairs: beyond it a fold model's problem reads drawn pairs weighted P / M (disdf.weights._drawn_pairs),
an unbiased estimate of J; up to it, the exact problem number for number."""

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.utils._param_validation import InvalidParameterError

from disdf import DisDFClassifier
from disdf.cascade._shared_first_level import fit_sharing_first_level
from disdf.weights import (
    AUTO_MAX_PAIRS,
    PairStatistics,
    WeightProblem,
    different_class_pair_count,
    drawn_pair_statistics,
    pair_cap,
)
from disdf.weights._problem import different_class_pairs
from disdf.weights._synthetic import random_tree_probabilities


def test_the_pair_count_is_that_of_the_listed_pairs():
    for y in (np.array([0, 0, 1, 2, 2, 2]), np.repeat([0, 1], [7, 3]), np.zeros(4, dtype=int)):
        assert different_class_pair_count(y) == len(different_class_pairs(y)[0])


def test_up_to_max_pairs_the_problem_is_the_exact_one_number_for_number():
    probabilities, y = random_tree_probabilities(60, 15, 3, seed=1)
    exact = PairStatistics.from_tree_probabilities(probabilities, y)
    for cap in (None, exact.n_pairs, exact.n_pairs + 1):
        drawn = drawn_pair_statistics(probabilities, y, cap, seed=0)
        assert np.array_equal(drawn.q, exact.q) and np.array_equal(drawn.pi, exact.pi)
        assert drawn.pair_scale is None


@pytest.mark.parametrize("weighted", [False, True])
def test_beyond_max_pairs_the_objective_and_gradient_are_unbiased(weighted):
    """Over 400 seeds, the mean of J_M(w) and of its gradient at a fixed w lies within 4 standard errors
    of J(w) and its gradient (a biased estimate, e.g. without the P / M weight, misses by hundreds)."""
    probabilities, y = random_tree_probabilities(80, 10, 2, seed=2, accuracy=0.6)
    weights = np.random.default_rng(3).uniform(0.5, 2.0, len(y)) if weighted else None
    w = np.random.default_rng(4).dirichlet(np.ones(10))
    exact = WeightProblem(PairStatistics.from_tree_probabilities(probabilities, y, weights), 1.0, 1.0)
    assert exact.stats.n_pairs > 1000
    drawn = [
        WeightProblem(drawn_pair_statistics(probabilities, y, 200, seed, weights), 1.0, 1.0)
        for seed in range(400)
    ]
    assert all(problem.stats.n_pairs == 200 for problem in drawn)
    assert all(np.array_equal(problem.stats.pi, exact.stats.pi) for problem in drawn)  # pi stays exact
    for estimates, truth in (
        (np.array([problem.objective(w) for problem in drawn]), exact.objective(w)),
        (np.array([problem.gradient(w) for problem in drawn]), exact.gradient(w)),
    ):
        standard_error = estimates.std(axis=0, ddof=1) / np.sqrt(len(estimates))
        assert np.all(standard_error > 0)  # the draws differ
        assert np.all(np.abs(estimates.mean(axis=0) - truth) < 4 * standard_error)
        assert np.all(np.abs(estimates.mean(axis=0) - truth) < 0.05 * np.abs(truth))


def test_the_draws_are_fixed_by_the_seed():
    probabilities, y = random_tree_probabilities(60, 8, 3, seed=5)
    first, again, other = (drawn_pair_statistics(probabilities, y, 100, seed) for seed in (7, 7, 8))
    assert np.array_equal(first.q, again.q)
    assert not np.array_equal(first.q, other.q)


def test_auto_is_a_fixed_number_of_pairs():
    assert pair_cap("auto") == AUTO_MAX_PAIRS == 5_000
    assert pair_cap(None) is None and pair_cap(300) == 300


@pytest.mark.parametrize("value", [0, -5, 2.5, True, "all", "AUTO"])
def test_a_bad_max_pairs_is_refused_by_name_before_any_work(value):
    X, y = make_classification(n_samples=30, random_state=0)
    with pytest.raises(
        InvalidParameterError, match=r"DisDFClassifier: max_pairs must be 'auto', an int >= 1 or None"
    ):
        DisDFClassifier(n_trees=3, max_pairs=value).fit(X, y)


@pytest.fixture(scope="module")
def data():
    return make_classification(n_samples=180, n_features=8, n_informative=4, n_classes=3, random_state=1)


def _fit(X, y, **params):
    return DisDFClassifier(**({"n_trees": 12, "max_levels": 2, "random_state": 0} | params)).fit(X, y)


def _same_weights(a, b) -> bool:
    return all(
        np.array_equal(wa, wb)
        for level_a, level_b in zip(a.weights_, b.weights_, strict=True)
        for forest_a, forest_b in zip(level_a, level_b, strict=True)
        for wa, wb in zip(forest_a, forest_b, strict=True)
    )


def test_the_default_is_the_exact_problem_below_the_cap(data):
    X, y = data  # 60 held-out examples per fold: about 1,200 pairs, below 5,000
    auto, every = _fit(X, y), _fit(X, y, max_pairs=None)
    assert _same_weights(auto, every)
    assert np.array_equal(auto.predict_proba(X), every.predict_proba(X))


def test_drawn_pairs_change_the_weights_and_do_not_depend_on_n_jobs(data):
    X, y = data
    drawn_one, drawn_two = _fit(X, y, max_pairs=150, n_jobs=1), _fit(X, y, max_pairs=150, n_jobs=2)
    assert _same_weights(drawn_one, drawn_two)
    assert not _same_weights(drawn_one, _fit(X, y, max_pairs=None))
    for w in (w for level in drawn_one.weights_ for forest in level for w in forest):
        assert w.min() >= 0 and np.isclose(w.sum(), 1.0)


def test_a_shared_first_level_draws_the_pairs_a_fit_draws(data):
    X, y = data
    (shared,) = fit_sharing_first_level(
        [DisDFClassifier(n_trees=12, max_levels=2, random_state=0, max_pairs=150)], X, y
    )
    assert _same_weights(shared, _fit(X, y, max_pairs=150))


def test_estimators_of_other_max_pairs_sharing_a_first_level_each_draw_their_own(data):
    """The shared level's pairs depend on max_pairs: an estimator of another cap (even at the same
    n_trees, which takes the shared level itself) computes its own, and equals its own fit."""
    X, y = data
    caps = (150, None, 400)
    shared = fit_sharing_first_level(
        [DisDFClassifier(n_trees=12, max_levels=2, random_state=0, max_pairs=cap) for cap in caps], X, y
    )
    for model, cap in zip(shared, caps, strict=True):
        assert _same_weights(model, _fit(X, y, max_pairs=cap))
