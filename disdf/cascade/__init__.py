"""The cascade and its estimators: gcForest (:class:`CascadeForestClassifier`), DisDF
(:class:`DisDFClassifier`) and the regressor (:class:`CascadeForestRegressor`), level by level, the
fitted levels they keep (:class:`CascadeLevel`, :class:`ForestFit`, :class:`LevelWeightFit`), with
the disk mode and the memory check they share
(:func:`estimator_fit_memory`), and several estimators fitted on one shared first level
(:func:`fit_sharing_first_level`)."""

from disdf.cascade._cascade import CascadeForestClassifier
from disdf.cascade._cascade_level import CascadeLevel, LevelWeightFit
from disdf.cascade._discriminative import DEFAULT_TUNE_GRID, DisDFClassifier, SolverFallbackWarning
from disdf.cascade._fit_memory import (
    FitMemory,
    InsufficientMemoryError,
    check_estimator_memory,
    estimator_fit_memory,
)
from disdf.cascade._forest_fit import ForestFit
from disdf.cascade._regressor import CascadeForestRegressor
from disdf.cascade._shared_first_level import fit_sharing_first_level
from disdf.cascade._warm_up import warm_up

__all__ = [
    "DEFAULT_TUNE_GRID",
    "CascadeForestClassifier",
    "CascadeForestRegressor",
    "CascadeLevel",
    "DisDFClassifier",
    "FitMemory",
    "ForestFit",
    "InsufficientMemoryError",
    "LevelWeightFit",
    "SolverFallbackWarning",
    "check_estimator_memory",
    "estimator_fit_memory",
    "fit_sharing_first_level",
    "warm_up",
]
