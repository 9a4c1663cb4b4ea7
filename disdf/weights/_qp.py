"""The exact quadratic program (70)-(72), solved by cvxpy."""

from __future__ import annotations

import time
import warnings

import numpy as np

from disdf.weights._problem import WeightProblem
from disdf.weights._result import WeightSolution, WeightSolverError, project_to_simplex_support

QP_SOLVERS = ("CLARABEL", "OSQP")
#: Bytes cvxpy and Clarabel allocate while solving one problem, per byte of its rows Q_ij (measured
#: 30-31 with cvxpy 1.9 on 2,000 and 5,000 rows of 100 trees; the memory check's estimate).
QP_WORKSPACE_PER_Q_BYTE = 32
# OSQP's default tolerances (1e-3) are too loose to serve as a reference optimum.
_SOLVER_OPTIONS = {
    "CLARABEL": {},
    "OSQP": {"eps_abs": 1e-9, "eps_rel": 1e-9, "max_iter": 200_000, "polishing": True},
}


def qp(
    problem: WeightProblem,
    *,
    qp_solver: str = "CLARABEL",
    time_limit: float | None = None,
    max_iter: int | None = None,
    verbose: bool = False,
    w0: np.ndarray | None = None,
) -> WeightSolution:
    """Solve eq. (70)-(72) exactly (from scratch: a start ``w0`` is accepted and not used).

    ``time_limit`` (seconds) and ``max_iter`` cap the solver; reaching either
    ends in status ``"user_limit"``, which is an error like any non-optimal status.

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
        # margins: tau, or tau sqrt(c_ij) against weighted pairs' rows sqrt(c_ij) Q_ij (eq. (72))
        objective = objective + cp.sum_squares(cp.pos(problem.margins - problem.stats.q @ w))
    cvx_problem = cp.Problem(cp.Minimize(objective), [w >= 0, cp.sum(w) == 1])
    size = f"T={n_trees} trees, {n_pairs} different-class pairs"
    options = dict(_SOLVER_OPTIONS[name])
    if time_limit is not None:
        options["time_limit"] = float(time_limit)
    if max_iter is not None:
        options["max_iter"] = int(max_iter)
    try:
        with warnings.catch_warnings():
            # cvxpy warns on inaccurate solutions; any non-optimal status raises below instead.
            warnings.filterwarnings("ignore", message="Solution may be inaccurate", category=UserWarning)
            cvx_problem.solve(solver=name, verbose=verbose, **options)
    except cp.error.SolverError as exc:
        raise WeightSolverError(
            f"qp solver {name} failed on a problem with {size}: {exc}",
            solver=f"qp:{name}",
            status="solver_error",
        ) from exc
    if cvx_problem.status != cp.OPTIMAL or w.value is None:
        raise WeightSolverError(
            f"qp solver {name} ended with status {cvx_problem.status!r} on a problem with {size}",
            solver=f"qp:{name}",
            status=str(cvx_problem.status),
        )
    try:
        weights = project_to_simplex_support(w.value)
    except WeightSolverError as exc:
        raise WeightSolverError(f"qp solver {name}: {exc}", solver=f"qp:{name}", status=exc.status) from exc
    stats = cvx_problem.solver_stats
    return WeightSolution.at(
        problem,
        weights,
        n_iter=int(getattr(stats, "num_iters", None) or 0),  # a backend may report no stats
        started=start,
        status=str(cvx_problem.status),
        solver=f"qp:{name}",
    )
