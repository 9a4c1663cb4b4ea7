"""Frank-Wolfe solvers for the DisDF weight problem on the unit simplex.

* :func:`frank_wolfe` is Algorithm 3 of the paper as printed: move towards the
  simplex vertex of the smallest gradient coordinate with step 2 / (s + 2),
  for a fixed number S of iterations.
* :func:`frank_wolfe_away` adds away steps and an exact line search, which
  gives linear convergence on this strongly convex problem (Lacoste-Julien &
  Jaggi, 2015), and stops on the duality gap. Every ``newton_every``
  iterations it also tries a step towards the exact minimiser of J on the
  current support, together with the trees a Frank-Wolfe step could add, and
  set of active hinges (:func:`~disdf.weights._frank_wolfe.support_newton_target`); the step is
  line-searched and kept feasible, so the duality-gap certificate is
  unchanged, but the iterations needed drop from hundreds to a few when the
  optimum has many trees in its support.

Both keep ``Qw = Q @ w`` up to date incrementally: a step towards or away from
a vertex changes it by ``gamma * (Q[:, t] - Qw)``, O(n_pairs) instead of
O(n_pairs * T).

Weighted examples change no step: the problem's rows are then sqrt(c_ij) Q_ij and its margins
tau sqrt(c_ij) (:mod:`disdf.weights._problem`), which the iterations read in place of Q and tau.
"""

from __future__ import annotations

import time

import numpy as np
import scipy.linalg

from disdf._utils.tree_weights import uniform_weights
from disdf.weights._problem import WeightProblem
from disdf.weights._result import WeightSolution

# Recompute Qw from scratch this often, so incremental round-off cannot build up.
_REFRESH_EVERY = 200
# Absolute floor on the stopping gap, for problems whose optimum is J = 0.
_GAP_FLOOR = 1e-13


def _initial_weights(problem: WeightProblem, w0: np.ndarray | None, default: np.ndarray) -> np.ndarray:
    if w0 is None:
        return default
    w0 = np.asarray(w0, dtype=float)
    if w0.shape != (problem.n_trees,) or np.any(w0 < 0) or not np.isclose(w0.sum(), 1.0):
        raise ValueError(
            f"w0 must be a point of the unit simplex with {problem.n_trees} entries; "
            f"got shape {w0.shape}, min {w0.min() if w0.size else 'n/a'}, sum {w0.sum()}"
        )
    return w0 / w0.sum()


def support_newton_target(
    problem: WeightProblem, w: np.ndarray, slacks: np.ndarray, candidates: np.ndarray | None = None
) -> np.ndarray:
    """The minimiser of J on a set of trees with the active hinges fixed, projected on the simplex.

    The set S is ``candidates`` (a boolean mask over the trees), by default the
    support of w. With A the pairs whose hinge is active (S_ij > 0), on S J is
    the quadratic ``sum_S c_t w_t^2 + ||tau - Q_AS w_S||^2``; its minimiser on
    sum w = 1 solves (C + Q_AS^T Q_AS) w = tau Q_AS^T 1 + (nu / 2) 1 (tau 1: the margins of A). The
    system is solved with the Woodbury identity when ``|A| < |S|`` and C > 0
    (C is diagonal), else directly.

    It runs every few Frank-Wolfe iterations on small matrices (tens of pairs), so the
    steps around the products are compiled or call LAPACK directly; every number is the
    one ``np.ix_``, ``np.stack`` and ``scipy.linalg.solve`` gave (tested).
    """
    from disdf.weights._frank_wolfe_kernels import project_to_simplex, submatrix

    support = np.flatnonzero(w > 0 if candidates is None else candidates)
    active = np.flatnonzero(slacks > 0)
    c = problem.quadratic[support]
    q_as = submatrix(problem.stats.q, active, support)
    rhs = np.empty((support.size, 2))
    scale = problem.stats.pair_scale
    if scale is None:
        rhs[:, 0] = problem.tau * q_as.sum(axis=0)
    else:  # weighted pairs: each active row's own margin tau sqrt(c_ij)
        rhs[:, 0] = (problem.tau * scale[active]) @ q_as
    rhs[:, 1] = 1.0
    if active.size < support.size and np.all(c > 0):
        c_inv_rhs = rhs / c[:, None]
        capacitance = np.eye(active.size) + (q_as / c) @ q_as.T
        correction = _solve_positive_definite(capacitance, q_as @ c_inv_rhs)
        solved = c_inv_rhs - (q_as.T @ correction) / c[:, None]
    else:
        system = q_as.T @ q_as
        system[np.diag_indices_from(system)] += c
        try:
            solved = _solve_positive_definite(system, rhs)
        except (np.linalg.LinAlgError, scipy.linalg.LinAlgError):
            # Singular only when some pi_t + lambda = 0 (lambda = 0 and a tree
            # that never separates a same-class pair); any solution will do.
            solved = scipy.linalg.lstsq(system, rhs)[0]
    a, b = solved[:, 0], solved[:, 1]
    target = a + (1.0 - a.sum()) / b.sum() * b
    # The minimiser may leave the simplex; its projection zeroes every such
    # coordinate at once, and the segment from w to it stays feasible.
    projected = np.zeros_like(w)
    projected[support] = project_to_simplex(target)
    return projected


