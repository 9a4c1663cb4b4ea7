"""Learning the tree weights of one DisDF forest (sections 4-5 of the paper)."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from disdf.weights.frank_wolfe import frank_wolfe, frank_wolfe_away
from disdf.weights.problem import PairStatistics, WeightProblem
from disdf.weights.qp import qp
from disdf.weights.result import WeightSolution, WeightSolverError


def uniform(problem: WeightProblem) -> WeightSolution:
    """w = 1/T: the plain average of gcForest, eq. (36)."""
    start = time.perf_counter()
    w = np.full(problem.n_trees, 1.0 / problem.n_trees)
    return WeightSolution(
        w=w,
        objective=problem.objective(w),
        gap=problem.duality_gap(w),
        n_iter=0,
        seconds=time.perf_counter() - start,
        status="uniform",
        solver="uniform",
    )


SOLVERS: dict[str, Callable[..., WeightSolution]] = {
    "frank_wolfe_away": frank_wolfe_away,
    "frank_wolfe": frank_wolfe,
    "qp": qp,
    "uniform": uniform,
}

# Solvers that accept a warm start ``w0``.
WARM_STARTABLE = frozenset({"frank_wolfe_away", "frank_wolfe"})


def solve_weights(
    problem: WeightProblem,
    solver: str = "frank_wolfe_away",
    w0: np.ndarray | None = None,
    **options,
) -> WeightSolution:
    """Minimise J(w) of eq. (70)-(72) over the unit simplex with the named solver.

    ``options`` are passed to the solver (``tol``, ``max_iter``, ``gradient``,
    ``qp_solver``); ``w0`` warm-starts the solvers that support it.
    """
    if solver not in SOLVERS:
        raise ValueError(f"Unknown weight solver {solver!r}; expected one of {sorted(SOLVERS)}")
    if w0 is not None and solver in WARM_STARTABLE:
        options["w0"] = w0
    try:
        return SOLVERS[solver](problem, **options)
    except TypeError as exc:
        raise ValueError(f"Invalid solver_options {sorted(options)} for solver {solver!r}: {exc}") from exc


__all__ = [
    "PairStatistics",
    "SOLVERS",
    "WeightProblem",
    "WeightSolution",
    "WeightSolverError",
    "frank_wolfe",
    "frank_wolfe_away",
    "qp",
    "solve_weights",
    "uniform",
]
