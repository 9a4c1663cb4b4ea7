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

import numba as nb
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


@nb.njit(cache=True, nogil=True)
def exact_line_search(
    quadratic: np.ndarray,
    w: np.ndarray,
    direction: np.ndarray,
    slacks: np.ndarray,
    q_direction: np.ndarray,
    gamma_max: float,
) -> float:
    """argmin over gamma in [0, gamma_max] of J(w + gamma d) (compiled: it runs every iteration).

    Along the segment, J is a convex piecewise quadratic,
    ``phi(g) = sum_t c_t (w_t + g d_t)^2 + sum_p max(0, S_p - g r_p)^2``,
    with c = pi + lambda and r = Q d. Its derivative is piecewise linear and
    non-decreasing; the breakpoints g_p = S_p / r_p are sorted once and the
    active-set sums are accumulated, so the root is found in O(P log P).
    """
    a = 0.0
    b = 0.0
    for t in range(w.shape[0]):
        a += quadratic[t] * w[t] * direction[t]
        b += quadratic[t] * direction[t] * direction[t]
    a *= 2.0
    b *= 2.0
    # u, v: sums of r S and r^2 over the hinge terms active just above gamma = 0.
    u = 0.0
    v = 0.0
    breaks = np.empty(slacks.shape[0])
    pairs = np.empty(slacks.shape[0], dtype=np.int64)
    n_breaks = 0
    for p in range(slacks.shape[0]):
        r = q_direction[p]
        s = slacks[p]
        if s > 0.0 or (s == 0.0 and r < 0.0):
            u += r * s
            v += r * r
        if r != 0.0:
            g = s / r
            if 0.0 < g < gamma_max:
                breaks[n_breaks] = g
                pairs[n_breaks] = p
                n_breaks += 1
    order = np.argsort(breaks[:n_breaks], kind="mergesort")
    left = 0.0
    for k in range(n_breaks + 1):
        right = breaks[order[k]] if k < n_breaks else gamma_max
        # phi'(g) on this segment is (a - 2 u) + (b + 2 v) g.
        intercept = a - 2.0 * u
        slope = b + 2.0 * v
        if intercept + slope * right >= 0.0:
            if slope <= 0.0:
                return left
            return min(max(-intercept / slope, left), right)
        if k < n_breaks:
            # A pair with r > 0 leaves the active set at its breakpoint; r < 0 enters.
            p = pairs[order[k]]
            r = q_direction[p]
            sign = -1.0 if r > 0.0 else 1.0
            u += sign * r * slacks[p]
            v += sign * r * r
            left = right
    return gamma_max


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
    support = np.flatnonzero(w > 0 if candidates is None else candidates)
    active = np.flatnonzero(slacks > 0)
    c = problem.quadratic[support]
    q_as = _submatrix(problem.stats.q, active, support)
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
            solved = scipy.linalg.solve(system, rhs, assume_a="pos")
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


