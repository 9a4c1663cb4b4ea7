"""disdf: the Discriminative Deep Forest (Utkin & Ryabinin) and the gcForest cascade.

The public API, by concern: the cascades (:mod:`disdf.cascade`), one forest alone
(:mod:`disdf.forests`), the weight solvers (:mod:`disdf.weights`), multi-grained scanning
(:mod:`disdf.scanning`), the metric view (:mod:`disdf.metric`) and the paper's data
(:mod:`disdf.datasets`). Every public name is importable from here.
"""

from disdf._utils.parameters import InvalidParameterError
from disdf._utils.persistence import VERSION, CorruptedModelError, ModelVersionError
from disdf.cascade import (
    CascadeForestClassifier,
    CascadeForestRegressor,
    DisDFClassifier,
    InsufficientMemoryError,
    SolverFallbackWarning,
    warm_up,
)
from disdf.datasets import DataFileError, load_dataset, load_mnist, load_subjects
from disdf.forests import PlainForestClassifier
from disdf.metric import EmbeddingKNeighborsClassifier
from disdf.scanning import MultiGrainedScanner, scanning_pipeline
from disdf.weights import (
    OneHotVectors,
    PairStatistics,
    SampledWeightProblem,
    WeightProblem,
    WeightSolution,
    WeightSolverError,
    solve_weights,
)

__version__ = VERSION

__all__ = [
    "CascadeForestClassifier",
    "CascadeForestRegressor",
    "CorruptedModelError",
    "DataFileError",
    "DisDFClassifier",
    "EmbeddingKNeighborsClassifier",
    "InsufficientMemoryError",
    "InvalidParameterError",
    "ModelVersionError",
    "MultiGrainedScanner",
    "OneHotVectors",
    "PairStatistics",
    "PlainForestClassifier",
    "SampledWeightProblem",
    "SolverFallbackWarning",
    "WeightProblem",
    "WeightSolution",
    "WeightSolverError",
    "__version__",
    "load_dataset",
    "load_mnist",
    "load_subjects",
    "scanning_pipeline",
    "solve_weights",
    "warm_up",
]
