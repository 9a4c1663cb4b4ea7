"""The per-forest weight-learning problem of DisDF, eq. (70)-(72).

For one forest with T trees and n labelled examples the trees never trained on,
let ``a_it`` be tree t's class-probability vector for example i. The paper
defines, for a pair (i, j),

    P_ij^t = ||a_it - a_jt||_2^2      (squared Euclidean, same-class pairs)
    Q_ij^t = ||a_it - a_jt||_1        (Manhattan, different-class pairs)

and minimises over the unit simplex (eq. (42))

    J(w) = sum_t (pi_t + lambda) w_t^2 + sum_{z_ij = 1} max(0, tau - <Q_ij, w>)^2

with pi_t = sum_{z_ij = 0} P_ij^t, the sum running over unordered pairs i < j
(eq. (62) rewritten as eqs. (64) and (70)). Only pi (length T) and the different-class
rows of Q are stored; the pairs x T matrix of P is never built.

Example weights s_i >= 0 (the estimators' ``sample_weight``) weigh each pair by the product of its
two examples' weights, c_ij = s_i s_j, in both sums of eq. (70):

    J(w) = sum_t (pi_t + lambda) w_t^2 + sum_{z_ij = 1} c_ij max(0, tau - <Q_ij, w>)^2,
    pi_t = sum_{z_ij = 0} c_ij P_ij^t.

For whole weights this is J of the examples each repeated s_i times: the s_i s_j pairs of copies of
i and j each add the pair's term, and a pair of copies of one example has P = 0 (same class, same
vectors); weight 0 drops an example's pairs; weights of 1 are eq. (70) itself. A weighted hinge is
eq. (72)'s for the row sqrt(c_ij) Q_ij and the margin tau sqrt(c_ij), since c max(0, tau - <Q, w>)^2
= max(0, tau sqrt(c) - <sqrt(c) Q, w>)^2: :class:`PairStatistics` stores those rows and the scales
sqrt(c_ij), and every exact solver reads the margins of :attr:`WeightProblem.margins`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from disdf._utils.parameters import Float, check_parameters


def same_class_pi(
    tree_probabilities: np.ndarray,
    y: np.ndarray,
    sample_weight: np.ndarray | None = None,
    pure: np.ndarray | None = None,
) -> np.ndarray:
    """pi_t = sum over same-class pairs i < j of P_ij^t (times s_i s_j with example weights s), in
    closed form.

    Within a class g with n_g members, sum_{i<j} ||a_i - a_j||^2 equals
    n_g * sum_i ||a_i||^2 - ||sum_i a_i||^2, so pi costs O(n T C), not O(n^2 T C); weighted,
    sum_{i<j} s_i s_j ||a_i - a_j||^2 = (sum_i s_i) sum_i s_i ||a_i||^2 - ||sum_i s_i a_i||^2.

    Parameters
    ----------
    tree_probabilities : array of shape (n, T, C)
    y : array of shape (n,), class codes
    sample_weight : array of shape (n,) or None (every example weighs 1)
    pure : :func:`~disdf.weights._pair_kernels.pure_classes` of the probabilities, or None. Without
        example weights, when every vector is one-hot (fully grown trees), pi is counted from it
        (:func:`one_hot_pi`): the same numbers without reading the (n, T, C) array twice per class.
    """
    if sample_weight is None and pure is not None and _all_one_hot(pure, len(y)):
        return one_hot_pi(pure, y, tree_probabilities.shape[2])
    n_trees = tree_probabilities.shape[1]
    pi = np.zeros(n_trees)
    for label in np.unique(y):
        members = tree_probabilities[y == label]
        n_g = members.shape[0]
        if n_g < 2:
            continue
        if sample_weight is None:
            sum_sq = np.einsum("itc,itc->t", members, members)
            total = members.sum(axis=0)
            pi += n_g * sum_sq - np.einsum("tc,tc->t", total, total)
            continue
        s = sample_weight[y == label]
        total = np.einsum("i,itc->tc", s, members)
        pi += s.sum() * np.einsum("i,itc,itc->t", s, members, members) - np.einsum("tc,tc->t", total, total)
    # The closed form subtracts two large numbers; rounding may leave -1e-13.
    return np.maximum(pi, 0.0)


def _all_one_hot(pure: np.ndarray, n_examples: int) -> bool:
    """Whether :func:`one_hot_pi` applies: every entry one-hot, and n^2 exact in float64."""
    return pure.size > 0 and n_examples < 2**26 and int(pure.min()) >= 0


def one_hot_pi(pure: np.ndarray, y: np.ndarray, n_classes: int) -> np.ndarray:
    """:func:`same_class_pi` without example weights when every vector a_it is one-hot: within a class
    g of n_g members, sum_i ||a_it||^2 = n_g and sum_i a_it counts the members tree t sends to each
    class, so pi_t = sum_g (n_g^2 - sum_c count_gtc^2).

    Every term is a whole number below 2**53, so float64 holds it exactly and the sums in
    :func:`same_class_pi`'s closed form give these numbers in any order: the same bits.
    """
    from disdf.weights._pair_kernels import class_counts_of_pure

    labels, codes, sizes = np.unique(y, return_inverse=True, return_counts=True)
    counts = class_counts_of_pure(pure, codes.astype(np.intp), len(labels), n_classes)
    pi = np.zeros(pure.shape[1])
    for g, n_g in enumerate(sizes):
        if n_g < 2:
            continue
        squares = counts[g].astype(np.float64) ** 2
        pi += float(n_g) * float(n_g) - squares.sum(axis=1)
    return np.maximum(pi, 0.0)


def quadratic_minimizer(quadratic: np.ndarray) -> np.ndarray:
    """argmin over the simplex of sum_t c_t w_t^2 for c = ``quadratic`` >= 0: w_t proportional to 1 / c_t.

    Trees with c_t = 0, if any, share the weight uniformly (the minimum is then 0).
    """
    free = quadratic <= 0
    if free.any():
        return free / free.sum()
    inverse = 1.0 / quadratic
    return inverse / inverse.sum()


def different_class_pairs(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Indices (i, j), i < j, of the pairs with y_i != y_j (z_ij = 1)."""
    i, j = np.triu_indices(len(y), k=1)
    different = y[i] != y[j]
    return i[different], j[different]


