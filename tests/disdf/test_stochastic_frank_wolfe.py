"""Frank-Wolfe on sampled pairs: uniform pair draws, unbiased estimates, a small gap, bounded memory."""

import numpy as np
import pytest
from scipy import stats

from disdf.weights import PairStatistics, WeightProblem, solve_weights
from disdf.weights._stochastic_frank_wolfe import (
    PairSampler,
    SampledWeightProblem,
    sampled_hinge,
    stochastic_frank_wolfe,
)
from disdf.weights._synthetic import random_tree_probabilities


def test_pairs_are_uniform_over_the_different_class_pairs():
    y = np.array([2, 0, 1, 0, 0, 1])
    probabilities = np.random.default_rng(0).dirichlet(np.ones(3), size=(6, 2))
    sampler = PairSampler(probabilities, y)
    expected = {(i, j) for i in range(6) for j in range(i + 1, 6) if y[i] != y[j]}
    assert sampler.n_pairs == len(expected) == 11
    first, second = sampler.sample(110_000, np.random.default_rng(1))
    drawn = [tuple(sorted(pair)) for pair in zip(first.tolist(), second.tolist(), strict=True)]
    counts = {pair: 0 for pair in expected}
    for pair in drawn:
        counts[pair] += 1  # a same-class pair would be a KeyError
    assert stats.chisquare(list(counts.values())).pvalue > 1e-3


def test_the_sampled_hinge_gradient_is_unbiased():
    probabilities, y = random_tree_probabilities(40, 6, 3, seed=2)
    problem = WeightProblem(PairStatistics.from_tree_probabilities(probabilities, y), 1.0, 1.5)
    w = np.random.default_rng(3).dirichlet(np.ones(6))
    exact = -2.0 * problem.hinge_pull(problem.slacks(w))
    sampler, rng = PairSampler(probabilities, y), np.random.default_rng(4)
    draws = np.array([sampled_hinge(sampler, w, 1.5, 32, rng)[0] for _ in range(4000)])
    standard_error = draws.std(axis=0, ddof=1) / np.sqrt(len(draws))
    assert np.all(np.abs(draws.mean(axis=0) - exact) < 4 * standard_error)
    hinge = np.maximum(problem.slacks(w), 0)
    values = [sampled_hinge(sampler, w, 1.5, 32, rng)[1] for _ in range(4000)]
    assert abs(np.mean(values) - hinge @ hinge) < 4 * np.std(values) / np.sqrt(4000)


@pytest.mark.parametrize(("n_classes", "tau"), [(2, 1.0), (5, 1.5)])
def test_the_objective_gap_to_the_exact_optimum_is_small_and_shrinks(n_classes, tau):
    probabilities, y = random_tree_probabilities(150, 40, n_classes, seed=5)
    problem = WeightProblem(PairStatistics.from_tree_probabilities(probabilities, y), 1.0, tau)
    best = solve_weights(problem, "frank_wolfe_away", tol=1e-10).objective

    def mean_excess(max_iter):
        runs = [
            stochastic_frank_wolfe(
                SampledWeightProblem(probabilities, y, 1.0, tau, random_state=s),
                batch_size=256,
                max_iter=max_iter,
            )
            for s in range(3)
        ]
        for run in runs:
            assert np.all(run.w >= 0) and run.w.sum() == pytest.approx(1.0)
        return np.mean([(problem.objective(run.w) - best) / best for run in runs])

    short, long = mean_excess(50), mean_excess(1500)
    assert long < 5e-3 and long < short / 3


def test_pairs_are_never_enumerated(monkeypatch):
    """100,000 examples in 2 classes have 2.5e9 different-class pairs (80 GB as rows of Q at T = 4)."""
    import disdf.weights._problem as problem_module

    monkeypatch.setattr(problem_module, "different_class_q", lambda *a: pytest.fail("enumerated every pair"))
    probabilities, y = random_tree_probabilities(100_000, 4, 2, seed=6)
    solution = stochastic_frank_wolfe(
        SampledWeightProblem(probabilities, y, 1.0, 1.0), batch_size=256, max_iter=30
    )
    assert PairSampler(probabilities, y).n_pairs > 2e9
    assert np.all(solution.w >= 0) and solution.w.sum() == pytest.approx(1.0)
    assert np.isfinite(solution.objective) and solution.status == "max_iter"


