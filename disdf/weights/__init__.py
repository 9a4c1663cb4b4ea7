"""Learning the tree weights of one DisDF forest (sections 4-5 of the paper)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from disdf.parameters import Boolean, Constraint, Float, Integer, OneOf, check_parameters
from disdf.weights.frank_wolfe_solvers import frank_wolfe, frank_wolfe_away
from disdf.weights.problem import PairStatistics, WeightProblem
from disdf.weights.qp_solver import QP_SOLVERS, qp
from disdf.weights.result import WeightSolution, WeightSolverError
from disdf.weights.stochastic_frank_wolfe import SampledWeightProblem, stochastic_frank_wolfe


def uniform(problem: WeightProblem, *, w0: np.ndarray | None = None) -> WeightSolution:
    """w = 1/T: the plain average of gcForest, eq. (36) (``w0`` is not used)."""
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


#: Every solver is ``solver(problem, *, w0=None, **options) -> WeightSolution``.
SOLVERS: dict[str, Callable[..., WeightSolution]] = {
    "frank_wolfe_away": frank_wolfe_away,
    "frank_wolfe": frank_wolfe,
    "qp": qp,
    "uniform": uniform,
    "stochastic_frank_wolfe": stochastic_frank_wolfe,
}

#: The problem each solver reads: the exact pair statistics (every Q_ij row, n^2/2 of them), or
#: pair draws from the held-out probabilities, for held-out sets too large to list their pairs.
SOLVER_PROBLEM: dict[str, type] = {
    "frank_wolfe_away": WeightProblem,
    "frank_wolfe": WeightProblem,
    "qp": WeightProblem,
    "uniform": WeightProblem,
    "stochastic_frank_wolfe": SampledWeightProblem,
}

# Arguments every solver takes that are not options: the problem and the start.
_NOT_OPTIONS = {"problem", "w0"}


def reads_pair_statistics(solver: str) -> bool:
    """Whether ``solver`` reads the exact pair statistics (pi and every Q_ij) rather than pair draws."""
    return SOLVER_PROBLEM[solver] is WeightProblem


#: Each solver's options and their types and ranges (checked before any work; a test keeps this
#: table equal to the solvers' signatures).
SOLVER_OPTIONS: dict[str, dict[str, Constraint]] = {
    "frank_wolfe_away": {
        "tol": Float(0.0, low_open=True),
        "max_iter": Integer(1),
        "newton_every": Integer(0),  # 0: no Newton steps
        "newton_adds_trees": Boolean(),
    },
    "frank_wolfe": {"max_iter": Integer(1), "gradient": OneOf(("true", "printed"))},
    "qp": {
        "qp_solver": OneOf((*QP_SOLVERS, *(name.lower() for name in QP_SOLVERS))),
        "time_limit": Float(0.0, low_open=True, none=True),
        "max_iter": Integer(1, none=True),
        "verbose": Boolean(),
    },
    "uniform": {},
    "stochastic_frank_wolfe": {"batch_size": Integer(1), "max_iter": Integer(1)},
}


def check_solver_options(solver: str, options: Mapping[str, Any]) -> None:
    """Raise naming any option the solver does not take, or an option of the wrong type or range."""
    if solver not in SOLVERS:
        raise ValueError(f"Unknown weight solver {solver!r}; expected one of {sorted(SOLVERS)}")
    accepted = SOLVER_OPTIONS[solver]
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        raise ValueError(
            f"Invalid solver_options {unknown} for solver {solver!r}; it accepts {sorted(accepted)}"
        )
    check_parameters(f"solver {solver!r}", accepted, options)


def solve_weights(
    problem: WeightProblem | SampledWeightProblem,
    solver: str = "frank_wolfe_away",
    w0: np.ndarray | None = None,
    **options,
) -> WeightSolution:
    """Minimise J(w) of eq. (70)-(72) over the unit simplex with the named solver.

    ``problem`` is the kind the solver reads (:data:`SOLVER_PROBLEM`);
    ``options`` are checked against :data:`SOLVER_OPTIONS`; ``w0`` warm-starts
    the iterative solvers.

    Every solve goes through here, and its numbers are checked, not trusted: a
    floating-point overflow or invalid value during the solve raises
    :class:`WeightSolverError` with status ``"numerical_error"``, and weights,
    objective or gap that are not finite afterwards (compiled code does not
    report overflow) raise it with status ``"non_finite"``.
    """
    check_solver_options(solver, options)
    if not isinstance(problem, SOLVER_PROBLEM[solver]):
        raise TypeError(
            f"solver {solver!r} reads a {SOLVER_PROBLEM[solver].__name__}; got a {type(problem).__name__}"
        )
    try:
        # J and its gradient are sums of squares and products of finite data: an overflow or an
        # invalid value (inf - inf) means they left float64, and whatever status the solver would
        # report is not about J. Division by zero is left as it was: the code guards it itself.
        with np.errstate(over="raise", invalid="raise"):
            solution = SOLVERS[solver](problem, w0=w0, **options)
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
    fields = {"weights": solution.w, "objective": solution.objective, "gap": solution.gap}
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
    "SOLVERS",
    "SOLVER_OPTIONS",
    "SOLVER_PROBLEM",
    "PairStatistics",
    "SampledWeightProblem",
    "WeightProblem",
    "WeightSolution",
    "WeightSolverError",
    "check_solver_options",
    "frank_wolfe",
    "frank_wolfe_away",
    "qp",
    "reads_pair_statistics",
    "solve_weights",
    "stochastic_frank_wolfe",
    "uniform",
]
