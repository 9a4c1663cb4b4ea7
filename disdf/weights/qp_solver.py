"""The exact quadratic program (70)-(72), solved by cvxpy."""

from __future__ import annotations

import time

from disdf.weights.problem import WeightProblem
from disdf.weights.result import WeightSolution, WeightSolverError, project_to_simplex_support

QP_SOLVERS = ("CLARABEL", "OSQP")
# OSQP's default tolerances (1e-3) are too loose to serve as a reference optimum.
_SOLVER_OPTIONS = {
    "CLARABEL": {},
    "OSQP": {"eps_abs": 1e-9, "eps_rel": 1e-9, "max_iter": 200_000, "polishing": True},
}


def qp(problem: WeightProblem, *, qp_solver: str = "CLARABEL", verbose: bool = False) -> WeightSolution:
    """Solve eq. (70)-(72) exactly.

    The slack variables alpha_ij of eq. (72) are introduced by cvxpy's
    canonicalisation of ``pos(tau - Q w)``; the problem handed to the solver is
    the QP of the paper.

    Raises
    ------
    WeightSolverError
        If the solver fails or ends in any status but ``optimal``; the message
        names the solver, the status and the problem size.
    """
    import cvxpy as cp

    name = qp_solver.upper()
    if name not in QP_SOLVERS:
        raise ValueError(f"qp_solver must be one of {QP_SOLVERS}; got {qp_solver!r}")
    start = time.perf_counter()
    n_trees, n_pairs = problem.n_trees, problem.stats.n_pairs
    w = cp.Variable(n_trees)
    objective = cp.sum(cp.multiply(problem.quadratic, cp.square(w)))
    if n_pairs:
        objective = objective + cp.sum_squares(cp.pos(problem.tau - problem.stats.q @ w))
    cvx_problem = cp.Problem(cp.Minimize(objective), [w >= 0, cp.sum(w) == 1])
    size = f"T={n_trees} trees, {n_pairs} different-class pairs"
    try:
        cvx_problem.solve(solver=name, verbose=verbose, **_SOLVER_OPTIONS[name])
    except cp.error.SolverError as exc:
        raise WeightSolverError(f"qp solver {name} failed on a problem with {size}: {exc}") from exc
    if cvx_problem.status != cp.OPTIMAL or w.value is None:
        raise WeightSolverError(
            f"qp solver {name} ended with status {cvx_problem.status!r} on a problem with {size}"
        )
    weights = project_to_simplex_support(w.value)
    stats = cvx_problem.solver_stats
    return WeightSolution(
        w=weights,
        objective=problem.objective(weights),
        gap=problem.duality_gap(weights),
        n_iter=int(stats.num_iters or 0),
        seconds=time.perf_counter() - start,
        status=str(cvx_problem.status),
        solver=f"qp:{name}",
    )
