"""The compiled (numba) loops of the Frank-Wolfe solvers (:mod:`disdf.weights._frank_wolfe`).

Kept apart so that numba is imported when a solver first runs, not with ``import disdf``: the
solvers import this module inside their functions.
"""

from __future__ import annotations

import numba as nb
import numpy as np

# What frank_wolfe_steps stopped on.
REACHED_STOP, CONVERGED, STALLED = 0, 1, 2


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


@nb.njit(cache=True, nogil=True)
def submatrix(q: np.ndarray, rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """q[np.ix_(rows, columns)] (float64, C order), without numpy's fancy-indexing set-up."""
    out = np.empty((rows.shape[0], columns.shape[0]))
    for a in range(rows.shape[0]):
        for s in range(columns.shape[0]):
            out[a, s] = q[rows[a], columns[s]]
    return out


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


@nb.njit(cache=True, nogil=True)
def frank_wolfe_steps(q, c, margins, w, qw, slacks, grad, n_iter, stop_iter, tol, gap_floor, refresh_every):
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
            return n_iter, CONVERGED
        if n_iter == stop_iter:
            return n_iter, REACHED_STOP
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
            return n_iter, STALLED  # no progress along this direction at machine precision
        for t in range(n_trees):
            w[t] = max(w[t] + gamma * direction[t], 0.0)
        for p in range(n_pairs):
            qw[p] += gamma * q_direction[p]
        if is_away and gamma >= gamma_max:
            w[away] = 0.0  # drop step: the vertex leaves the active set exactly
        n_iter += 1