@nb.njit(cache=True, nogil=True)
def _submatrix(q: np.ndarray, rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """q[np.ix_(rows, columns)] (float64, C order), without numpy's fancy-indexing set-up."""
    out = np.empty((rows.shape[0], columns.shape[0]))
    for a in range(rows.shape[0]):
        for s in range(columns.shape[0]):
            out[a, s] = q[rows[a], columns[s]]
    return out


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


@nb.njit(cache=True, nogil=True)
def project_to_simplex(v: np.ndarray) -> np.ndarray:
    """Euclidean projection onto the unit simplex (Held, Wolfe & Crowder; sort-based).

    Compiled, with numpy's operations in numpy's order (a running cumulative sum).
    """
    u = np.sort(v)[::-1]
    cumulative = np.cumsum(u) - 1.0
    rho = 0
    for k in range(v.size):
        if u[k] - cumulative[k] / (k + 1) > 0:
            rho = k
    return np.maximum(v - cumulative[rho] / (rho + 1), 0.0)


# What _frank_wolfe_steps stopped on.
_REACHED_STOP, _CONVERGED, _STALLED = 0, 1, 2


@nb.njit(cache=True, nogil=True)
def _frank_wolfe_steps(q, c, margins, w, qw, slacks, grad, n_iter, stop_iter, tol, gap_floor, refresh_every):
    """Away-step Frank-Wolfe iterations from ``n_iter``, updating w and Qw in place (compiled).

    ``margins[p]``: pair p's tau (tau sqrt(c_ij) for weighted pairs). Each iteration computes
    S_ij = tau - <Q_ij, w> into ``slacks``, the gradient
    2 c_t w_t - 2 sum_ij max(0, S_ij) Q_ij^t into ``grad`` and the duality gap;
    it stops when the gap is at most ``tol * J(w) + gap_floor`` (converged),
    when no step along the chosen direction makes progress (stalled) or at
    ``stop_iter`` before stepping (where the caller takes a Newton step, with
    the slacks and gradient at w, or stops). Returns (n_iter, what it stopped on).
    """
    n_pairs, n_trees = q.shape
    direction = np.empty(n_trees)
    q_direction = np.empty(n_pairs)
    while True:
        if n_iter % refresh_every == 0:
            for p in range(n_pairs):
                total = 0.0
                for t in range(n_trees):
                    total += q[p, t] * w[t]
                qw[p] = total
        objective = 0.0
        for t in range(n_trees):
            grad[t] = 2.0 * c[t] * w[t]
            objective += c[t] * w[t] * w[t]
        for p in range(n_pairs):
            slack = margins[p] - qw[p]
            slacks[p] = slack
            if slack > 0.0:  # an active hinge pulls on the trees that separate pair p
                objective += slack * slack
                for t in range(n_trees):
                    grad[t] -= 2.0 * slack * q[p, t]
        toward = 0
        away = -1
        grad_w = 0.0
        for t in range(n_trees):
            grad_w += grad[t] * w[t]
            if grad[t] < grad[toward]:
                toward = t
            if w[t] > 0.0 and (away < 0 or grad[t] > grad[away]):
                away = t
        gap = grad_w - grad[toward]
        if gap <= tol * objective + gap_floor:
            return n_iter, _CONVERGED
        if n_iter == stop_iter:
            return n_iter, _REACHED_STOP
        away_gap = grad[away] - grad_w
        is_away = gap < away_gap
        if is_away:
            for t in range(n_trees):
                direction[t] = w[t]
            direction[away] -= 1.0
            for p in range(n_pairs):
                q_direction[p] = qw[p] - q[p, away]
            gamma_max = w[away] / (1.0 - w[away])
        else:
            for t in range(n_trees):
                direction[t] = -w[t]
            direction[toward] += 1.0
            for p in range(n_pairs):
                q_direction[p] = q[p, toward] - qw[p]
            gamma_max = 1.0
        gamma = exact_line_search(c, w, direction, slacks, q_direction, gamma_max)
        if gamma <= 0.0:
            return n_iter, _STALLED  # no progress along this direction at machine precision
        for t in range(n_trees):
            w[t] = max(w[t] + gamma * direction[t], 0.0)
        for p in range(n_pairs):
            qw[p] += gamma * q_direction[p]
        if is_away and gamma >= gamma_max:
            w[away] = 0.0  # drop step: the vertex leaves the active set exactly
        n_iter += 1


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
    run compiled (:func:`_frank_wolfe_steps`), the Newton steps in numpy (:func:`_newton_step`).

    Every ``newton_every`` iterations (0: never, plain away-step Frank-Wolfe)
    it tries a Newton step (:func:`~disdf.weights._frank_wolfe.support_newton_target`). With
    ``newton_adds_trees`` its trees are the support and every tree whose
    gradient is below <grad J(w), w>, the trees a Frank-Wolfe step could add:
    the optimum of eq. (70)-(72) has most trees in its support, and Frank-Wolfe
    adds them one per iteration (hundreds of iterations for T = 1000), a Newton
    step all at once. Else its trees are the support only.
    """
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
        n_iter, stopped = _frank_wolfe_steps(
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
        if stopped != _REACHED_STOP:
            status = "converged" if stopped == _CONVERGED else "stalled"
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
