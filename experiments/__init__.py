"""Hydra runners that reproduce the paper's tables with the disdf library."""
