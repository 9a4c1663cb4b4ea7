"""A classifier on top of the cascade (DF21's predictor): the raw features beside the last kept level's
class vectors, out-of-fold at fit, as its input."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.base import clone
from sklearn.utils.validation import has_fit_parameter

from disdf._utils.parameters import Constraint, InvalidParameterError


@dataclass(frozen=True)
class Predictor(Constraint):
    """``predictor``: None, or a scikit-learn classifier *instance* (``get_params``, ``fit`` and
    ``predict_proba``: it is cloned at fit, as scikit-learn's meta-estimators clone theirs); with
    ``regressor``, a regressor instance (``predict`` in place of ``predict_proba``)."""

    regressor: bool = False

    def check(self, owner: str, name: str, value: Any) -> None:
        if value is None:
            return
        role, method = ("regressor", "predict") if self.regressor else ("classifier", "predict_proba")
        if isinstance(value, type):
            raise InvalidParameterError(
                f"{owner}: {name} must be a {role} instance, not a class: write {value.__name__}() "
                f"instead of {value.__name__}"
            )
        if not all(hasattr(value, needed) for needed in ("get_params", "fit", method)):
            raise InvalidParameterError(
                f"{owner}: {name} must be None or a scikit-learn {role} with get_params, fit and "
                f"{method} (e.g. sklearn.ensemble.HistGradientBoosting{role.title()}()); got {value!r}"
            )

    def check_in(self, owner: str, name: str, params: Mapping[str, Any]) -> None:
        self.check(owner, name, params[name])


def predictor_input(X: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """The predictor's features: the examples' raw features (as the trees read them, float32), then
    the last kept level's M concatenated class vectors."""
    return np.hstack([np.asarray(X, dtype=np.float64), vectors])


def check_predictor_weights(owner: str, predictor: Any, sample_weight: np.ndarray | None) -> None:
    """With example weights, the predictor is fitted with them: refuse one whose ``fit`` takes none,
    before any tree grows (its own error would come after the whole cascade)."""
    if (
        sample_weight is not None
        and predictor is not None
        and not has_fit_parameter(predictor, "sample_weight")
    ):
        raise ValueError(
            f"{owner}: predictor {predictor!r} takes no sample_weight in fit, and this fit has example "
            "weights (sample_weight or class_weight); use a predictor that takes them, or None"
        )


def fit_predictor(
    predictor: Any,
    X: np.ndarray,
    vectors: np.ndarray,
    y_code: np.ndarray,
    sample_weight: np.ndarray | None = None,
    random_state: np.random.RandomState | None = None,
) -> Any:
    """A clone of ``predictor`` fitted on the training examples' raw features and out-of-fold class
    vectors (each from fold models that never saw the example), on the class codes, with the
    examples' weights when the fit has them; None for None.

    Every ``random_state`` parameter of the clone left at None (its own or a nested estimator's)
    gets a seed drawn from ``random_state``, the cascade's stream, so that a seeded cascade fits
    the same predictor every time; seeds the user set stay as they are.
    """
    if predictor is None:
        return None
    fitted = clone(predictor)
    if random_state is not None:
        unseeded = [
            name
            for name, value in sorted(fitted.get_params(deep=True).items())
            if (name == "random_state" or name.endswith("__random_state")) and value is None
        ]
        if unseeded:
            fitted.set_params(
                **{name: int(random_state.randint(np.iinfo(np.int32).max)) for name in unseeded}
            )
    if sample_weight is None:
        return fitted.fit(predictor_input(X, vectors), y_code)
    return fitted.fit(predictor_input(X, vectors), y_code, sample_weight=sample_weight)
