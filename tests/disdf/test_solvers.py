"""Every weight solver against the exact cvxpy optimum of eq. (70)-(72)."""

import numpy as np
import pytest
import scipy.linalg

from disdf.weights import PairStatistics, WeightProblem, WeightSolverError, solve_weights
from disdf.weights._frank_wolfe import support_newton_target
from disdf.weights._frank_wolfe_kernels import exact_line_search, project_to_simplex
from disdf.weights._synthetic import random_pair_statistics

# (n examples, T trees, C classes, lambda, tau, tree accuracy)
INSTANCES = [
    (30, 50, 2, 1.0, 1.0, 0.7),
    (30, 50, 3, 0.1, 1.5, 0.6),
    (40, 100, 2, 1.0, 1.0, 0.7),
    (25, 40, 4, 10.0, 0.5, 0.7),
    (30, 50, 2, 1.0, 2.0, 0.7),
]


def make_problem(n, T, C, lambda_, tau, accuracy, seed=3):
    return WeightProblem(random_pair_statistics(n, T, C, seed=seed, accuracy=accuracy), lambda_, tau)


@pytest.fixture(scope="module", params=INSTANCES, ids=lambda p: "n{}-T{}-C{}-lam{}-tau{}".format(*p))
def instance(request):
    problem = make_problem(*request.param)
    return problem, solve_weights(problem, "qp")


def assert_on_simplex(w, T):
    assert w.shape == (T,)
    assert np.all(w >= 0)
    assert w.sum() == pytest.approx(1.0, abs=1e-12)


def test_qp_is_optimal_by_its_duality_gap(instance):
    problem, exact = instance
    assert_on_simplex(exact.w, problem.n_trees)
    assert exact.status == "optimal"
    assert exact.relative_gap < 1e-5


@pytest.mark.parametrize(
    "options",
    [{}, {"newton_adds_trees": False, "newton_every": 20}, {"newton_every": 0}],
    ids=["newton-steps-adding-trees", "newton-steps-on-the-support", "plain"],
)
def test_away_step_reaches_the_qp_optimum(instance, options):
    problem, exact = instance
    solution = solve_weights(problem, "frank_wolfe_away", tol=1e-6, **options)
    assert_on_simplex(solution.w, problem.n_trees)
    assert solution.status == "converged"
    assert solution.relative_gap <= 1e-6
    assert abs(solution.objective - exact.objective) <= 1e-6 * exact.objective


def test_osqp_agrees_with_clarabel(instance):
    problem, exact = instance
    solution = solve_weights(problem, "qp", qp_solver="OSQP")
    assert abs(solution.objective - exact.objective) <= 1e-6 * exact.objective


def test_classic_frank_wolfe_approaches_the_optimum(instance):
    problem, exact = instance
    short = solve_weights(problem, "frank_wolfe", max_iter=10)
    long = solve_weights(problem, "frank_wolfe", max_iter=2000)
    assert_on_simplex(long.w, problem.n_trees)
    assert long.objective <= short.objective
    assert long.objective - exact.objective <= 0.01 * exact.objective


def test_printed_gradient_ablation_stops_at_a_worse_point():
    """Eq. (78) as printed is not the gradient: FW driven by it stalls above the optimum."""
    problem = make_problem(30, 50, 3, 0.1, 1.5, 0.6)
    exact = solve_weights(problem, "qp").objective
    true = solve_weights(problem, "frank_wolfe", max_iter=10_000).objective
    printed = solve_weights(problem, "frank_wolfe", max_iter=10_000, gradient="printed").objective
    assert true - exact <= 1e-4 * exact
    assert printed - exact >= 0.05 * exact


def test_uniform_solver_returns_the_average():
    problem = make_problem(20, 30, 2, 1.0, 1.0, 0.7)
    solution = solve_weights(problem, "uniform")
    np.testing.assert_array_equal(solution.w, np.full(30, 1 / 30))


