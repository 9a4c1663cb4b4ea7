"""pi, Q, J and its gradient (eq. 62-78) against brute-force definitions."""

import numpy as np
import pytest

from disdf.weights import PairStatistics, WeightProblem
from disdf.weights._synthetic import random_tree_probabilities


def brute_force(probabilities, y):
    """P_ij, Q_ij over all pairs i < j, straight from section 4's definitions."""
    n = len(y)
    pi = np.zeros(probabilities.shape[1])
    q_rows = []
    for i in range(n):
        for j in range(i + 1, n):
            diff = probabilities[i] - probabilities[j]
            if y[i] == y[j]:
                pi += (diff**2).sum(axis=1)
            else:
                q_rows.append(np.abs(diff).sum(axis=1))
    return pi, np.array(q_rows)


@pytest.mark.parametrize(("n", "T", "C"), [(12, 7, 2), (15, 5, 4), (9, 3, 3)])
def test_pair_statistics_match_the_definitions(n, T, C):
    probabilities, y = random_tree_probabilities(n, T, C, seed=n)
    stats = PairStatistics.from_tree_probabilities(probabilities, y)
    pi, q = brute_force(probabilities, y)
    np.testing.assert_allclose(stats.pi, pi, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(stats.q, q, rtol=1e-12)
    assert stats.q.min() >= 0 and stats.q.max() <= 2 + 1e-12


@pytest.mark.parametrize(("n", "T", "C"), [(12, 7, 2), (15, 5, 4)])
def test_pair_statistics_of_one_hot_vectors_match_the_definitions(n, T, C):
    """Fully grown trees (every vector one-hot): pi is counted and Q's rows compared from the same pure
    classes, for a whole set and for a subset of it (of_examples), bit for bit the definitions' values
    (whole numbers, exact in float64)."""
    rng = np.random.default_rng(n)
    probabilities = np.eye(C)[rng.integers(0, C, (n, T))]
    y = np.arange(n) % C
    stats = PairStatistics.from_tree_probabilities(probabilities, y)
    pi, q = brute_force(probabilities, y)
    assert stats.pi.tobytes() == pi.tobytes() and stats.q.tobytes() == q.tobytes() and pi.max() > 0
    positions = np.flatnonzero(rng.random(n) < 0.7)
    part = stats.of_examples(y, positions, probabilities[positions])
    part_pi, part_q = brute_force(probabilities[positions], y[positions])
    assert part.pi.tobytes() == part_pi.tobytes() and part.q.tobytes() == part_q.tobytes()


def test_objective_matches_eq_62():
    probabilities, y = random_tree_probabilities(10, 6, 3, seed=1)
    problem = WeightProblem(PairStatistics.from_tree_probabilities(probabilities, y), lambda_=0.3, tau=1.2)
    w = np.random.default_rng(0).dirichlet(np.ones(6))
    expected = 0.3 * (w @ w)
    for i in range(10):
        for j in range(i + 1, 10):
            diff = probabilities[i] - probabilities[j]
            if y[i] == y[j]:
                expected += ((diff**2).sum(axis=1) * w**2).sum()
            else:
                expected += max(0.0, 1.2 - np.abs(diff).sum(axis=1) @ w) ** 2
    assert problem.objective(w) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_gradient_matches_finite_differences(seed):
    probabilities, y = random_tree_probabilities(14, 8, 3, seed=seed)
    problem = WeightProblem(PairStatistics.from_tree_probabilities(probabilities, y), lambda_=0.5, tau=1.0)
    rng = np.random.default_rng(seed)
    w = rng.dirichlet(np.ones(8))
    h = 1e-6
    numeric = np.array(
        [(problem.objective(w + h * e) - problem.objective(w - h * e)) / (2 * h) for e in np.eye(8)]
    )
    np.testing.assert_allclose(problem.gradient(w), numeric, rtol=1e-6, atol=1e-7)


def test_printed_gradient_is_not_the_gradient():
    """Eq. (78) as printed uses S_ij^2: it differs wherever a hinge is active with S_ij != 1."""
    probabilities, y = random_tree_probabilities(14, 8, 3, seed=5)
    problem = WeightProblem(PairStatistics.from_tree_probabilities(probabilities, y), lambda_=0.5, tau=1.5)
    w = np.full(8, 1 / 8)
    slacks = problem.slacks(w)
    assert np.any(slacks > 0)
    expected = 2 * problem.quadratic * w - 2 * (np.where(slacks > 0, slacks**2, 0) @ problem.stats.q)
    np.testing.assert_allclose(problem.printed_gradient(w), expected)
    assert not np.allclose(problem.printed_gradient(w), problem.gradient(w))


def test_duality_gap_bounds_the_suboptimality():
    probabilities, y = random_tree_probabilities(14, 8, 3, seed=2)
    problem = WeightProblem(PairStatistics.from_tree_probabilities(probabilities, y), lambda_=0.5, tau=1.0)
    w = np.random.default_rng(1).dirichlet(np.ones(8))
    from disdf.weights import solve_weights

    optimum = solve_weights(problem, "frank_wolfe_away", tol=1e-10).objective
    assert problem.objective(w) - optimum <= problem.duality_gap(w) + 1e-12


@pytest.mark.parametrize(("lambda_", "tau"), [(-0.1, 1.0), (np.nan, 1.0), (1.0, 0.0), (1.0, -1.0)])
def test_invalid_lambda_or_tau_is_refused(lambda_, tau):
    probabilities, y = random_tree_probabilities(6, 3, 2, seed=0)
    stats = PairStatistics.from_tree_probabilities(probabilities, y)
    name = "lambda_" if not (lambda_ >= 0) else "tau"
    with pytest.raises(ValueError, match=name):
        WeightProblem(stats, lambda_, tau)


def test_quadratic_minimizer_is_the_optimum_when_no_hinge_is_active():
    probabilities, y = random_tree_probabilities(20, 12, 3, seed=4, accuracy=0.95)
    problem = WeightProblem(PairStatistics.from_tree_probabilities(probabilities, y), lambda_=1.0, tau=0.2)
    w = problem.quadratic_minimizer()
    assert np.all(problem.slacks(w) <= 0)
    assert problem.duality_gap(w) <= 1e-12 * problem.objective(w)
    np.testing.assert_allclose(w * problem.quadratic, (w * problem.quadratic)[0])


def test_quadratic_minimizer_with_free_trees():
    """lambda = 0 and trees with pi_t = 0: the weight goes to those trees, evenly."""
    stats = PairStatistics(pi=np.array([0.0, 2.0, 0.0, 1.0]), q=np.zeros((0, 4)))
    np.testing.assert_array_equal(WeightProblem(stats, 0.0, 1.0).quadratic_minimizer(), [0.5, 0, 0.5, 0])


@pytest.mark.parametrize("tau", [0.3, 1.0, 1.9])  # few, some, most hinges active
def test_hinge_pull_reads_active_rows_only_but_equals_the_dense_sum(tau):
    probabilities, y = random_tree_probabilities(30, 10, 2, seed=6)
    problem = WeightProblem(PairStatistics.from_tree_probabilities(probabilities, y), lambda_=1.0, tau=tau)
    slacks = problem.slacks(np.full(10, 0.1))
    np.testing.assert_allclose(
        problem.hinge_pull(slacks), np.maximum(slacks, 0) @ problem.stats.q, atol=1e-12
    )


@pytest.mark.parametrize("seed", range(3))
def test_statistics_of_some_examples_are_those_computed_on_them(seed):
    rng = np.random.default_rng(seed)
    n, T, C = 30, 40, 3
    probabilities = rng.dirichlet(np.ones(C), size=(n, T))
    probabilities[rng.random((n, T)) < 0.6] = np.eye(C)[0]  # one-hot leaves, as fully grown trees give
    y = rng.integers(0, C, size=n)
    whole = PairStatistics.from_tree_probabilities(probabilities, y)
    positions = np.sort(rng.choice(n, size=20, replace=False))
    expected = PairStatistics.from_tree_probabilities(probabilities[positions], y[positions])
    part = whole.of_examples(y, positions, probabilities[positions])
    assert np.array_equal(part.pi, expected.pi) and np.array_equal(part.q, expected.q)
    assert 0 < part.n_pairs < whole.n_pairs
    with pytest.raises(ValueError, match="different-class pairs"):
        whole.of_examples(y[:25], positions[positions < 25], probabilities[positions[positions < 25]])


def test_q_of_one_hot_pairs_is_the_sum_over_classes_bit_for_bit():
    """Q's rows take 0 or 2 for two one-hot vectors without summing over classes: the same numbers
    as the sum (pure and impure vectors mixed, as in forests with a few impure leaves)."""
    from disdf.weights._pair_kernels import manhattan_rows
    from disdf.weights._problem import different_class_pairs, different_class_q

    rng = np.random.default_rng(3)
    probabilities, y = random_tree_probabilities(40, 30, 5, seed=4)
    one_hot = np.eye(5)[rng.integers(0, 5, (40, 30))]
    probabilities = np.where((rng.random((40, 30)) < 0.8)[..., None], one_hot, probabilities)
    q = different_class_q(probabilities, y)
    np.testing.assert_array_equal(q, manhattan_rows(probabilities, *different_class_pairs(y)))
    assert set(np.unique(q[q.astype(int) == q])) == {0.0, 2.0}  # both shortcuts occur


def test_q_of_examples_one_hot_in_every_tree_is_the_sum_over_classes_bit_for_bit():
    """A pair whose two examples have a one-hot vector in every tree (fully grown trees) takes the
    pass over their classes alone; beside pairs with an impure vector, the same numbers as the sum."""
    from disdf.weights._pair_kernels import _one_hot_rows, manhattan_rows, pure_classes
    from disdf.weights._problem import different_class_pairs, different_class_q

    rng = np.random.default_rng(5)
    probabilities, y = random_tree_probabilities(50, 20, 4, seed=6)
    one_hot_examples = rng.random(50) < 0.7
    probabilities[one_hot_examples] = np.eye(4)[rng.integers(0, 4, (one_hot_examples.sum(), 20))]
    flags = _one_hot_rows(pure_classes(probabilities))
    np.testing.assert_array_equal(flags, one_hot_examples)
    first, second = different_class_pairs(y)
    both = flags[first] & flags[second]
    assert both.any() and not both.all()  # both paths run
    q = different_class_q(probabilities, y)
    assert q.tobytes() == manhattan_rows(probabilities, first, second).tobytes()


@pytest.mark.parametrize(("n", "n_trees", "n_classes"), [(40, 7, 2), (300, 12, 3), (500, 5, 10)])
def test_pi_counted_from_one_hot_vectors_is_the_closed_form_bit_for_bit(n, n_trees, n_classes):
    """Every vector one-hot and no example weights: pi from the pure classes' counts equals the
    closed form on the probabilities, bit for bit; a vector that is not one-hot, or example weights,
    take the closed form."""
    from disdf.weights import _problem
    from disdf.weights._pair_kernels import pure_classes

    rng = np.random.default_rng(n)
    y = rng.integers(0, n_classes, n)
    y[:2] = 0  # a class with members to pair
    probabilities = np.eye(n_classes)[rng.integers(0, n_classes, (n, n_trees))]
    pure = pure_classes(probabilities)
    counted = _problem.same_class_pi(probabilities, y, pure=pure)
    assert counted.tobytes() == _problem.same_class_pi(probabilities, y).tobytes()
    assert np.array_equal(counted, _problem.one_hot_pi(pure, y, n_classes)) and counted.max() > 0
    mixed = probabilities.copy()
    mixed[0, 0] = np.full(n_classes, 1 / n_classes)
    weights = rng.random(n)
    for probs, sample_weight in [(mixed, None), (probabilities, weights)]:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(_problem, "one_hot_pi", None)  # not called: the closed form runs
            got = _problem.same_class_pi(probs, y, sample_weight, pure_classes(probs))
        assert got.tobytes() == _problem.same_class_pi(probs, y, sample_weight).tobytes()
