"""The cascade and its estimators: gcForest (:class:`CascadeForestClassifier`), DisDF
(:class:`DisDFClassifier`) and the regressor (:class:`CascadeForestRegressor`), level by level, with
the disk mode and the memory check they share
(:func:`estimator_fit_memory`), and several estimators fitted on one shared first level
(:func:`fit_sharing_first_level`)."""

from disdf.cascade._cascade import CascadeForestClassifier
from disdf.cascade._discriminative import DEFAULT_TUNE_GRID, DisDFClassifier, SolverFallbackWarning
from disdf.cascade._fit_memory import (
    FitMemory,
    InsufficientMemoryError,
    check_estimator_memory,
    estimator_fit_memory,
)
from disdf.cascade._regressor import CascadeForestRegressor
from disdf.cascade._shared_first_level import fit_sharing_first_level
from disdf.cascade._warm_up import warm_up

__all__ = [
    "DEFAULT_TUNE_GRID",
    "CascadeForestClassifier",
    "CascadeForestRegressor",
    "DisDFClassifier",
    "FitMemory",
    "InsufficientMemoryError",
    "SolverFallbackWarning",
    "check_estimator_memory",
    "estimator_fit_memory",
    "fit_sharing_first_level",
    "warm_up",
]