def test_warm_start_from_the_optimum_stops_at_once():
    problem = make_problem(30, 50, 2, 1.0, 1.0, 0.7)
    cold = solve_weights(problem, "frank_wolfe_away", tol=1e-8)
    warm = solve_weights(problem, "frank_wolfe_away", tol=1e-6, w0=cold.w)
    assert warm.n_iter == 0
    assert warm.objective == pytest.approx(cold.objective, rel=1e-12)


def test_line_search_is_exact():
    problem = make_problem(25, 20, 3, 0.5, 1.2, 0.6)
    rng = np.random.default_rng(0)
    w = rng.dirichlet(np.ones(20))
    target = np.eye(20)[7]
    direction = target - w
    q = problem.stats.q
    gamma = exact_line_search(problem.quadratic, w, direction, problem.slacks(w), q @ direction, 1.0)
    grid = np.linspace(0, 1, 20001)
    values = [problem.objective(w + g * direction) for g in grid]
    assert problem.objective(w + gamma * direction) <= min(values) + 1e-12


def degenerate_problems():
    rng = np.random.default_rng(0)
    one_class = rng.dirichlet(np.ones(2), size=(8, 5))
    yield "no different-class pair", PairStatistics.from_tree_probabilities(one_class, np.zeros(8, int))
    yield "no same-class pair", PairStatistics.from_tree_probabilities(one_class[:2], np.array([0, 1]))
    yield "one tree", PairStatistics.from_tree_probabilities(one_class[:, :1], np.arange(8) % 2)
    identical = np.repeat(one_class[:1], 8, axis=0)
    yield "all Q zero", PairStatistics.from_tree_probabilities(identical, np.arange(8) % 2)


@pytest.mark.parametrize("solver", ["frank_wolfe_away", "frank_wolfe", "qp"])
@pytest.mark.parametrize(
    ("name", "stats"), list(degenerate_problems()), ids=lambda v: v if isinstance(v, str) else ""
)
def test_degenerate_problems_give_simplex_weights(solver, name, stats, recwarn):
    for lambda_, tau in [(1.0, 1.0), (0.0, 1.0), (1.0, 1e-9)]:  # tau ~ 0: every hinge inactive
        problem = WeightProblem(stats, lambda_, tau)
        solution = solve_weights(problem, solver)
        assert_on_simplex(solution.w, stats.n_trees)
        assert np.isfinite(solution.objective)
    assert len(recwarn) == 0


def test_qp_failure_names_solver_status_and_size(monkeypatch):
    import cvxpy as cp

    def fail(self, *args, **kwargs):
        raise cp.error.SolverError("simulated failure")

    monkeypatch.setattr(cp.Problem, "solve", fail)
    problem = make_problem(20, 30, 2, 1.0, 1.0, 0.7)
    with pytest.raises(WeightSolverError, match=r"CLARABEL.*T=30 trees"):
        solve_weights(problem, "qp")


def test_qp_non_optimal_status_is_an_error(monkeypatch):
    import cvxpy as cp

    def inaccurate(self, *args, **kwargs):
        self._status = cp.OPTIMAL_INACCURATE

    monkeypatch.setattr(cp.Problem, "solve", inaccurate)
    monkeypatch.setattr(cp.Problem, "status", property(lambda self: self._status))
    problem = make_problem(20, 30, 2, 1.0, 1.0, 0.7)
    with pytest.raises(WeightSolverError, match="optimal_inaccurate"):
        solve_weights(problem, "qp")


def test_unknown_solver_and_options_are_refused():
    problem = make_problem(10, 5, 2, 1.0, 1.0, 0.7)
    with pytest.raises(ValueError, match="Unknown weight solver 'newton'"):
        solve_weights(problem, "newton")
    with pytest.raises(ValueError, match="solver_options"):
        solve_weights(problem, "qp", tol=1e-3)
    with pytest.raises(ValueError, match="qp_solver"):
        solve_weights(problem, "qp", qp_solver="GUROBI")
    with pytest.raises(ValueError, match="gradient"):
        solve_weights(problem, "frank_wolfe", gradient="paper")


