"""DisDF's weight problem with example weights: each pair weighs s_i s_j (eq. (70)-(72)), which for whole
weights is the problem of the repeated examples; every solver reads it, and the estimator solves it."""

import numpy as np
import pytest

from disdf import DisDFClassifier
from disdf.weights import PairStatistics, WeightProblem, solve_weights
from disdf.weights._stochastic_frank_wolfe import (
    PairSampler,
    SampledWeightProblem,
    sampled_hinge,
    stochastic_frank_wolfe,
)
from disdf.weights._synthetic import random_tree_probabilities


@pytest.fixture(scope="module")
def weighted_problem():
    """Per-tree probabilities of 14 examples (8 trees, 3 classes) and whole weights 0 to 3."""
    probabilities, y = random_tree_probabilities(14, 8, 3, seed=3)
    weights = np.random.default_rng(4).integers(0, 4, 14).astype(float)
    return probabilities, y, weights


def repeated(probabilities, y, weights):
    repeats = weights.astype(int)
    return np.repeat(probabilities, repeats, axis=0), np.repeat(y, repeats)


def test_weighted_statistics_are_the_definitions_with_pair_weights(weighted_problem):
    probabilities, y, weights = weighted_problem
    stats = PairStatistics.from_tree_probabilities(probabilities, y, weights)
    problem = WeightProblem(stats, lambda_=0.4, tau=1.3)
    w = np.random.default_rng(1).dirichlet(np.ones(8))
    pi, hinge = np.zeros(8), 0.0
    for i in range(14):
        for j in range(i + 1, 14):
            c = weights[i] * weights[j]
            if y[i] == y[j]:
                pi += c * ((probabilities[i] - probabilities[j]) ** 2).sum(axis=1)
            else:
                q = np.abs(probabilities[i] - probabilities[j]).sum(axis=1)
                hinge += c * max(0.0, 1.3 - q @ w) ** 2
    np.testing.assert_allclose(stats.pi, pi, rtol=1e-12, atol=1e-12)
    assert problem.objective(w) == pytest.approx((pi + 0.4) @ (w * w) + hinge, rel=1e-12)


def test_whole_weights_pose_the_problem_of_the_repeated_examples(weighted_problem):
    """The s_i s_j copies of a pair each add its term, and a pair of copies of one example adds
    nothing: J, its gradient and its optimum are those of the repeated examples."""
    probabilities, y, weights = weighted_problem
    weighted = WeightProblem(PairStatistics.from_tree_probabilities(probabilities, y, weights), 0.4, 1.3)
    copies = WeightProblem(
        PairStatistics.from_tree_probabilities(*repeated(probabilities, y, weights)), 0.4, 1.3
    )
    assert weighted.stats.n_pairs < copies.stats.n_pairs  # not the same rows: the same sums
    np.testing.assert_allclose(weighted.stats.pi, copies.stats.pi, rtol=1e-12)
    for w in np.random.default_rng(2).dirichlet(np.ones(8), size=5):
        assert weighted.objective(w) == pytest.approx(copies.objective(w), rel=1e-12)
        np.testing.assert_allclose(weighted.gradient(w), copies.gradient(w), rtol=1e-11, atol=1e-12)
    for solver, options in [("frank_wolfe_away", {"tol": 1e-12}), ("qp", {})]:
        a, b = solve_weights(weighted, solver, **options), solve_weights(copies, solver, **options)
        np.testing.assert_allclose(a.w, b.w, atol=1e-5)
        assert a.objective == pytest.approx(b.objective, rel=1e-8)
    printed = solve_weights(weighted, "frank_wolfe", max_iter=300).w
    np.testing.assert_allclose(printed, solve_weights(copies, "frank_wolfe", max_iter=300).w, atol=1e-10)


def test_zero_weights_drop_their_examples_pairs(weighted_problem):
    probabilities, y, weights = weighted_problem
    keep = weights > 0
    weighted = WeightProblem(PairStatistics.from_tree_probabilities(probabilities, y, keep * 1.0), 0.4, 1.3)
    dropped = WeightProblem(PairStatistics.from_tree_probabilities(probabilities[keep], y[keep]), 0.4, 1.3)
    w = np.random.default_rng(5).dirichlet(np.ones(8))
    assert weighted.objective(w) == pytest.approx(dropped.objective(w), rel=1e-12)


