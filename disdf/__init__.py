"""disdf: the Discriminative Deep Forest (Utkin & Ryabinin) and the gcForest cascade."""

from importlib.metadata import PackageNotFoundError, version

from disdf.cascade import CascadeForestClassifier
from disdf.discriminative import DisDFClassifier, SolverFallbackWarning
from disdf.weights import WeightProblem, WeightSolution, WeightSolverError, solve_weights

try:
    __version__ = version("disdf")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0+unknown"

__all__ = [
    "CascadeForestClassifier",
    "DisDFClassifier",
    "SolverFallbackWarning",
    "WeightProblem",
    "WeightSolution",
    "WeightSolverError",
    "__version__",
    "solve_weights",
]
