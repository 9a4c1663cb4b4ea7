"""What each estimator of a split is fitted on: the split itself, or a scan of it made once.

A method may be a scanning pipeline (:func:`disdf.scanning.scanning_pipeline`: multi-grained
scanning, then a cascade). The scanner's result depends only on its own parameters, the seed and
the split, not on T or the cascade behind it, so the pipelines of one split whose scanners are
equal share one: it is fitted once (``fit_transform``: the training examples' out-of-fold
vectors), the test examples are transformed once, and each pipeline's cascade is grown on them,
sharing level 1 with the others as plain cascades do. Each pipeline ends exactly as its own
``fit`` would leave it (the fitted scanner, then the cascade), with fewer trees grown.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import joblib
import numpy as np
from sklearn.pipeline import Pipeline

from disdf import CascadeForestClassifier
from disdf.scanning import MultiGrainedScanner


@dataclass
class Inputs:
    """What one estimator's model is fitted and scored on, and its share of the scan's seconds."""

    model: Any  # the cascade of a scanning pipeline, else the estimator itself
    X_train: np.ndarray
    X_test: np.ndarray
    fit_seconds: float = 0.0
    predict_seconds: float = 0.0


def is_scanning_pipeline(estimator) -> bool:
    """A two-step Pipeline of a MultiGrainedScanner and a cascade."""
    return (
        isinstance(estimator, Pipeline)
        and len(estimator.steps) == 2
        and isinstance(estimator.steps[0][1], MultiGrainedScanner)
        and isinstance(estimator.steps[1][1], CascadeForestClassifier)
    )


def split_inputs(
    estimators: list, X_train: np.ndarray, y_train: np.ndarray, X_test: np.ndarray
) -> list[Inputs]:
    """Per estimator its :class:`Inputs`; every distinct scanner among them fitted once (in place
    in every pipeline that has it), its seconds shared among them."""
    groups: dict[str, list[int]] = {}
    for position, estimator in enumerate(estimators):
        if is_scanning_pipeline(estimator):
            groups.setdefault(joblib.hash(estimator.steps[0][1].get_params()), []).append(position)
    inputs = [Inputs(estimator, X_train, X_test) for estimator in estimators]
    for positions in groups.values():
        scanner = estimators[positions[0]].steps[0][1]
        start = time.perf_counter()
        Z_train = scanner.fit_transform(X_train, y_train)
        fitted = time.perf_counter()
        Z_test = scanner.transform(X_test)
        transformed = time.perf_counter()
        for position in positions:
            pipeline = estimators[position]
            pipeline.steps[0] = (pipeline.steps[0][0], scanner)
            inputs[position] = Inputs(
                pipeline.steps[1][1],
                Z_train,
                Z_test,
                (fitted - start) / len(positions),
                (transformed - fitted) / len(positions),
            )
    return inputs
