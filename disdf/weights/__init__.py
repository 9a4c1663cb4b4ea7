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
    """
    check_solver_options(solver, options)
    if not isinstance(problem, SOLVER_PROBLEM[solver]):
        raise TypeError(
            f"solver {solver!r} reads a {SOLVER_PROBLEM[solver].__name__}; got a {type(problem).__name__}"
        )
    return SOLVERS[solver](problem, w0=w0, **options)


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
