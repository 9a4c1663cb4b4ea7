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
    """PairStatistics of :func:`random_tree_probabilities`."""
    probabilities, y = random_tree_probabilities(n_examples, n_trees, n_classes, seed, accuracy)
    return PairStatistics.from_tree_probabilities(probabilities, y)