@pytest.mark.parametrize("seed", range(3))
def test_projection_onto_the_simplex_is_the_closest_point(seed):
    rng = np.random.default_rng(seed)
    v = rng.normal(scale=0.5, size=12)
    p = project_to_simplex(v)
    assert_on_simplex(p, 12)
    others = rng.dirichlet(np.ones(12) * 0.3, size=2000)
    assert np.linalg.norm(v - p) <= np.linalg.norm(v - others, axis=1).min() + 1e-12


def reference_newton_target(problem, w, slacks):
    """support_newton_target as numpy and scipy compute it (np.ix_, np.stack, scipy.linalg.solve,
    a numpy projection): the compiled and LAPACK steps must give these numbers bit for bit."""
    support, active = np.flatnonzero(w > 0), np.flatnonzero(slacks > 0)
    c = problem.quadratic[support]
    q_as = problem.stats.q[np.ix_(active, support)]
    rhs = np.stack([problem.tau * q_as.sum(axis=0), np.ones(support.size)], axis=1)
    if active.size < support.size and np.all(c > 0):
        c_inv_rhs = rhs / c[:, None]
        capacitance = np.eye(active.size) + (q_as / c) @ q_as.T
        solved = (
            c_inv_rhs
            - (q_as.T @ scipy.linalg.solve(capacitance, q_as @ c_inv_rhs, assume_a="pos")) / c[:, None]
        )
    else:
        system = q_as.T @ q_as
        system[np.diag_indices_from(system)] += c
        solved = scipy.linalg.solve(system, rhs, assume_a="pos")
    a, b = solved[:, 0], solved[:, 1]
    target = a + (1.0 - a.sum()) / b.sum() * b
    u = np.sort(target)[::-1]
    cumulative = np.cumsum(u) - 1.0
    rho = np.flatnonzero(u - cumulative / np.arange(1, target.size + 1) > 0)[-1]
    projected = np.zeros_like(w)
    projected[support] = np.maximum(target - cumulative[rho] / (rho + 1), 0.0)
    return projected


def scipy_solve_is_the_library_s() -> bool:
    """Whether this scipy's ``solve(assume_a="pos")`` is what the library computes: LAPACK's posv on
    the upper triangle, and a division for a 1 x 1 matrix (scipy 1.16 on; scipy 1.15 factors a
    1 x 1 matrix too, a last-bit difference)."""
    rng = np.random.default_rng(0)
    a = rng.random((30, 30))
    matrix, rhs = a @ a.T + 30 * np.eye(30), rng.random((30, 2))
    posv = scipy.linalg.get_lapack_funcs("posv", (matrix, rhs))
    scalars, scalar_rhs = rng.random((50, 1, 1)) + 0.5, rng.random((50, 1, 2))
    return np.array_equal(
        scipy.linalg.solve(matrix, rhs, assume_a="pos"), posv(matrix, rhs, lower=0)[1]
    ) and all(
        np.array_equal(scipy.linalg.solve(m, b, assume_a="pos"), b / m)
        for m, b in zip(scalars, scalar_rhs, strict=True)
    )


