"""Frank-Wolfe on sampled pairs, for held-out sets too large to enumerate their pairs.

The hinge term of eq. (70) sums over every different-class pair: n^2/2 rows
Q_ij of length T (at n = 20,000 and T = 100, 10^10 numbers). Here the pairs are
never enumerated. The quadratic term sum_t (pi_t + lambda) w_t^2 stays exact:
pi comes in closed form (:func:`~disdf.weights._problem.same_class_pi`). The
hinge part of the gradient,

    h(w) = -2 sum_{z_ij=1} max(0, tau - <Q_ij, w>) Q_ij,

is estimated at every iteration from a minibatch of B pairs drawn uniformly
with replacement, h_B = -2 (P / B) sum_b max(0, tau - <Q_b, w>) Q_b, an unbiased
estimate (P = the number of different-class pairs); only the B x T rows of the
batch exist at any time. The estimates are averaged as in the stochastic
conditional gradient method of Mokhtari, Hassani & Karbasi (2018; JMLR 2020),
d_k = (1 - rho_k) d_{k-1} + rho_k h_B with rho_k = 4 / (k + 8)^(2/3), and the
step towards the vertex of the smallest coordinate of 2 (pi + lambda) w + d_k
is gamma_k = 2 / (k + 8).

Weighted examples (``sample_weight`` s): pi is the weighted closed form, and each drawn pair's hinge
is multiplied by c_ij = s_i s_j, so that (P / B) sum_b c_b max(0, S_b) Q_b stays an unbiased estimate
of the weighted hinge term (:mod:`disdf.weights._problem`); the pairs are still drawn uniformly.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from disdf.weights._problem import (
    check_lambda_tau,
    checked_example_weights,
    one_hot_pi,
    quadratic_minimizer,
    same_class_pi,
)
from disdf.weights._result import WeightSolution


@dataclass(frozen=True)
class OneHotVectors:
    """Per-tree class vectors that are all one-hot, kept as their classes instead of an (n, T, C) array.

    ``classes[i, t]``: the class whose one-hot vector tree t gives example i (``pure_classes`` of the
    probabilities, with no entry -1); ``n_classes``: C. Fully grown trees give only such vectors,
    and the pair-sampling solver reads nothing else of them: Q_ij^t is 0 or 2 by the classes, and pi
    counts them (:func:`~disdf.weights._problem.one_hot_pi`), so the solve gives the numbers it gives on
    the probabilities without reading or building them.
    """

    classes: np.ndarray
    n_classes: int

    def __post_init__(self) -> None:
        if self.classes.ndim != 2 or (self.classes.size and int(self.classes.min()) < 0):
            raise ValueError(
                "OneHotVectors needs classes of shape (n_examples, n_trees), every entry a class >= 0; "
                f"got shape {self.classes.shape}"
            )

    @classmethod
    def of_rows(cls, leaves: np.ndarray, table: np.ndarray) -> OneHotVectors | None:
        """The vectors ``table[leaves]`` (shape (n, T, C)) as their classes if every one is one-hot,
        else None; read from the table's rows, without building the vectors."""
        from disdf.weights._pair_kernels import pure_classes_of_rows

        classes = pure_classes_of_rows(leaves, table)
        if classes.size and int(classes.min()) >= 0:
            return cls(classes, table.shape[1])
        return None

    @property
    def shape(self) -> tuple[int, int, int]:
        """(n, T, C): the shape of the probabilities they stand for."""
        return (*self.classes.shape, self.n_classes)


