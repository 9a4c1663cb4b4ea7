"""Multi-grained scanning (gcForest's front end): :class:`~disdf.scanning.MultiGrainedScanner`, a pipeline."""

from disdf.scanning.pipeline import scanning_pipeline
from disdf.scanning.scanner import MultiGrainedScanner

__all__ = ["MultiGrainedScanner", "scanning_pipeline"]
