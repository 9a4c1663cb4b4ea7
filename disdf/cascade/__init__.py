"""The cascade and its estimators: gcForest (:class:`CascadeForestClassifier`), DisDF
(:class:`DisDFClassifier`) and the regressor (:class:`CascadeForestRegressor`), level by level, with
the disk mode and the memory check they share."""

from disdf.cascade._cascade import CascadeForestClassifier
from disdf.cascade._discriminative import DEFAULT_TUNE_GRID, DisDFClassifier, SolverFallbackWarning
from disdf.cascade._fit_memory import InsufficientMemoryError
from disdf.cascade._regressor import CascadeForestRegressor
from disdf.cascade._warm_up import warm_up

__all__ = [
    "DEFAULT_TUNE_GRID",
    "CascadeForestClassifier",
    "CascadeForestRegressor",
    "DisDFClassifier",
    "InsufficientMemoryError",
    "SolverFallbackWarning",
    "warm_up",
]
