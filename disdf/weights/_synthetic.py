"""Random weight problems shaped like real held-out forest predictions.

Used by the solver tests and ``scripts/bench/bench_solvers.py``.
"""

from __future__ import annotations

import numpy as np

from disdf.weights._problem import PairStatistics


def random_tree_probabilities(
    n_examples: int, n_trees: int, n_classes: int, seed: int = 0, accuracy: float = 0.7
) -> tuple[np.ndarray, np.ndarray]:
    """Labels and per-tree probability vectors of shape (n, T, C).

    Each tree votes for the true class with probability ``accuracy`` (else a
    random class) and spreads a little mass elsewhere, like a fully grown tree
    whose leaves are nearly pure. Every class occurs at least once.
    """
    rng = np.random.default_rng(seed)
    y = np.concatenate([np.arange(n_classes), rng.integers(0, n_classes, n_examples - n_classes)])
    rng.shuffle(y)
    votes = np.where(
        rng.random((n_examples, n_trees)) < accuracy,
        y[:, None],
        rng.integers(0, n_classes, (n_examples, n_trees)),
    )
    probabilities = rng.dirichlet(np.full(n_classes, 0.3), size=(n_examples, n_trees)) * 0.3
    probabilities[np.arange(n_examples)[:, None], np.arange(n_trees)[None, :], votes] += 0.7
    return probabilities, y


def random_pair_statistics(
    n_examples: int, n_trees: int, n_classes: int, seed: int = 0, accuracy: float = 0.7
) -> PairStatistics:
    """The pair statistics of a random weight problem shaped like real held-out forest predictions.

    Each of the ``n_trees`` trees votes for an example's true class with probability ``accuracy``
    (else for a random class) and spreads a little mass over the other classes, like a fully grown
    tree whose leaves are nearly pure; every class occurs at least once. Used by the solver tests
    and benchmarks.

    Parameters
    ----------
    n_examples, n_trees, n_classes : int
        The problem's size.
    seed : int, default=0
    accuracy : float, default=0.7

    Returns
    -------
    PairStatistics

    Examples
    --------
    >>> from disdf.weights import WeightProblem, random_pair_statistics, solve_weights
    >>> problem = WeightProblem(random_pair_statistics(60, n_trees=10, n_classes=3), lambda_=1.0, tau=1.0)
    >>> solve_weights(problem).w.shape
    (10,)
    """
    probabilities, y = random_tree_probabilities(n_examples, n_trees, n_classes, seed, accuracy)
    return PairStatistics.from_tree_probabilities(probabilities, y)
