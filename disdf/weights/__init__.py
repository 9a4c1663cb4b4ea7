"""Learning the tree weights of one DisDF forest (sections 4-5 of the paper).

Each solver is one entry of :data:`~disdf.weights.SOLVER_REGISTRY` (its function, the
problem it reads, its options); :func:`solve_weights` runs one and checks what it gives.
"""

from __future__ import annotations

import numpy as np

from disdf.weights._drawn_pairs import (
    AUTO_MAX_PAIRS,
    MaxPairs,
    different_class_pair_count,
    drawn_pair_statistics,
    pair_cap,
)
from disdf.weights._frank_wolfe import frank_wolfe, frank_wolfe_away
from disdf.weights._problem import LAMBDA, LAMBDA_MAX, TAU, TAU_MAX, PairStatistics, WeightProblem
from disdf.weights._qp import qp
from disdf.weights._registry import (
    SOLVER_REGISTRY,
    SolverEntry,
    SolverFallback,
    SolverName,
    SolverOptions,
    check_solver_options,
    reads_pair_statistics,
)
from disdf.weights._result import WeightSolution, WeightSolverError
from disdf.weights._stochastic_frank_wolfe import OneHotVectors, SampledWeightProblem, stochastic_frank_wolfe
from disdf.weights._synthetic import random_pair_statistics
from disdf.weights._uniform import uniform


def solve_weights(
    problem: WeightProblem | SampledWeightProblem,
    solver: str = "frank_wolfe_away",
    w0: np.ndarray | None = None,
    **options,
) -> WeightSolution:
    """Minimise J(w) of eq. (70)-(72) over the unit simplex with the named solver.

    ``problem`` is the kind the solver reads and ``options`` are checked
    against its options table (its entry in :data:`~disdf.weights.SOLVER_REGISTRY`); ``w0``
    warm-starts the iterative solvers.

    Every solve goes through here, and its numbers are checked, not trusted: a
    floating-point overflow or invalid value during the solve raises
    :class:`WeightSolverError` with status ``"numerical_error"``, and weights,
    objective or gap that are not finite afterwards (compiled code does not
    report overflow) raise it with status ``"non_finite"``.
    """
    check_solver_options(solver, options)
    entry = SOLVER_REGISTRY[solver]
    if not isinstance(problem, entry.problem):
        raise TypeError(f"solver {solver!r} reads a {entry.problem.__name__}; got a {type(problem).__name__}")
    try:
        # J and its gradient are sums of squares and products of finite data: an overflow or an
        # invalid value (inf - inf) means they left float64, and whatever status the solver would
        # report is not about J. Division by zero is left as it was: the code guards it itself.
        with np.errstate(over="raise", invalid="raise"):
            solution = entry.function(problem, w0=w0, **options)
    except FloatingPointError as error:
        raise WeightSolverError(
            f"solver {solver!r} hit a floating-point error ({error}) on {_describe(problem)}: "
            "J of eq. (70)-(72) or its gradient is not finite in float64",
            solver=solver,
            status="numerical_error",
        ) from error
    _check_finite(solution, problem)
    return solution


def _describe(problem: WeightProblem | SampledWeightProblem) -> str:
    """The problem's size and hyper-parameters, for error messages."""
    pairs = f", {problem.stats.n_pairs} different-class pairs" if isinstance(problem, WeightProblem) else ""
    settings = f"lambda_={problem.lambda_!r}, tau={problem.tau!r}"
    return f"a problem with T={problem.n_trees} trees{pairs}, {settings}"


def _check_finite(solution: WeightSolution, problem: WeightProblem | SampledWeightProblem) -> None:
    """Raise unless the weights, the objective and the gap are all finite (the numba loops and
    cvxpy's solvers run outside numpy's error state: their overflow only shows in the result)."""
    fields: dict[str, np.ndarray | float] = {
        "weights": solution.w,
        "objective": solution.objective,
        "gap": solution.gap,
    }
    bad = [name for name, value in fields.items() if not np.all(np.isfinite(value))]
    if bad:
        raise WeightSolverError(
            f"solver {solution.solver!r} returned non-finite {' and '.join(bad)} "
            f"(objective={solution.objective!r}, gap={solution.gap!r}, status {solution.status!r}) "
            f"on {_describe(problem)}",
            solver=solution.solver,
            status="non_finite",
        )


__all__ = [
    "AUTO_MAX_PAIRS",
    "LAMBDA",
    "LAMBDA_MAX",
    "SOLVER_REGISTRY",
    "TAU",
    "TAU_MAX",
    "MaxPairs",
    "OneHotVectors",
    "PairStatistics",
    "SampledWeightProblem",
    "SolverEntry",
    "SolverFallback",
    "SolverName",
    "SolverOptions",
    "WeightProblem",
    "WeightSolution",
    "WeightSolverError",
    "check_solver_options",
    "different_class_pair_count",
    "drawn_pair_statistics",
    "frank_wolfe",
    "frank_wolfe_away",
    "pair_cap",
    "qp",
    "random_pair_statistics",
    "reads_pair_statistics",
    "solve_weights",
    "stochastic_frank_wolfe",
    "uniform",
]
