"""The uniform weights of gcForest, as a weight solver (DisDF with them is gcForest)."""

from __future__ import annotations

import time

import numpy as np

from disdf.weights._problem import WeightProblem
from disdf.weights._result import WeightSolution


def uniform(problem: WeightProblem, *, w0: np.ndarray | None = None) -> WeightSolution:
    """w = 1/T: the plain average of gcForest, eq. (36) (``w0`` is not used)."""
    start = time.perf_counter()
    w = np.full(problem.n_trees, 1.0 / problem.n_trees)
    return WeightSolution(
        w=w,
        objective=problem.objective(w),
        gap=problem.duality_gap(w),
        n_iter=0,
        seconds=time.perf_counter() - start,
        status="uniform",
        solver="uniform",
    )
