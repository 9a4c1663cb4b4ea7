"""What every weight solver returns, and the error it raises."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass

import numpy as np


class WeightSolverError(RuntimeError):
    """A weight solver could not return a trustworthy optimum.

    ``solver`` and ``status`` say which solver failed and how (a cvxpy status
    such as ``"user_limit"``, or ``"solver_error"`` when it raised).
    """

    def __init__(self, message: str, solver: str = "unknown", status: str = "unknown") -> None:
        super().__init__(message)
        self.solver = solver
        self.status = status

    def __reduce__(self):  # keep solver and status across process boundaries (joblib workers)
        return type(self), (str(self), self.solver, self.status)


@dataclass(frozen=True)
class WeightSolution:
    """Tree weights w on the unit simplex (eq. (42)) and how they were found.

    ``gap`` is the Frank-Wolfe duality gap at ``w`` under the true gradient,
    an upper bound on ``objective - min J``; ``relative_gap = gap / objective``.
    """

    w: np.ndarray
    objective: float
    gap: float
    n_iter: int
    seconds: float
    status: str
    solver: str
    #: Set when this solution comes from a fallback solver: why the configured one failed.
    fallback_reason: str | None = None

    @classmethod
    def at(
        cls, problem, w: np.ndarray, *, n_iter: int, started: float, status: str, solver: str
    ) -> WeightSolution:
        """The solution ``w`` of an exact ``problem`` (a :class:`~disdf.weights.WeightProblem`):
        J(w) of eq. (70)-(72) and its duality gap evaluated there, the seconds since ``started``
        (a :func:`time.perf_counter` reading)."""
        objective, gap = problem.objective(w), problem.duality_gap(w)
        return cls(w, objective, gap, n_iter, time.perf_counter() - started, status, solver)

    @property
    def relative_gap(self) -> float:
        if self.objective > 0:
            return self.gap / self.objective
        return 0.0 if self.gap <= 0 else float("inf")

    def diagnostics(self) -> dict:
        """The scalar fields, for logs and result records."""
        out = asdict(self)
        del out["w"]
        out["relative_gap"] = self.relative_gap
        return out


def project_to_simplex_support(w: np.ndarray) -> np.ndarray:
    """Clip round-off negatives and renormalise a near-simplex vector."""
    w = np.maximum(np.asarray(w, dtype=float), 0.0)
    total = w.sum()
    if not np.isfinite(total) or total <= 0:
        raise WeightSolverError(
            f"solver returned weights that cannot be normalised (sum={total})", status="invalid_weights"
        )
    return w / total