def test_one_class_has_no_pairs_and_gives_the_quadratic_minimizer():
    probabilities, _ = random_tree_probabilities(20, 5, 2, seed=7)
    y = np.zeros(20, dtype=int)
    solution = stochastic_frank_wolfe(SampledWeightProblem(probabilities, y, 1.0, 1.0))
    expected = WeightProblem(PairStatistics.from_tree_probabilities(probabilities, y), 1.0, 1.0)
    np.testing.assert_allclose(solution.w, expected.quadratic_minimizer())
    assert solution.status == "no_pairs"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"lambda_": -1.0}, "lambda_"), ({"tau": 0.0}, "tau"), ({"batch_size": 0}, "batch_size")],
)
def test_bad_parameters_are_refused(kwargs, message):
    probabilities, y = random_tree_probabilities(10, 3, 2)
    problem_args = {"lambda_": 1.0, "tau": 1.0} | {k: v for k, v in kwargs.items() if k in ("lambda_", "tau")}
    options = {k: v for k, v in kwargs.items() if k not in problem_args}
    with pytest.raises(ValueError, match=message):
        stochastic_frank_wolfe(SampledWeightProblem(probabilities, y, **problem_args), **options)


def test_a_solver_is_given_the_problem_it_reads():
    probabilities, y = random_tree_probabilities(10, 3, 2)
    sampled = SampledWeightProblem(probabilities, y, 1.0, 1.0)
    exact = WeightProblem(PairStatistics.from_tree_probabilities(probabilities, y), 1.0, 1.0)
    with pytest.raises(TypeError, match="solver 'qp' reads a WeightProblem; got a SampledWeightProblem"):
        solve_weights(sampled, "qp")
    with pytest.raises(TypeError, match="reads a SampledWeightProblem; got a WeightProblem"):
        solve_weights(exact, "stochastic_frank_wolfe")
    assert solve_weights(sampled, "stochastic_frank_wolfe", max_iter=5).w.shape == (3,)


# ------------------------------------------------------------ inside DisDF
@pytest.fixture(scope="module")
def digits():
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    return X[:450], y[:450]


def sampled_disdf(**params):
    from disdf import DisDFClassifier

    defaults = dict(
        n_trees=12,
        engine="fast",
        random_state=3,
        max_levels=2,
        solver="stochastic_frank_wolfe",
        solver_options={"max_iter": 1500, "batch_size": 512},
    )
    return DisDFClassifier(**{**defaults, **params})


def test_disdf_with_pair_draws_never_builds_pair_statistics(monkeypatch, digits):
    from disdf.cascade._shared_first_level import fit_sharing_first_level

    def refuse(*args, **kwargs):
        raise AssertionError("the pair-sampling solver built the full pair statistics")

    monkeypatch.setattr(PairStatistics, "from_tree_probabilities", refuse)
    X, y = digits
    model = sampled_disdf(solver_options={"max_iter": 200}).fit(X, y)
    assert model.score(X, y) > 0.9
    statuses = {d["status"] for level in model.solver_diagnostics_ for forest in level for d in forest}
    assert statuses == {"max_iter"}
    assert {d["solver"] for d in model.solver_diagnostics_[0][0]} == {"stochastic_frank_wolfe"}
    (shared,) = fit_sharing_first_level([sampled_disdf(solver_options={"max_iter": 200})], X, y)
    np.testing.assert_array_equal(shared.predict_proba(X), model.predict_proba(X))


def test_disdf_with_pair_draws_is_deterministic_for_any_n_jobs(digits):
    X, y = digits
    few = {"max_iter": 200}
    one = sampled_disdf(n_jobs=1, solver_options=few).fit(X, y)
    two = sampled_disdf(n_jobs=2, solver_options=few).fit(X, y)
    for level_one, level_two in zip(one.weights_, two.weights_, strict=True):
        for forest_one, forest_two in zip(level_one, level_two, strict=True):
            for w_one, w_two in zip(forest_one, forest_two, strict=True):
                np.testing.assert_array_equal(w_one, w_two)
    other_seed = sampled_disdf(random_state=4, solver_options=few).fit(X, y)
    assert not np.array_equal(other_seed.weights_[0][0][0], one.weights_[0][0][0])