def different_class_q(
    tree_probabilities: np.ndarray,
    y: np.ndarray,
    pairs: tuple[np.ndarray, np.ndarray] | None = None,
    pure: np.ndarray | None = None,
) -> np.ndarray:
    """Rows Q_ij (length T) for every different-class pair i < j (``pairs``, if given, are
    :func:`different_class_pairs` of y; ``pure``, if given, the probabilities'
    :func:`~disdf.weights._pair_kernels.pure_classes`).

    Returns an array of shape (n_pairs, T); entries lie in [0, 2].
    """
    from disdf.weights._pair_kernels import manhattan_rows_of_pure

    i, j = different_class_pairs(y) if pairs is None else pairs
    probabilities = np.ascontiguousarray(tree_probabilities, dtype=np.float64)
    return manhattan_rows_of_pure(probabilities, _pure_of(probabilities) if pure is None else pure, i, j)


def _pure_of(tree_probabilities: np.ndarray) -> np.ndarray:
    """:func:`~disdf.weights._pair_kernels.pure_classes` (numba loads with the first weight problem)."""
    from disdf.weights._pair_kernels import pure_classes

    return pure_classes(np.ascontiguousarray(tree_probabilities, dtype=np.float64))


def checked_example_weights(sample_weight: np.ndarray | None, n_examples: int) -> np.ndarray | None:
    """Example weights as the pair weights read them: None, or n finite float64 weights >= 0."""
    if sample_weight is None:
        return None
    weights = np.asarray(sample_weight, dtype=np.float64)
    if weights.shape != (n_examples,) or not np.all(np.isfinite(weights)) or np.any(weights < 0):
        raise ValueError(
            f"sample_weight must be {n_examples} finite weights >= 0 (one per example); got shape "
            f"{weights.shape}, min {weights.min() if weights.size else 'n/a'}"
        )
    return weights


