"""Class labels as the estimators read them: of one kind, else an error naming ``y``."""

from __future__ import annotations

from numbers import Number

import numpy as np
from sklearn.utils.multiclass import check_classification_targets


def encode_labels(owner: str, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(classes_, y_code)`` of classification targets ``y``: numpy's sorted unique labels and each
    example's index among them. Labels of mixed kinds (numbers and strings), which cannot be
    ordered, are refused naming ``y`` (numpy's own error names neither)."""
    kinds = {
        "number" if isinstance(label, (Number, np.number, np.bool_)) else type(label).__name__
        for label in np.asarray(y, dtype=object).ravel()
    }
    if len(kinds) > 1:
        raise ValueError(
            f"{owner}: y mixes label types ({', '.join(sorted(kinds))}); use labels of one type, "
            "e.g. y.astype(str)"
        )
    check_classification_targets(y)
    classes, y_code = np.unique(y, return_inverse=True)
    return classes, y_code
