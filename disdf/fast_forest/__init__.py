"""The compiled small-data forest engine (``engine="fast"``)."""

from disdf.fast_forest.forest import FastForest, FastForestParams

__all__ = ["FastForest", "FastForestParams"]