def test_a_part_s_weighted_statistics_are_taken_from_the_whole_set_s(weighted_problem):
    """Cross-fitting's parts (PairStatistics.of_examples): the numbers of the part built afresh."""
    probabilities, y, weights = weighted_problem
    whole = PairStatistics.from_tree_probabilities(probabilities, y, weights)
    part = np.array([0, 2, 3, 7, 8, 11, 13])
    taken = whole.of_examples(y, part, probabilities[part], weights)
    fresh = PairStatistics.from_tree_probabilities(probabilities[part], y[part], weights[part])
    np.testing.assert_array_equal(taken.q, fresh.q)
    np.testing.assert_array_equal(taken.pair_scale, fresh.pair_scale)
    np.testing.assert_array_equal(taken.pi, fresh.pi)
    with pytest.raises(ValueError, match="sample_weight must be given exactly when"):
        whole.of_examples(y, part, probabilities[part])


def test_the_sampled_weighted_hinge_is_unbiased(weighted_problem):
    probabilities, y, weights = weighted_problem
    problem = WeightProblem(PairStatistics.from_tree_probabilities(probabilities, y, weights), 1.0, 1.5)
    w = np.random.default_rng(6).dirichlet(np.ones(8))
    exact = -2.0 * problem.hinge_pull(problem.slacks(w))
    sampler, rng = PairSampler(probabilities, y), np.random.default_rng(7)
    draws = [sampled_hinge(sampler, w, 1.5, 32, rng, weights) for _ in range(4000)]
    gradients = np.array([gradient for gradient, _ in draws])
    standard_error = gradients.std(axis=0, ddof=1) / np.sqrt(len(draws))
    assert np.all(np.abs(gradients.mean(axis=0) - exact) < 4 * standard_error)
    values = np.array([value for _, value in draws])
    hinge = np.maximum(problem.slacks(w), 0)
    assert abs(values.mean() - hinge @ hinge) < 4 * values.std(ddof=1) / np.sqrt(len(values))


def test_the_stochastic_solver_with_weights_of_one_is_the_unweighted_one_bit_for_bit(weighted_problem):
    probabilities, y, _ = weighted_problem
    options = {"batch_size": 16, "max_iter": 50}
    unweighted = stochastic_frank_wolfe(SampledWeightProblem(probabilities, y, 1.0, 1.2, 3), **options)
    ones = stochastic_frank_wolfe(SampledWeightProblem(probabilities, y, 1.0, 1.2, 3, np.ones(14)), **options)
    np.testing.assert_array_equal(unweighted.w, ones.w)
    assert unweighted.objective == ones.objective and unweighted.gap == ones.gap


def test_the_weight_problems_refuse_bad_example_weights(weighted_problem):
    probabilities, y, _ = weighted_problem
    for bad in (np.ones(3), -np.ones(14), np.full(14, np.inf)):
        with pytest.raises(ValueError, match="sample_weight must be 14 finite weights >= 0"):
            PairStatistics.from_tree_probabilities(probabilities, y, bad)
        with pytest.raises(ValueError, match="sample_weight must be 14 finite weights >= 0"):
            SampledWeightProblem(probabilities, y, 1.0, 1.0, 0, bad)


def test_disdf_solves_each_fold_s_weighted_problem():
    """A fold model's weights are the optimum of its held-out pairs weighted s_i s_j: the duality gap
    there is tiny for the weighted problem and not for the unweighted one."""
    rng = np.random.default_rng(8)
    y = np.repeat([0, 1, 2], [30, 20, 10])
    X = rng.normal(size=(60, 5)) + 0.6 * y[:, None]
    class_weight = {0: 1.0, 1: 0.5, 2: 6.0}
    model = DisDFClassifier(n_trees=12, max_levels=1, class_weight=class_weight, random_state=2).fit(X, y)
    level = model._grow_first_level(X, y)  # the same seeds: level 1's held-out probabilities again
    assert level.sample_weight is not None
    for m, forest in enumerate(level.forests):
        for k, (held, (_, test)) in enumerate(zip(forest.held_out, level.folds, strict=True)):
            w = model.weights_[0][m][k]
            probabilities, labels = held.probabilities(), y[test]
            stats = PairStatistics.from_tree_probabilities(probabilities, labels, level.sample_weight[test])
            weighted = WeightProblem(stats, model.lambda_, model.tau)
            unweighted = WeightProblem(
                PairStatistics.from_tree_probabilities(probabilities, labels), 1.0, 1.0
            )
            assert weighted.objective(w) == pytest.approx(model.solver_diagnostics_[0][m][k]["objective"])
            assert weighted.duality_gap(w) <= 1e-5 * weighted.objective(w)
            assert unweighted.duality_gap(w) > 1e-3 * unweighted.objective(w)