@pytest.mark.parametrize("seed", range(4))
def test_newton_target_is_numpy_and_scipy_bit_for_bit(seed):
    """Bit for bit where scipy's solve is posv (the committed records' scipy); else to 1e-12."""
    exact = scipy_solve_is_the_library_s()
    rng = np.random.default_rng(seed)
    n_checked = 0
    for n_pairs, T, support_share, tau in [(40, 300, 0.9, 1.0), (200, 150, 0.5, 2.0), (30, 60, 0.05, 1.0)]:
        for lambda_ in (0.01, 1.0):
            q = 2.0 * rng.random((n_pairs, T)) * (rng.random((n_pairs, T)) < 0.6)
            problem = WeightProblem(PairStatistics(rng.random(T), q), lambda_, tau)
            w = rng.random(T) * (rng.random(T) < support_share)
            w[0] += 0.1
            w /= w.sum()
            for slacks in (tau - q @ w, np.full(n_pairs, -1.0), np.where(np.arange(n_pairs) == 3, 0.5, -1.0)):
                # any active set: the Woodbury path (with 0, 1 or many pairs) and the direct one
                expected = reference_newton_target(problem, w, slacks)
                got = support_newton_target(problem, w, slacks)
                assert np.array_equal(got, expected) if exact else np.allclose(got, expected, rtol=1e-12)
                n_checked += 1
    assert n_checked == 18


def test_newton_steps_add_the_optimum_s_trees_at_once():
    """From a vertex, Frank-Wolfe adds at most one tree per iteration; Newton steps over the trees
    the gradient favours add them together, to the same optimum."""
    rng = np.random.default_rng(7)
    n_pairs, T = 60, 400
    # Pure leaves: Q_ij^t is 0 or 2; pi_t of similar size for every tree, as in a forest.
    q = 2.0 * (rng.random((n_pairs, T)) < 0.6)
    problem = WeightProblem(PairStatistics(5.0 + rng.random(T), q), 1.0, 1.0)
    vertex = np.eye(T)[0]
    one_at_a_time = solve_weights(problem, "frank_wolfe_away", w0=vertex, newton_adds_trees=False)
    together = solve_weights(problem, "frank_wolfe_away", w0=vertex)
    support = np.count_nonzero(together.w > 0)
    assert support > 200  # the optimum weighs most trees
    assert one_at_a_time.n_iter >= support - 1
    assert together.n_iter <= 20
    assert together.status == one_at_a_time.status == "converged"
    assert abs(together.objective - one_at_a_time.objective) <= 1e-6 * one_at_a_time.objective
    assert np.abs(together.w - one_at_a_time.w).max() < 1e-6


# ------------------------------------------------------------ numbers checked, not trusted
def huge_tau_problem(solver, tau=1e300):
    """lambda = 0 and a tau whose square overflows float64. WeightProblem and SampledWeightProblem
    refuse such a tau (the one range check, test below), so it is set past that check: the solve's own
    guard is what is tested, for numbers that leave float64 by any other route."""
    if solver == "stochastic_frank_wolfe":
        from disdf.weights import SampledWeightProblem

        rng = np.random.default_rng(0)
        problem = SampledWeightProblem(rng.dirichlet(np.ones(2), size=(20, 15)), np.arange(20) % 2, 0.0, 1.0)
    else:
        problem = make_problem(20, 15, 2, 0.0, 1.0, 0.7)
    object.__setattr__(problem, "tau", tau)
    return problem


@pytest.mark.parametrize("problem_class", ["WeightProblem", "SampledWeightProblem"])
def test_a_weight_problem_checks_lambda_and_tau_with_the_estimators_ranges(problem_class):
    from sklearn.utils._param_validation import InvalidParameterError

    from disdf import weights

    stats = make_problem(20, 15, 2, 0.0, 1.0, 0.7).stats
    rng = np.random.default_rng(0)
    build = {
        "WeightProblem": lambda lam, tau: weights.WeightProblem(stats, lam, tau),
        "SampledWeightProblem": lambda lam, tau: weights.SampledWeightProblem(
            rng.dirichlet(np.ones(2), size=(20, 15)), np.arange(20) % 2, lam, tau
        ),
    }[problem_class]
    build(weights.LAMBDA_MAX, weights.TAU_MAX)  # both ends are in range
    with pytest.raises(
        InvalidParameterError, match=r"tau must be a finite number in \(0, 1000\]; got 1e\+300"
    ):
        build(0.0, 1e300)
    with pytest.raises(
        InvalidParameterError, match=r"lambda_ must be a finite number in \[0, 1e\+12\]; got -1"
    ):
        build(-1, 1.0)