def test_disdf_pair_draw_weights_are_near_the_exact_optimum_of_each_fold_problem(digits):
    """Every fold model's weights, scored by the exact objective J of its own held-out pairs."""
    X, y = digits
    model = sampled_disdf(max_levels=1)
    fit = model._grow_first_level(X, y)
    y_code = fit.y_code
    forests, _ = model._level_weights(fit, y_code, 0)
    excess = []
    for forest in forests:
        for held, (_, test), w in zip(forest.held_out, fit.folds, forest.weights, strict=True):
            problem = WeightProblem(
                PairStatistics.from_tree_probabilities(held.probabilities(), y_code[test]), 1.0, 1.0
            )
            optimum = solve_weights(problem, "qp").objective
            excess.append((problem.objective(w) - optimum) / optimum)
    assert max(excess) < 1e-3, excess  # measured: 0.0013-0.0096 % on these 12 problems


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"solver_fallback": "qp"}, "solver_fallback must be None with solver='stochastic_frank_wolfe'"),
        ({"solver_options": {"random_state": 1}}, r"Invalid solver_options \['random_state'\]"),
        ({"solver_options": {"tol": 1e-6}}, r"Invalid solver_options \['tol'\]"),
    ],
)
def test_disdf_refuses_what_pair_draws_cannot_take(digits, params, message):
    X, y = digits
    with pytest.raises(ValueError, match=message):
        sampled_disdf(**params).fit(X, y)


def test_the_compiled_batch_equals_the_rows_of_q_of_the_drawn_pairs():
    """One-hot vectors (pure leaves) take the 0-or-2 shortcut, the others the sum over classes; the
    gradient and value equal those of the (pairs, T) rows of Q of the same draws."""
    from disdf.weights._pair_kernels import manhattan_rows, pure_classes

    rng = np.random.default_rng(7)
    probabilities, y = random_tree_probabilities(60, 12, 4, seed=8)
    one_hot = np.eye(4)[rng.integers(0, 4, (60, 12))]
    pure = rng.random((60, 12)) < 0.7
    probabilities = np.where(pure[..., None], one_hot, probabilities)
    expected = np.where(pure, one_hot.argmax(axis=2), -1)
    np.testing.assert_array_equal(pure_classes(probabilities), expected)
    sampler, w = PairSampler(probabilities, y), rng.dirichlet(np.ones(12))
    gradient, value = sampled_hinge(sampler, w, 1.5, 64, np.random.default_rng(9))
    q = manhattan_rows(probabilities, *sampler.sample(64, np.random.default_rng(9)))
    slack, scale = np.maximum(1.5 - q @ w, 0.0), sampler.n_pairs / 64
    np.testing.assert_allclose(gradient, -2.0 * scale * (slack @ q), rtol=1e-12)
    assert value == pytest.approx(scale * slack @ slack, rel=1e-12)
    assert 0 < np.count_nonzero(slack) < 64  # active and inactive hinges both occur


