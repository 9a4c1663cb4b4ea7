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
from disdf.weights.stochastic_frank_wolfe import stochastic_frank_wolfe


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

#: Solvers that draw different-class pairs instead of reading all of them: they take the
#: held-out tree probabilities and labels, never a :class:`PairStatistics` (whose Q has
#: n^2/2 rows), so they run where the exact solvers cannot hold the problem.
PAIR_SAMPLING_SOLVERS: dict[str, Callable[..., WeightSolution]] = {
    "stochastic_frank_wolfe": stochastic_frank_wolfe,
}

# Solvers that accept a warm start ``w0``.
WARM_STARTABLE = frozenset({"frank_wolfe_away", "frank_wolfe", "stochastic_frank_wolfe"})

# Arguments a caller supplies, not options: the problem, the start, and the pair draws' seed.
_NOT_OPTIONS = {"problem", "w0", "tree_probabilities", "y", "lambda_", "tau", "random_state"}


#: Each solver's options and their types and ranges (checked before any work; a test keeps this
#: table equal to the solvers' signatures).
SOLVER_OPTIONS: dict[str, dict[str, Constraint]] = {
    "frank_wolfe_away": {
        "tol": Float(0.0, low_open=True),
        "max_iter": Integer(1),
        "newton_every": Integer(0),  # 0: no Newton steps on the support
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
    solvers = {**SOLVERS, **PAIR_SAMPLING_SOLVERS}
    if solver not in solvers:
        raise ValueError(f"Unknown weight solver {solver!r}; expected one of {sorted(solvers)}")
    accepted = SOLVER_OPTIONS[solver]
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        raise ValueError(
            f"Invalid solver_options {unknown} for solver {solver!r}; it accepts {sorted(accepted)}"
        )
    check_parameters(f"solver {solver!r}", accepted, options)


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
    check_solver_options(solver, options)
    if w0 is not None and solver in WARM_STARTABLE:
        options["w0"] = w0
    return SOLVERS[solver](problem, **options)


def solve_weights_from_pair_draws(
    tree_probabilities: np.ndarray,
    y: np.ndarray,
    lambda_: float,
    tau: float,
    solver: str = "stochastic_frank_wolfe",
    w0: np.ndarray | None = None,
    random_state: int | None = 0,
    **options,
) -> WeightSolution:
    """Minimise J(w) of eq. (70)-(72) with a pair-sampling solver, from per-tree probabilities (n, T, C)."""
    check_solver_options(solver, options)
    return PAIR_SAMPLING_SOLVERS[solver](
        tree_probabilities, y, lambda_, tau, w0=w0, random_state=random_state, **options
    )


__all__ = [
    "PAIR_SAMPLING_SOLVERS",
    "SOLVERS",
    "PairStatistics",
    "WeightProblem",
    "WeightSolution",
    "WeightSolverError",
    "check_solver_options",
    "frank_wolfe",
    "frank_wolfe_away",
    "qp",
    "solve_weights",
    "solve_weights_from_pair_draws",
    "stochastic_frank_wolfe",
    "uniform",
]
