"""The weight solvers, one registry entry each: the function, the problem it reads, its options.

Every solver is ``function(problem, *, w0=None, **options) -> WeightSolution`` and
minimises J(w) of eq. (70)-(72) over the unit simplex. The problem is the exact
pair statistics (:class:`~disdf.WeightProblem`: pi and every
Q_ij row, n^2/2 of them) or pair draws from the held-out probabilities
(:class:`~disdf.SampledWeightProblem`), for
held-out sets too large to list their pairs. The options table gives each
option's type and range (:mod:`disdf._utils.parameters`), checked before any work; a
test keeps it equal to the function's keyword arguments.

The estimator's parameters that name a solver, its options and its fallback are
checked by the constraints here (:class:`SolverName`, :class:`SolverOptions`,
:class:`SolverFallback`), from the same entries.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from disdf._utils.parameters import (
    Boolean,
    Constraint,
    Float,
    Integer,
    InvalidParameterError,
    OneOf,
    check_parameters,
)
from disdf.weights._frank_wolfe import frank_wolfe, frank_wolfe_away
from disdf.weights._problem import WeightProblem
from disdf.weights._qp import QP_SOLVERS, qp
from disdf.weights._result import WeightSolution
from disdf.weights._stochastic_frank_wolfe import SampledWeightProblem, stochastic_frank_wolfe
from disdf.weights._uniform import uniform

#: Arguments every solver takes that are not options: the problem and the start.
NOT_OPTIONS = frozenset({"problem", "w0"})


@dataclass(frozen=True)
class SolverEntry:
    """One weight solver: what to call, the kind of problem it reads, and its options' constraints."""

    function: Callable[..., WeightSolution]
    problem: type
    options: Mapping[str, Constraint]

    def __post_init__(self) -> None:
        object.__setattr__(self, "options", MappingProxyType(dict(self.options)))  # read-only

    @property
    def exact(self) -> bool:
        """Whether it reads the exact pair statistics (pi and every Q_ij) rather than pair draws."""
        return self.problem is WeightProblem


#: Every weight solver by name: its function, the problem it reads and its options' constraints.
SOLVER_REGISTRY: dict[str, SolverEntry] = {
    "frank_wolfe_away": SolverEntry(
        frank_wolfe_away,
        WeightProblem,
        {
            "tol": Float(0.0, low_open=True),
            "max_iter": Integer(1),
            "newton_every": Integer(0),  # 0: no Newton steps
            "newton_adds_trees": Boolean(),
        },
    ),
    "frank_wolfe": SolverEntry(
        frank_wolfe, WeightProblem, {"max_iter": Integer(1), "gradient": OneOf(("true", "printed"))}
    ),
    "qp": SolverEntry(
        qp,
        WeightProblem,
        {
            "qp_solver": OneOf((*QP_SOLVERS, *(name.lower() for name in QP_SOLVERS))),
            "time_limit": Float(0.0, low_open=True, none=True),
            "max_iter": Integer(1, none=True),
            "verbose": Boolean(),
        },
    ),
    "uniform": SolverEntry(uniform, WeightProblem, {}),
    "stochastic_frank_wolfe": SolverEntry(
        stochastic_frank_wolfe, SampledWeightProblem, {"batch_size": Integer(1), "max_iter": Integer(1)}
    ),
}


def reads_pair_statistics(solver: str) -> bool:
    """Whether ``solver`` reads the exact pair statistics (pi and every Q_ij) rather than pair draws."""
    return SOLVER_REGISTRY[solver].exact


def exact_solvers() -> list[str]:
    """The solvers that read the exact pair statistics, sorted (those a fallback may name)."""
    return sorted(name for name, entry in SOLVER_REGISTRY.items() if entry.exact)


def check_solver_options(solver: str, options: Mapping[str, Any]) -> None:
    """Raise naming an unknown solver, any option the solver does not take, or an option of the
    wrong type or range."""
    if not (isinstance(solver, str) and solver in SOLVER_REGISTRY):
        raise InvalidParameterError(
            f"Unknown weight solver {solver!r}; expected one of {sorted(SOLVER_REGISTRY)}"
        )
    accepted = SOLVER_REGISTRY[solver].options
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        raise InvalidParameterError(
            f"Invalid solver_options {unknown} for solver {solver!r}; it accepts {sorted(accepted)}"
        )
    check_parameters(f"solver {solver!r}", accepted, options)


@dataclass(frozen=True)
class SolverName(Constraint):
    """The name of a registered weight solver."""

    def check(self, owner: str, name: str, value: Any) -> None:
        if not (isinstance(value, str) and value in SOLVER_REGISTRY):
            raise InvalidParameterError(
                f"Unknown {name} {value!r}; expected one of {sorted(SOLVER_REGISTRY)}"
            )


@dataclass(frozen=True)
class SolverOptions(Constraint):
    """A dict of options (or None: none) that the solver named by the parameter ``solver`` takes, each
    of its type and range in the solver's entry."""

    solver: str = "solver"

    @property
    def reads(self) -> tuple[str, ...]:
        return (self.solver,)

    def check_in(self, owner: str, name: str, params: Mapping[str, Any]) -> None:
        options = params[name]
        if options is not None and not isinstance(options, Mapping):
            raise InvalidParameterError(f"{name} must be a dict or None; got {options!r}")
        check_solver_options(params[self.solver], options or {})


@dataclass(frozen=True)
class SolverFallback(Constraint):
    """None, or an exact solver other than the parameter ``solver``'s, to solve what it failed on.

    Only the exact solvers fail (a cvxpy status, a non-finite result) and serve as a fallback: a
    solver that draws pairs takes None.
    """

    solver: str = "solver"

    @property
    def reads(self) -> tuple[str, ...]:
        return (self.solver,)

    def check_in(self, owner: str, name: str, params: Mapping[str, Any]) -> None:
        fallback, solver = params[name], params[self.solver]
        if fallback is None:
            return
        if not reads_pair_statistics(solver):
            raise InvalidParameterError(
                f"{name} must be None with {self.solver}={solver!r}: it draws pairs and does not fail "
                f"the way the exact solvers do; got {name}={fallback!r}"
            )
        if not (isinstance(fallback, str) and fallback in exact_solvers()) or fallback == solver:
            raise InvalidParameterError(
                f"{name} must be None or a solver other than {self.solver}={solver!r} from "
                f"{exact_solvers()}; got {fallback!r}"
            )
