"""A level's score: the out-of-fold accuracy of its summed class vectors, weighted by the examples'
weights when the fit has them. It picks the cascade's depth and ranks DisDF's (λ, τ) grid points."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def level_accuracy(
    class_vectors: Sequence[np.ndarray], y: np.ndarray, sample_weight: np.ndarray | None = None
) -> float:
    """Accuracy of argmax of the sum of a level's M class vectors (section 4, end); with example
    weights s, the weighted accuracy sum_i s_i [correct_i] / sum_i s_i (weights of 1: the accuracy)."""
    correct = np.argmax(np.sum(class_vectors, axis=0), axis=1) == y
    return float(np.mean(correct) if sample_weight is None else np.average(correct, weights=sample_weight))
