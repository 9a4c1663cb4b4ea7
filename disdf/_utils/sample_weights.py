"""Example weights as the estimators take them: ``sample_weight`` and ``class_weight`` made one weight
per training example, checked before any work.

``class_weight`` becomes per-example weights (scikit-learn's ``compute_sample_weight`` on the
labels) multiplied into ``sample_weight``, as scikit-learn's forests do, so every engine and every
use of the weights (trees, level scores, DisDF's pairs) reads one array. Neither given, or every
weight 1: None, and the estimators run exactly the code they ran before weights existed (weights of 1
are no weights; scikit-learn's bootstrapped forests would otherwise draw other bootstrap samples).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.validation import _check_sample_weight

from disdf._utils.parameters import Constraint, Float, InvalidParameterError

#: The class weights computed from the labels (scikit-learn's preset: n / (n_classes * n_c)).
CLASS_WEIGHT_PRESETS = ("balanced",)


@dataclass(frozen=True)
class ClassWeight(Constraint):
    """``class_weight``: None, "balanced" or a dict {label: weight}, each weight a finite number >= 0.

    scikit-learn's "balanced_subsample" (rebalancing each tree's bootstrap sample) is refused: here
    class weights are one weight per example, the same for every tree, fold model and level score.
    """

    def check(self, owner: str, name: str, value: Any) -> None:
        if value is None or (isinstance(value, str) and value in CLASS_WEIGHT_PRESETS):
            return
        if isinstance(value, str) and value == "balanced_subsample":
            raise InvalidParameterError(
                f"{owner}: {name}='balanced_subsample' is not supported: class weights are one weight per "
                "example for every tree, fold model and level score; use 'balanced'"
            )
        if isinstance(value, Mapping):
            for label, weight in value.items():
                Float(0.0).check(owner, f"{name}[{label!r}]", weight)
            return
        raise InvalidParameterError(
            f"{owner}: {name} must be None, 'balanced' or a dict {{label: weight >= 0}}; got {value!r}"
        )


def checked_sample_weight(owner: str, sample_weight: Any, n_samples: int) -> np.ndarray:
    """``sample_weight`` as float64, one finite weight >= 0 per example, not all 0 (scikit-learn's
    ``_check_sample_weight``; a scalar weighs every example alike); else a ValueError naming it."""
    try:
        weights = _check_sample_weight(
            sample_weight, np.empty((n_samples, 0)), dtype=np.float64, ensure_non_negative=True, copy=True
        )
    except (TypeError, ValueError) as error:
        raise ValueError(
            f"{owner}: sample_weight must be None, a number or {n_samples} finite weights >= 0 (one per "
            f"example of X); {error}"
        ) from None
    if not weights.sum() > 0:
        raise ValueError(f"{owner}: sample_weight must not be 0 for every example; got {n_samples} zeros")
    return weights


def example_weights(owner: str, y: np.ndarray, sample_weight: Any, class_weight: Any) -> np.ndarray | None:
    """Each training example's weight, ``sample_weight`` times its class's weight under
    ``class_weight`` (checked by :class:`ClassWeight`), for labels ``y``; None when neither is given
    or every weight is 1."""
    if sample_weight is None and class_weight is None:
        return None
    weights = (
        np.ones(len(y)) if sample_weight is None else checked_sample_weight(owner, sample_weight, len(y))
    )
    if class_weight is not None:
        try:
            weights *= compute_sample_weight(class_weight, y)
        except ValueError as error:  # a dict that names no class of y, or misses some
            raise ValueError(f"{owner}: class_weight does not fit the labels of y: {error}") from None
    if not weights.sum() > 0:
        raise ValueError(
            f"{owner}: sample_weight times class_weight is 0 for every example; give some class a weight > 0"
        )
    return None if np.all(weights == 1.0) else weights


def same_weights(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    """Whether two fits weigh their examples alike (None: unweighted, which equals only None)."""
    if a is None or b is None:
        return a is None and b is None
    return np.array_equal(a, b)


def check_fold_weights(
    owner: str, weights: np.ndarray | None, folds: list[tuple[np.ndarray, np.ndarray]]
) -> None:
    """Refuse, before a level's trees grow, folds whose fold model would train on no weight: every
    example of weight > 0 fell in that fold's held-out part. Said in the user's terms (how many
    examples have weight > 0), not the forest's."""
    if weights is None:
        return
    for k, (train, _) in enumerate(folds):
        if not weights[train].sum() > 0:
            positive = int(np.count_nonzero(weights > 0))
            raise ValueError(
                f"{owner}: sample_weight gives weight > 0 to only {positive} of {len(weights)} examples, and "
                f"all of them fall in the held-out part of fold {k + 1} of {len(folds)}: its fold model "
                "would train on no weight. Give weight > 0 to more examples (in every class), or use "
                "fewer folds (n_folds)"
            )


#: The largest example weight DisDF's weight problem takes: a pair weighs s_i s_j against lambda_
#: (eqs. (70)-(72) are not scale-invariant), so beyond this lambda_ is negligible and the solvers'
#: numbers unstable (weights of 1e9 failed with numerical errors).
MAX_PAIR_WEIGHT = 1e6


def check_pair_weight_scale(owner: str, weights: np.ndarray | None) -> None:
    """Refuse weights DisDF's pairs cannot take (above :data:`MAX_PAIR_WEIGHT`), in one line naming
    sample_weight and what to do, before any tree grows."""
    if weights is None or weights.max() <= MAX_PAIR_WEIGHT:
        return
    raise ValueError(
        f"{owner}: sample_weight (times class_weight) reaches {weights.max():.3g}, above "
        f"{MAX_PAIR_WEIGHT:g}: DisDF's pairs weigh s_i s_j against lambda_, which such weights make "
        "negligible and numerically unstable. Divide sample_weight by its mean (weights of mean 1 keep "
        "lambda_'s meaning); CascadeForestClassifier, whose trees read only the weights' ratios, takes "
        "any finite scale"
    )