@pytest.mark.parametrize(
    ("solver", "status"),
    [
        ("frank_wolfe_away", "numerical_error"),  # overflow in numpy's J at the end
        ("frank_wolfe", "numerical_error"),  # overflow in numpy's iterations
        ("uniform", "numerical_error"),
        ("stochastic_frank_wolfe", "non_finite"),  # compiled: only its result shows the overflow
        ("qp", "solver_error"),  # Clarabel refuses the problem itself
    ],
)
@pytest.mark.parametrize("tau", [1e300, 1e160])
def test_a_solve_that_overflows_is_a_failure_not_converged(solver, status, tau):
    """Before, frank_wolfe_away reported "converged" here with objective inf (only a RuntimeWarning)."""
    with pytest.raises(WeightSolverError) as caught:
        solve_weights(huge_tau_problem(solver, tau), solver)
    assert caught.value.status == status
    assert caught.value.solver.startswith(solver)
    if status != "solver_error":
        assert f"tau={tau!r}" in str(caught.value) and "T=15 trees" in str(caught.value)


def test_qp_claiming_optimal_on_an_overflowing_problem_is_a_failure(monkeypatch):
    """Whatever the backend reports, a J that overflows at its weights is not an optimum."""
    import cvxpy as cp

    def claims_optimal(self, *args, **kwargs):
        (w,) = self.variables()
        w.value = np.full(w.shape, 1.0 / w.shape[0])
        self._status = cp.OPTIMAL

    monkeypatch.setattr(cp.Problem, "solve", claims_optimal)
    monkeypatch.setattr(cp.Problem, "status", property(lambda self: self._status))
    with pytest.raises(WeightSolverError, match=r"overflow encountered") as caught:
        solve_weights(huge_tau_problem("qp"), "qp")
    assert (caught.value.solver, caught.value.status) == ("qp", "numerical_error")


@pytest.mark.parametrize(
    ("field", "value", "named"),
    [("objective", np.inf, "objective"), ("gap", np.nan, "gap"), ("w", np.array([np.nan, 1.0]), "weights")],
)
def test_a_non_finite_result_is_a_failure_whatever_its_status(monkeypatch, field, value, named):
    """Compiled loops ignore numpy's error state: the result itself is checked."""
    from dataclasses import replace

    from disdf import weights

    entry = weights.SOLVER_REGISTRY["frank_wolfe_away"]
    real = entry.function
    wrapped = replace(entry, function=lambda problem, **kw: replace(real(problem, **kw), **{field: value}))
    monkeypatch.setitem(weights.SOLVER_REGISTRY, "frank_wolfe_away", wrapped)
    with pytest.raises(
        WeightSolverError, match=rf"returned non-finite {named} .*status 'converged'"
    ) as caught:
        solve_weights(make_problem(20, 15, 2, 1.0, 1.0, 0.7), "frank_wolfe_away")
    assert (caught.value.solver, caught.value.status) == ("frank_wolfe_away", "non_finite")


def test_disdfs_weight_solves_run_blas_on_one_thread(monkeypatch):
    """The solves are small matrix-vector products run n_jobs at a time: BLAS's own threads would only
    spin beside them (and make the sums' order depend on the machine), so each solve sees one."""
    from threadpoolctl import threadpool_info

    import disdf.cascade._weight_fitting as weight_fitting
    from disdf import DisDFClassifier

    seen: list[int] = []
    solve = weight_fitting.solve_weights

    def watched(*args, **kwargs):
        seen.extend(pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas")
        return solve(*args, **kwargs)

    monkeypatch.setattr(weight_fitting, "solve_weights", watched)
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(90, 5)), np.repeat([0, 1, 2], 30)
    DisDFClassifier(n_trees=5, max_levels=1, n_jobs=2, random_state=0).fit(X, y)
    assert seen and set(seen) == {1}
