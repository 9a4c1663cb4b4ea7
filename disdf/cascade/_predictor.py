"""A classifier on top of the cascade (DF21's predictor): the raw features beside the last kept level's
class vectors, out-of-fold at fit, as its input."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.base import clone

from disdf._utils.parameters import Constraint, InvalidParameterError


@dataclass(frozen=True)
class Predictor(Constraint):
    """``predictor``: None, or a scikit-learn classifier (``fit`` and ``predict_proba``)."""

    def check(self, owner: str, name: str, value: Any) -> None:
        if value is not None and not (hasattr(value, "fit") and hasattr(value, "predict_proba")):
            raise InvalidParameterError(
                f"{owner}: {name} must be None or a classifier with fit and predict_proba "
                f"(e.g. sklearn.ensemble.HistGradientBoostingClassifier()); got {value!r}"
            )

    def check_in(self, owner: str, name: str, params: Mapping[str, Any]) -> None:
        self.check(owner, name, params[name])


def predictor_input(X: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """The predictor's features: the examples' raw features (as the trees read them, float32), then
    the last kept level's M concatenated class vectors."""
    return np.hstack([np.asarray(X, dtype=np.float64), vectors])


def fit_predictor(predictor: Any, X: np.ndarray, vectors: np.ndarray, y_code: np.ndarray) -> Any:
    """A clone of ``predictor`` fitted on the training examples' raw features and out-of-fold class
    vectors (each from fold models that never saw the example), on the class codes; None for None."""
    if predictor is None:
        return None
    return clone(predictor).fit(predictor_input(X, vectors), y_code)