#: Upper ends of λ and τ: within them J of eq. (70)-(72), its gradient and the line search's
#: sums stay far below float64's 1.8e308 for any problem a machine can hold (10^12 pairs, 10^6 trees).
#: τ ≤ 1e3: <Q_ij, w> lies in [0, 2], so from τ = 2 on every hinge is active; a pair adds at most
#: τ² = 1e6 to J and 2 τ Q_ij ≤ 4e3 to a gradient entry (1e18 and 4e15 over 10^12 pairs). A
#: larger τ only buries the part of J that depends on w under the constant (pairs) τ²: from
#: τ ~ 1e5 on, Clarabel calls such problems infeasible.
#: λ ≤ 1e12: pi_t sums P_ij ≤ 2 over same-class pairs, so pi_t ≤ n² (1e12 at n = 10^6 held-out
#: examples); with λ far above pi the optimum is the uniform weights of gcForest
#: (solver="uniform"), so a larger λ chooses nothing new. (pi_t + λ) w_t², the gradient
#: 2 (pi_t + λ) w_t and the line search's 2 Σ_t (pi_t + λ) d_t² stay below ~1e13 T.
LAMBDA_MAX = 1e12
TAU_MAX = 1e3
#: λ of eq. (70) and τ of eq. (72): λ ≥ 0 weighs ‖w‖², τ > 0 is the margin on <Q_ij, w>
#: (DisDFClassifier's checks of ``lambda_``, ``tau`` and every ``tune_grid`` entry too).
LAMBDA = Float(0.0, high=LAMBDA_MAX)
TAU = Float(0.0, low_open=True, high=TAU_MAX)


def check_lambda_tau(lambda_: float, tau: float, owner: str = "WeightProblem") -> None:
    """λ of eq. (70) in [0, LAMBDA_MAX], τ of eq. (72) in (0, TAU_MAX]: the one check of both, with
    the ranges the estimators' parameter tables use (an InvalidParameterError naming the value)."""
    check_parameters(owner, {"lambda_": LAMBDA, "tau": TAU}, {"lambda_": lambda_, "tau": tau})


@dataclass(frozen=True)
class PairStatistics:
    """What the objective needs from one forest's held-out predictions.

    ``pi`` (T,) and ``q`` (n_different_pairs, T) do not depend on lambda or tau,
    so they are computed once and reused across a hyper-parameter grid. With example weights s,
    ``pi`` sums s_i s_j P_ij, ``q``'s rows are sqrt(s_i s_j) Q_ij and ``pair_scale`` holds the
    sqrt(s_i s_j) (module docstring); None: the unweighted problem.
    """

    pi: np.ndarray
    q: np.ndarray
    pair_scale: np.ndarray | None = None

    @classmethod
    def from_tree_probabilities(
        cls, tree_probabilities: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None = None
    ) -> PairStatistics:
        """Build pi and Q from per-tree class probabilities of shape (n, T, C), each pair weighted by
        s_i s_j when the examples have weights ``sample_weight`` (n,)."""
        tree_probabilities = np.asarray(tree_probabilities, dtype=float)
        y = np.asarray(y)
        if tree_probabilities.ndim != 3 or tree_probabilities.shape[0] != y.shape[0]:
            raise ValueError(
                "tree_probabilities must have shape (n_examples, n_trees, n_classes) "
                f"matching y of length {y.shape[0]}; got {tree_probabilities.shape}"
            )
        weights = checked_example_weights(sample_weight, y.shape[0])
        if weights is None:  # the pure classes serve both: pi counted (one_hot_pi), Q's one-hot rows
            pure = _pure_of(tree_probabilities)
            return cls(
                pi=same_class_pi(tree_probabilities, y, pure=pure),
                q=different_class_q(tree_probabilities, y, pure=pure),
            )
        i, j = different_class_pairs(y)
        scale = np.sqrt(weights[i] * weights[j])
        q = different_class_q(tree_probabilities, y, (i, j))
        q *= scale[:, None]
        return cls(pi=same_class_pi(tree_probabilities, y, weights), q=q, pair_scale=scale)

    def of_examples(
        self,
        y: np.ndarray,
        positions: np.ndarray,
        member_probabilities: np.ndarray,
        sample_weight: np.ndarray | None = None,
    ) -> PairStatistics:
        """The statistics of the examples ``positions`` (increasing) of the set with labels ``y`` (and
        weights ``sample_weight``, as these statistics were built) that these are of, given those
        examples' per-tree probabilities: pi computed on them; Q's rows of their pairs taken from these
        (each row is computed from its pair alone, and the pairs keep their order), so the same numbers
        as :meth:`from_tree_probabilities` on the examples, faster."""
        if (sample_weight is None) != (self.pair_scale is None):
            raise ValueError("sample_weight must be given exactly when these statistics were built with it")
        first, second = different_class_pairs(np.asarray(y))
        if first.shape[0] != self.q.shape[0]:
            raise ValueError(
                f"y has {first.shape[0]} different-class pairs; these statistics have {self.n_pairs}"
            )
        inside = np.zeros(len(y), dtype=bool)
        inside[positions] = True
        kept = inside[first] & inside[second]
        members = np.asarray(member_probabilities, dtype=float)
        weights = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)[positions]
        pure = _pure_of(members) if weights is None else None  # pi counted when every vector is one-hot
        return PairStatistics(
            pi=same_class_pi(members, np.asarray(y)[positions], weights, pure),
            q=self.q[kept],
            pair_scale=None if self.pair_scale is None else self.pair_scale[kept],
        )

    @property
    def n_trees(self) -> int:
        return self.pi.shape[0]

    def first(self, n_trees: int) -> PairStatistics:
        """The statistics of the first ``n_trees`` trees: pi and Q are per-tree columns."""
        return PairStatistics(
            pi=self.pi[:n_trees].copy(),
            q=np.ascontiguousarray(self.q[:, :n_trees]),
            pair_scale=self.pair_scale,
        )

    @property
    def n_pairs(self) -> int:
        return self.q.shape[0]


