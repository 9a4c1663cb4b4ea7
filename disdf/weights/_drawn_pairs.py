"""Pair statistics from drawn pairs: eq. (70)-(72) for held-out sets too large to list every pair.

An exact solver reads one row Q_ij (T float64 numbers) per different-class pair of a fold model's
held-out examples, about n^2/3 pairs for n examples: with DisDF's default 4 forests and 3 folds,
142 GiB at n = 20,000 training examples and T = 100. Beyond ``max_pairs`` pairs, a fold model's
problem is built instead from ``max_pairs`` pairs drawn uniformly (with replacement, seeded) among
its P different-class pairs, each drawn pair's term weighted by P / max_pairs:

    J_M(w) = sum_t (pi_t + lambda) w_t^2 + (P / M) sum_{b=1}^{M} c_b max(0, tau - <Q_b, w>)^2,

an unbiased estimate of J(w) whose quadratic part stays exact (pi in closed form,
:func:`~disdf.weights._problem.same_class_pi`), solved exactly by the chosen solver. The weight of a
drawn pair enters as the example weights do (c_b = s_i s_j with example weights, times P / M):
rows sqrt(c_b) Q_b and margins tau sqrt(c_b) (:mod:`disdf.weights._problem`). Memory and the
solve's time stop growing with n; up to ``max_pairs`` pairs the problem is the exact one, number for
number.

``max_pairs="auto"`` takes :data:`AUTO_MAX_PAIRS` per fold model: with 4 forests and 3 folds at
T = 100, 0.045 GiB of rows for a level, reached at about 420 training examples of 2 balanced
classes, 370 of 3 or 320 of 10; every cell of the paper's protocol lies below it (at most 720
pairs). Chosen for cost, before any accuracy was compared: on digits (1,257 training images) DisDF
takes 1.6 times gcForest's CPU seconds with it, 3.2 times with 25,000 and 4.6 times with every pair
(``make bench-small-n``: ``results/bench/small_n_cost.csv``); then, by a TOST at ±0.5 points, as
accurate as every pair (``make pair-draws``: ``results/bench/pair_draws.csv``). A fixed number of
pairs, not a share of the machine's memory, so that the same data, settings and seed give the same
model on every machine and for every ``n_trees`` (the first T trees of a shared level read the same
pairs).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from disdf._utils.parameters import Constraint, InvalidParameterError
from disdf.weights._problem import PairStatistics, checked_example_weights, same_class_pi
from disdf.weights._stochastic_frank_wolfe import PairSampler

#: Pairs per fold model that ``max_pairs="auto"`` lets a problem read (module docstring).
AUTO_MAX_PAIRS = 5_000


def pair_cap(max_pairs: int | str | None) -> int | None:
    """The most pairs per fold model a problem reads: ``max_pairs``, :data:`AUTO_MAX_PAIRS` for
    ``"auto"``, None (every pair) for None."""
    return AUTO_MAX_PAIRS if max_pairs == "auto" else (None if max_pairs is None else int(max_pairs))


def different_class_pair_count(y: np.ndarray) -> int:
    """P: the different-class pairs i < j among examples of labels ``y``, in closed form."""
    counts = np.unique(np.asarray(y), return_counts=True)[1].astype(np.int64)
    total = int(counts.sum())
    return (total * total - int(np.sum(counts * counts))) // 2


def drawn_pair_statistics(
    tree_probabilities: np.ndarray,
    y: np.ndarray,
    max_pairs: int | None,
    seed: int,
    sample_weight: np.ndarray | None = None,
) -> PairStatistics:
    """π and Q of eq. (70)-(72) for the held-out examples of per-tree probabilities (n, T, C) and
    labels ``y``: every different-class pair while there are at most ``max_pairs`` of them (or
    ``max_pairs`` is None), else ``max_pairs`` pairs drawn with ``np.random.default_rng(seed)``, each
    weighted P / ``max_pairs`` (module docstring)."""
    y = np.asarray(y)
    if max_pairs is None or different_class_pair_count(y) <= max_pairs:
        return PairStatistics.from_tree_probabilities(tree_probabilities, y, sample_weight)
    weights = checked_example_weights(sample_weight, y.shape[0])
    sampler = PairSampler(tree_probabilities, y)
    first, second = sampler.sample(max_pairs, np.random.default_rng(seed))
    pair_weight = np.full(max_pairs, sampler.n_pairs / max_pairs)
    if weights is not None:
        pair_weight *= weights[first] * weights[second]
    scale = np.sqrt(pair_weight)
    q = sampler.q_rows(first, second)
    q *= scale[:, None]
    pi = same_class_pi(sampler.tree_probabilities, y, weights, sampler.classes)
    return PairStatistics(pi=pi, q=q, pair_scale=scale)


@dataclass(frozen=True)
class MaxPairs(Constraint):
    """``"auto"``, a number of pairs >= 1, or None (every pair)."""

    def check(self, owner: str, name: str, value: Any) -> None:
        if value is None or (isinstance(value, str) and value == "auto"):
            return
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 1:
            raise InvalidParameterError(
                f"{owner}: {name} must be 'auto', an int >= 1 or None; got {value!r} ({type(value).__name__})"
            )