_POSV = scipy.linalg.get_lapack_funcs("posv", (np.empty((2, 2)),))


def _solve_positive_definite(matrix: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """``scipy.linalg.solve(matrix, rhs, assume_a="pos")``, bit for bit, at a tenth of its overhead.

    That is LAPACK's posv on the upper triangle (a 1 x 1 matrix: a division); anything
    unusual (not positive definite, not finite) goes through scipy, which raises as before.
    """
    if matrix.size == 0:
        return np.empty_like(rhs)
    if matrix.shape[0] == 1:
        return rhs / matrix
    _, solution, info = _POSV(matrix, rhs, lower=0)
    if info != 0 or not np.isfinite(solution).all():
        return scipy.linalg.solve(matrix, rhs, assume_a="pos")
    return solution


def _newton_step(
    problem: WeightProblem,
    q: np.ndarray,
    c: np.ndarray,
    w: np.ndarray,
    qw: np.ndarray,
    slacks: np.ndarray,
    gradient: np.ndarray,
    adds_trees: bool,
) -> float:
    """One Newton step of :func:`frank_wolfe_away` from w, with ``slacks`` and ``gradient`` at w:
    towards :func:`~disdf.weights._frank_wolfe.support_newton_target` of the support (and, with
    ``adds_trees``, of every tree whose gradient is below <grad J(w), w>), as far as the exact line
    search goes on [0, 1].
    Moves w and Q w in place; returns the step length (0: no move)."""
    from disdf.weights._frank_wolfe_kernels import exact_line_search

    candidates = w > 0
    if adds_trees:
        candidates |= gradient < gradient @ w
    target = support_newton_target(problem, w, slacks, candidates)
    direction = target - w
    q_direction = q @ direction
    gamma = exact_line_search(c, w, direction, slacks, q_direction, 1.0)
    if gamma >= 1.0:
        w[:] = target
        qw += q_direction
    elif gamma > 0.0:
        w += gamma * direction
        qw += gamma * q_direction
        np.maximum(w, 0.0, out=w)
    return gamma


def frank_wolfe_away(
    problem: WeightProblem,
    *,
    tol: float = 1e-6,
    max_iter: int = 20_000,
    newton_every: int = 1,
    newton_adds_trees: bool = True,
    w0: np.ndarray | None = None,
) -> WeightSolution:
    """Away-step Frank-Wolfe with exact line search (the default solver).

    Stops when the duality gap is at most ``tol * J(w)`` (a relative bound on
    the distance to the optimum) or after ``max_iter`` iterations. Without a
    warm start ``w0`` it starts from the minimiser of the quadratic part,
    which is already optimal when no hinge is active there. The iterations
    run compiled (:func:`~disdf.weights._frank_wolfe_kernels.frank_wolfe_steps`), the Newton steps
    in numpy (:func:`_newton_step`).

    Every ``newton_every`` iterations (0: never, plain away-step Frank-Wolfe)
    it tries a Newton step (:func:`~disdf.weights._frank_wolfe.support_newton_target`). With
    ``newton_adds_trees`` its trees are the support and every tree whose
    gradient is below <grad J(w), w>, the trees a Frank-Wolfe step could add:
    the optimum of eq. (70)-(72) has most trees in its support, and Frank-Wolfe
    adds them one per iteration (hundreds of iterations for T = 1000), a Newton
    step all at once. Else its trees are the support only.
    """
    import disdf.weights._frank_wolfe_kernels as kernels  # numba loads at the first solve

    start = time.perf_counter()
    q = np.ascontiguousarray(problem.stats.q, dtype=np.float64)
    c = np.ascontiguousarray(problem.quadratic, dtype=np.float64)
    w = np.array(_initial_weights(problem, w0, problem.quadratic_minimizer()), dtype=np.float64)
    # one margin per pair: tau for each (the same slacks, bit for bit, as tau itself), or weighted
    margins = np.ascontiguousarray(np.broadcast_to(problem.margins, q.shape[:1]), dtype=np.float64)
    qw = np.empty(q.shape[0])  # Q w: the first iteration computes it (n_iter 0 refreshes)
    slacks, gradient = np.empty(q.shape[0]), np.empty(q.shape[1])  # at w, when a Newton step is due
    n_iter = 0
    next_newton, interval = 0, newton_every
    while True:
        stop_iter = min(max_iter, next_newton) if newton_every else max_iter
        n_iter, stopped = kernels.frank_wolfe_steps(
            q,
            c,
            margins,
            w,
            qw,
            slacks,
            gradient,
            n_iter,
            stop_iter,
            float(tol),
            _GAP_FLOOR,
            _REFRESH_EVERY,
        )
        if stopped != kernels.REACHED_STOP:
            status = "converged" if stopped == kernels.CONVERGED else "stalled"
            break
        if n_iter == max_iter:
            status = "max_iter"
            break
        gamma = _newton_step(problem, q, c, w, qw, slacks, gradient, newton_adds_trees)
        # A full step means the support and active set were nearly right:
        # try again soon. A short one: let Frank-Wolfe work for longer first.
        interval = newton_every if gamma >= 1.0 else 2 * interval
        next_newton = n_iter + interval
        if gamma > 0.0:
            n_iter += 1
        # gamma == 0: a Frank-Wolfe step at this same iteration (next_newton is now later).
    w /= w.sum()
    return WeightSolution.at(
        problem, w, n_iter=n_iter, started=start, status=status, solver="frank_wolfe_away"
    )


def frank_wolfe(
    problem: WeightProblem,
    *,
    max_iter: int = 1000,
    gradient: str = "true",
    w0: np.ndarray | None = None,
) -> WeightSolution:
    """Algorithm 3 of the paper: S = ``max_iter`` steps of size 2 / (s + 2).

    ``gradient="printed"`` uses eq. (78) as printed (an ablation: it is not the
    gradient of J and stops at a worse point); the default is the true gradient.
    """
    if gradient not in ("true", "printed"):
        raise ValueError(f"gradient must be 'true' or 'printed'; got {gradient!r}")
    start = time.perf_counter()
    q = problem.stats.q
    c = problem.quadratic
    w = _initial_weights(problem, w0, uniform_weights(problem.n_trees))
    for s in range(max_iter):
        if s % _REFRESH_EVERY == 0:
            qw = q @ w
        slacks = problem.margins - qw
        if gradient == "true":
            pull = np.maximum(slacks, 0.0)
        else:
            pull = np.where(slacks > 0.0, slacks * slacks, 0.0)
        grad = 2.0 * c * w - 2.0 * (pull @ q)
        toward = int(np.argmin(grad))
        gamma = 2.0 / (s + 2.0)
        w *= 1.0 - gamma
        w[toward] += gamma
        qw = (1.0 - gamma) * qw + gamma * q[:, toward]
    w = np.maximum(w, 0.0)
    w /= w.sum()
    solver = "frank_wolfe" if gradient == "true" else "frank_wolfe_printed_gradient"
    return WeightSolution.at(problem, w, n_iter=max_iter, started=start, status="max_iter", solver=solver)
