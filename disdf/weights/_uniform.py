"""The uniform weights of gcForest, as a weight solver (DisDF with them is gcForest)."""

from __future__ import annotations

import time

import numpy as np

from disdf._utils.tree_weights import uniform_weights
from disdf.weights._problem import WeightProblem
from disdf.weights._result import WeightSolution


def uniform(problem: WeightProblem, *, w0: np.ndarray | None = None) -> WeightSolution:
    """w = 1/T: the plain average of gcForest, eq. (36) (``w0`` is not used)."""
    start = time.perf_counter()
    w = uniform_weights(problem.n_trees)
    return WeightSolution.at(problem, w, n_iter=0, started=start, status="uniform", solver="uniform")
