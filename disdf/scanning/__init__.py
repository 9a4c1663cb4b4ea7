"""Multi-grained scanning (gcForest's front end): :class:`~disdf.scanning.MultiGrainedScanner`, a pipeline."""

from disdf.scanning._pipeline import scanning_pipeline
from disdf.scanning._scanner import MultiGrainedScanner

__all__ = ["MultiGrainedScanner", "scanning_pipeline"]