@dataclass(frozen=True)
class WeightProblem:
    """J(w) of eq. (70)-(72) for one forest, with lambda (``lambda_``) and tau."""

    stats: PairStatistics
    lambda_: float
    tau: float

    def __post_init__(self) -> None:
        check_lambda_tau(self.lambda_, self.tau, type(self).__name__)

    @property
    def n_trees(self) -> int:
        return self.stats.n_trees

    @property
    def quadratic(self) -> np.ndarray:
        """Diagonal coefficients pi_t + lambda of the quadratic term."""
        return self.stats.pi + self.lambda_

    def quadratic_minimizer(self) -> np.ndarray:
        """argmin over the simplex of sum_t (pi_t + lambda) w_t^2, in closed form.

        w_t is proportional to 1 / (pi_t + lambda) (uniform over the trees with
        pi_t + lambda = 0, if any). It is the optimum of J whenever no hinge is
        active there, and a close start for Frank-Wolfe otherwise.
        """
        return quadratic_minimizer(self.quadratic)

    @property
    def margins(self) -> float | np.ndarray:
        """tau of eq. (72) as the hinges read it against the stored rows: tau, or per different-class
        pair tau sqrt(s_i s_j) when the examples are weighted (the rows are sqrt(s_i s_j) Q_ij)."""
        return self.tau if self.stats.pair_scale is None else self.tau * self.stats.pair_scale

    def hinge_pull(self, slacks: np.ndarray) -> np.ndarray:
        """sum_{z_ij=1} max(0, S_ij) Q_ij, reading only the rows of active hinges."""
        active = np.flatnonzero(slacks > 0)
        if 4 * active.size >= slacks.size:
            return np.maximum(slacks, 0.0) @ self.stats.q
        return slacks[active] @ self.stats.q[active]

    def slacks(self, w: np.ndarray) -> np.ndarray:
        """S_ij = tau - <Q_ij, w> for every different-class pair (section 5); weighted, sqrt(c_ij) S_ij."""
        return self.margins - self.stats.q @ w

    def objective(self, w: np.ndarray) -> float:
        """J(w), eq. (70) with alpha_ij eliminated: alpha_ij = max(0, S_ij)."""
        hinge = np.maximum(self.slacks(w), 0.0)
        return float(self.quadratic @ (w * w) + hinge @ hinge)

    def gradient(self, w: np.ndarray) -> np.ndarray:
        """True gradient of J: 2 w_t (pi_t + lambda) - 2 sum_{z_ij=1} max(0, S_ij) Q_ij^t.

        Eq. (78) of the paper prints S_ij^2 where max(0, S_ij) belongs; see
        :meth:`printed_gradient`.
        """
        return 2.0 * self.quadratic * w - 2.0 * self.hinge_pull(self.slacks(w))

    def printed_gradient(self, w: np.ndarray) -> np.ndarray:
        """Eq. (78) exactly as printed (S_ij^2 instead of S_ij). Ablation only.

        It is not the gradient of J; Frank-Wolfe driven by it stops at a point
        whose objective is measurably above the optimum.
        """
        slacks = self.slacks(w)
        hinge_sq = np.where(slacks > 0.0, slacks * slacks, 0.0)
        return 2.0 * self.quadratic * w - 2.0 * (hinge_sq @ self.stats.q)

    def duality_gap(self, w: np.ndarray, gradient: np.ndarray | None = None) -> float:
        """Frank-Wolfe gap <grad J(w), w - s>, s the best simplex vertex.

        An upper bound on J(w) - min J, since J is convex.
        """
        g = self.gradient(w) if gradient is None else gradient
        return float(g @ w - g.min())
