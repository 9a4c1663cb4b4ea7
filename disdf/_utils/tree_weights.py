"""gcForest's tree weights."""

import numpy as np


def uniform_weights(n_trees: int) -> np.ndarray:
    """w_t = 1/T for every tree: the plain average of gcForest, eq. (36)."""
    return np.full(n_trees, 1.0 / n_trees)