class PairSampler:
    """Different-class pairs of a held-out set, drawn uniformly without listing them.

    An ordered pair (i, j) with y_i != y_j is drawn by picking i with
    probability proportional to its number of different-class partners, then
    j uniformly among them; every unordered pair then has probability 1 / P.
    """

    def __init__(self, tree_probabilities: np.ndarray | OneHotVectors, y: np.ndarray) -> None:
        from disdf.weights._pair_kernels import pure_classes

        if isinstance(tree_probabilities, OneHotVectors):
            # Never read: the kernels read probabilities only where a vector is not one-hot.
            self.tree_probabilities = np.zeros((0, *tree_probabilities.shape[1:]))
            shape: tuple[int, ...] = tree_probabilities.shape
            pure = tree_probabilities.classes
        else:
            self.tree_probabilities = np.ascontiguousarray(tree_probabilities, dtype=np.float64)
            shape = self.tree_probabilities.shape
            pure = None  # computed once the shape is checked
        y = np.asarray(y)
        if len(shape) != 3 or shape[0] != y.shape[0]:
            raise ValueError(
                "tree_probabilities must have shape (n_examples, n_trees, n_classes) "
                f"matching y of length {y.shape[0]}; got {shape}"
            )
        self.n_examples = shape[0]
        _, codes, counts = np.unique(y, return_inverse=True, return_counts=True)
        self._codes = codes.astype(np.intp)
        self._by_class = np.argsort(codes, kind="stable").astype(np.intp)  # examples grouped by class
        self._starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.intp)
        self._counts = counts.astype(np.intp)
        partners = len(y) - counts[codes]  # different-class partners of each example
        total = partners.sum()
        self.n_pairs = int(total // 2)
        # Cumulative distribution of the first example, built once (rng.choice(p=...) rebuilds it per call).
        self._first_cdf = np.cumsum(partners / total) if total else None
        if self._first_cdf is not None:
            self._first_cdf /= self._first_cdf[-1]
        self._pure = pure_classes(self.tree_probabilities) if pure is None else pure

    @property
    def classes(self) -> np.ndarray:
        """Entry (i, t): the class whose one-hot vector tree t gives example i, else -1
        (:func:`~disdf.weights._pair_kernels.pure_classes`), shape (n, T)."""
        return self._pure

    def sample(self, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """``size`` pairs (i, j), uniform over the different-class pairs, with replacement."""
        if self._first_cdf is None:
            empty = np.empty(0, dtype=np.intp)
            return empty, empty
        return self.pairs(rng.random(size), rng.random(size))

    def pairs(self, u_first: np.ndarray, u_second: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The pairs that uniforms in [0, 1) pick: i from ``u_first``, then j from ``u_second``."""
        from disdf.weights._pair_kernels import pairs_of_uniforms

        first, second = np.empty(u_first.shape[0], np.intp), np.empty(u_first.shape[0], np.intp)
        pairs_of_uniforms(*self._tables(), u_first, u_second, first, second)
        return first, second

    def _tables(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        # Read only with different-class pairs (sample and stochastic_frank_wolfe check n_pairs first).
        assert self._first_cdf is not None
        return self._first_cdf, self._codes, self._counts, self._starts, self._by_class

    def q_rows(self, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        """Q_ij (Manhattan distances per tree) of the given pairs only, shape (len(first), T)."""
        from disdf.weights._pair_kernels import manhattan_rows_of_pure

        return manhattan_rows_of_pure(self.tree_probabilities, self._pure, first, second)


def sampled_hinge(
    sampler: PairSampler,
    w: np.ndarray,
    tau: float,
    batch_size: int,
    rng: np.random.Generator,
    example_weight: np.ndarray | None = None,
) -> tuple[np.ndarray, float]:
    """Unbiased estimates, from ``batch_size`` sampled pairs, of the hinge term's gradient and value.

    h_B = -2 (P / B) sum_b max(0, tau - <Q_b, w>) Q_b and (P / B) sum_b max(0, tau - <Q_b, w>)^2,
    each pair's terms times c_b = s_i s_j with example weights s (``example_weight``; None: 1).
    """
    from disdf.weights._pair_kernels import sampled_hinge_sums

    first, second = sampler.sample(batch_size, rng)
    pull = np.empty(w.shape[0])
    weights = _example_weights(example_weight, sampler.n_examples)
    value = sampled_hinge_sums(
        sampler.tree_probabilities,
        sampler._pure,
        first,
        second,
        np.ascontiguousarray(w, float),
        tau,
        pull,
        weights,
    )
    scale = sampler.n_pairs / batch_size
    return -2.0 * scale * pull, scale * value


def _example_weights(sample_weight: np.ndarray | None, n_examples: int) -> np.ndarray:
    """The weights the pair kernels read: ones (the unweighted sums, bit for bit) or the given ones."""
    if sample_weight is None:
        return np.ones(n_examples)
    return np.ascontiguousarray(sample_weight, dtype=np.float64)


@dataclass(frozen=True)
class SampledWeightProblem:
    """J(w) of eq. (70)-(72) for one forest, read through pair draws instead of every Q_ij row.

    ``tree_probabilities`` (n, T, C) are the trees' class probabilities of the
    held-out examples, ``y`` their labels; ``random_state`` seeds the draws;
    ``sample_weight`` (n,) weighs each pair by the product of its examples' weights
    (:mod:`disdf.weights._problem`; None: every pair weighs 1).
    The problem of the pair-sampling solvers, as :class:`~disdf.WeightProblem` is
    the exact solvers'.
    """

    tree_probabilities: np.ndarray | OneHotVectors
    y: np.ndarray
    lambda_: float
    tau: float
    random_state: int | np.random.Generator | None = 0
    sample_weight: np.ndarray | None = None

    def __post_init__(self) -> None:
        check_lambda_tau(self.lambda_, self.tau, type(self).__name__)
        checked_example_weights(self.sample_weight, int(np.shape(self.y)[0]))
        if isinstance(self.tree_probabilities, OneHotVectors) and self.sample_weight is not None:
            raise ValueError(
                "SampledWeightProblem: OneHotVectors without sample_weight only (weighted pairs' pi is "
                "summed from the probabilities)"
            )

    @property
    def n_trees(self) -> int:
        vectors = self.tree_probabilities  # np.shape keeps nested lists working; it cannot read OneHotVectors
        return int((vectors.shape if isinstance(vectors, OneHotVectors) else np.shape(vectors))[1])


def stochastic_frank_wolfe(
    problem: SampledWeightProblem,
    *,
    batch_size: int = 1024,
    max_iter: int = 500,
    w0: np.ndarray | None = None,
) -> WeightSolution:
    """Minimise J(w) of eq. (70)-(72) over the simplex from sampled different-class pairs.

    Memory beyond the inputs is O(batch_size * T). ``objective`` and ``gap``
    of the result are estimates from one more batch (the exact values need
    every pair); ``status`` is ``"max_iter"``.

    Parameters
    ----------
    problem : the held-out probabilities, labels, λ, τ and the seed of the draws.
    batch_size : pairs per iteration, B.
    max_iter : iterations K.
    w0 : start; default the closed-form minimiser of the quadratic term.
    """
    from disdf.weights._pair_kernels import stochastic_iterations

    start = time.perf_counter()
    if batch_size < 1 or max_iter < 1:
        raise ValueError(f"batch_size and max_iter must be >= 1; got {batch_size}, {max_iter}")
    tree_probabilities, y, lambda_, tau = problem.tree_probabilities, problem.y, problem.lambda_, problem.tau
    random_state = problem.random_state
    rng = np.random.default_rng(random_state)
    sampler = PairSampler(tree_probabilities, y)
    sample_weight = checked_example_weights(problem.sample_weight, len(np.asarray(y)))
    example_weight = _example_weights(sample_weight, len(np.asarray(y)))
    if isinstance(tree_probabilities, OneHotVectors):
        quadratic = one_hot_pi(sampler._pure, np.asarray(y), tree_probabilities.n_classes) + lambda_
    else:
        quadratic = same_class_pi(sampler.tree_probabilities, np.asarray(y), sample_weight, sampler._pure)
        quadratic = quadratic + lambda_
    n_trees = quadratic.shape[0]
    w = quadratic_minimizer(quadratic) if w0 is None else np.asarray(w0, dtype=float).copy()
    w = np.ascontiguousarray(w, dtype=np.float64)
    if sampler.n_pairs:
        # Every iteration's draws at once: the same stream, in the same order, as drawn one by one.
        uniforms = rng.random((max_iter, 2, batch_size))
        stochastic_iterations(
            sampler.tree_probabilities,
            sampler._pure,
            sampler._tables(),
            quadratic,
            w,
            float(tau),
            sampler.n_pairs,
            uniforms,
            max_iter,
            example_weight,
        )
        del uniforms

    hinge_grad, hinge_value = (
        sampled_hinge(sampler, w, tau, batch_size, rng, example_weight)
        if sampler.n_pairs
        else (np.zeros(n_trees), 0.0)
    )
    gradient = 2.0 * quadratic * w + hinge_grad
    return WeightSolution(
        w=w / w.sum(),
        objective=float(quadratic @ (w * w)) + hinge_value,
        gap=float(gradient @ w - gradient.min()),
        n_iter=max_iter if sampler.n_pairs else 0,
        seconds=time.perf_counter() - start,
        status="max_iter" if sampler.n_pairs else "no_pairs",
        solver="stochastic_frank_wolfe",
    )
