"""A level's score: the out-of-fold accuracy of its summed class vectors (the regressor's: the R^2 of
its forests' mean prediction), weighted by the examples' weights when the fit has them. It picks the
cascade's depth and ranks DisDF's (λ, τ) grid points."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from sklearn.metrics import r2_score


def level_accuracy(
    class_vectors: Sequence[np.ndarray], y: np.ndarray, sample_weight: np.ndarray | None = None
) -> float:
    """Accuracy of argmax of the sum of a level's M class vectors (section 4, end); with example
    weights s, the weighted accuracy sum_i s_i [correct_i] / sum_i s_i (weights of 1: the accuracy)."""
    correct = np.argmax(np.sum(class_vectors, axis=0), axis=1) == y
    return float(np.mean(correct) if sample_weight is None else np.average(correct, weights=sample_weight))


def level_r2(
    predictions: Sequence[np.ndarray], y: np.ndarray, sample_weight: np.ndarray | None = None
) -> float:
    """R^2 of the mean of a level's M forests' predictions ((n, n_outputs) each; y of shape (n,) or
    (n, n_outputs)), weighted by the examples' weights, averaged over the outputs (scikit-learn's
    ``r2_score``, what a regressor's ``score`` gives)."""
    mean = np.mean(predictions, axis=0)
    return float(r2_score(y, mean[:, 0] if y.ndim == 1 else mean, sample_weight=sample_weight))


@dataclass
class StoppingRule:
    """When the cascade stops growing: a level is kept while its score beats the best so far by more
    than ``tol``; ``patience`` levels without that stop the fit, as do a perfect score and
    ``max_levels``. ``kept`` is the number of levels kept, ``reason`` why the fit stopped."""

    tol: float
    patience: int
    max_levels: int
    held_out: str = "out-of-fold"  # whose vectors the scores are of: "out-of-bag" with out_of_bag=True
    best: float = -np.inf
    stalled: int = 0
    kept: int = 0
    reason: str = ""

    def stops_after(self, level_index: int, score: float) -> bool:
        """Take level ``level_index``'s score; whether the fit stops after it."""
        if score > self.best + self.tol:
            self.best, self.stalled, self.kept = score, 0, level_index + 1
        else:
            self.stalled += 1
            if self.stalled >= self.patience:
                self.reason = (
                    f"{self.stalled} level(s) without an {self.held_out} gain over {self.best:.4f} + tol "
                    f"(patience={self.patience})"
                )
                return True
        if score == 1.0:
            self.reason = f"{self.held_out} score 1.0: nothing left to improve"
            return True
        if level_index + 1 == self.max_levels:
            self.reason = f"max_levels={self.max_levels} reached"
        return False