@pytest.mark.parametrize("n_classes", [2, 5])
def test_the_batch_sums_are_those_of_the_plain_loops_bit_for_bit(n_classes):
    """sampled_hinge_sums against the sums written out in Python (IEEE doubles, the same operations in
    the same order: S = tau - Q^0 w_0 - Q^1 w_1 - ..., then pull and value summed pair after pair),
    with mixed and one-hot vectors and example weights; and the pure classes held as int8 or int16
    give the same numbers."""
    from disdf.weights._pair_kernels import manhattan_rows, pure_classes, sampled_hinge_sums

    rng = np.random.default_rng(n_classes)
    probabilities, _ = random_tree_probabilities(50, 9, n_classes, seed=3)
    one_hot = np.eye(n_classes)[rng.integers(0, n_classes, (50, 9))]
    probabilities = np.where((rng.random((50, 9)) < 0.8)[..., None], one_hot, probabilities)
    first, second = rng.integers(0, 50, 200), rng.integers(0, 50, 200)
    w, weights, tau = rng.dirichlet(np.ones(9)), rng.random(50) * 2, 1.3
    pure = pure_classes(probabilities)
    assert pure.dtype == np.int8
    q = manhattan_rows(probabilities, first, second)
    pull, value = [0.0] * 9, 0.0
    for b in range(200):
        slack = tau
        for t in range(9):
            slack -= float(q[b, t]) * float(w[t])
        if slack > 0.0:
            weighted = float(weights[first[b]]) * float(weights[second[b]]) * slack
            value += weighted * slack
            for t in range(9):
                pull[t] += weighted * float(q[b, t])
    for held in (pure, pure.astype(np.int16)):
        got = np.empty(9)
        assert sampled_hinge_sums(probabilities, held, first, second, w, tau, got, weights) == value
        assert got.tolist() == pull


@pytest.mark.parametrize("n_classes", [2, 4])
def test_one_hot_vectors_kept_as_classes_give_the_solution_of_the_probabilities(n_classes):
    """Every held-out vector one-hot (fully grown trees): the solve on their classes, read from the
    leaf table's rows without building the (n, T, C) array, is the solve on the probabilities, bit for
    bit; a table row that is not one-hot, or example weights, keep the probabilities."""
    from disdf.weights import OneHotVectors

    rng = np.random.default_rng(n_classes)
    table = np.vstack([np.eye(n_classes), rng.dirichlet(np.ones(n_classes), 3)])  # rows C.. are mixed
    leaves = rng.integers(0, n_classes, (300, 11)).astype(np.int32)
    y = rng.integers(0, n_classes, 300)
    vectors = OneHotVectors.of_rows(leaves, table)
    assert vectors is not None and vectors.shape == (300, 11, n_classes)
    np.testing.assert_array_equal(vectors.classes, leaves)
    probabilities = table[leaves]
    for lambda_, tau, w0 in [(0.0, 1.0, None), (0.5, 0.3, rng.dirichlet(np.ones(11)))]:
        problems = [SampledWeightProblem(h, y, lambda_, tau, 5) for h in (probabilities, vectors)]
        solutions = [stochastic_frank_wolfe(p, batch_size=64, max_iter=150, w0=w0) for p in problems]
        assert solutions[0].w.tobytes() == solutions[1].w.tobytes()
        assert (solutions[0].objective, solutions[0].gap) == (solutions[1].objective, solutions[1].gap)
    assert SampledWeightProblem(vectors, y, 0.0, 1.0).n_trees == 11
    assert SampledWeightProblem(probabilities.tolist(), y, 0.0, 1.0).n_trees == 11  # array-likes too
    leaves[7, 3] = n_classes + 1  # a mixed row
    assert OneHotVectors.of_rows(leaves, table) is None
    with pytest.raises(ValueError, match="sample_weight"):
        SampledWeightProblem(vectors, y, 0.0, 1.0, sample_weight=np.ones(300))
    with pytest.raises(ValueError, match="a class >= 0"):
        OneHotVectors(np.full((3, 2), -1), n_classes)


def test_the_cascade_hands_the_solver_classes_only_when_unweighted_and_all_one_hot():
    from disdf.cascade._weight_fitting import held_out_vectors
    from disdf.forests._tree_leaves import TreeLeaves
    from disdf.weights import OneHotVectors

    table = np.vstack([np.eye(2), [[0.5, 0.5]]])
    pure = TreeLeaves(np.array([[0, 1], [1, 1]], dtype=np.int32), table)
    mixed = TreeLeaves(np.array([[0, 2], [1, 1]], dtype=np.int32), table)
    assert isinstance(held_out_vectors(pure, None), OneHotVectors)
    np.testing.assert_array_equal(held_out_vectors(pure, np.ones(2)), table[pure.leaves])
    np.testing.assert_array_equal(held_out_vectors(mixed, None), table[mixed.leaves])
