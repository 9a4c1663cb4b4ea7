"""What a cascade level needs in memory at least, checked before any tree is grown.

A fit that cannot fit is refused at once with the estimate and what would fit,
instead of being killed by the system an hour into growing trees. The
estimate is a *lower bound* of one level (later levels and the kept trees add
to it), made of what a level cannot do without:

* the held-out per-tree class probabilities of every forest, ``(n, T, C)``
  float64 over a forest's K fold models (:attr:`disdf.forest_fit.ForestFit.held_out`);
* the fitted trees: at least 3 nodes of :data:`NODE_BYTES` each per tree and fold model;
* for DisDF with an exact weight solver, the rows Q_ij (length T, float64) of
  the different-class pairs of one fold model's held-out examples, eq. (72).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

#: Bytes of a fitted node: feature (int32), threshold (float64), two children (int32).
NODE_BYTES = 20
GIB = 2**30


class InsufficientMemoryError(MemoryError):
    """A fit whose estimated memory exceeds what the machine has available."""


@dataclass(frozen=True)
class LevelMemory:
    """Bytes one level needs at least, by part."""

    held_out_probabilities: int
    trees: int
    pair_rows: int

    @property
    def total(self) -> int:
        return self.held_out_probabilities + self.trees + self.pair_rows

    def describe(self) -> str:
        parts = (
            ("held-out per-tree probabilities", self.held_out_probabilities),
            ("trees", self.trees),
            ("pair rows Q_ij", self.pair_rows),
        )
        return ", ".join(f"{name} {size / GIB:.3g} GiB" for name, size in parts if size)


def different_class_pairs_per_fold(class_counts: np.ndarray, n_folds: int) -> int:
    """Different-class pairs among one fold model's held-out examples (a stratified 1/K of each class)."""
    per_fold = np.asarray(class_counts, dtype=float) / n_folds
    total = per_fold.sum()
    return int((total**2 - np.sum(per_fold**2)) / 2)


def level_memory(
    n_samples: int,
    n_classes: int,
    n_trees: int,
    n_forests: int,
    n_folds: int,
    pair_rows: int = 0,
) -> LevelMemory:
    """The lower bound of one level (see the module's docstring); ``pair_rows``: Q rows held at once."""
    return LevelMemory(
        held_out_probabilities=n_forests * n_samples * n_trees * n_classes * 8,
        trees=n_forests * n_folds * n_trees * 3 * NODE_BYTES,
        pair_rows=pair_rows * n_trees * 8,
    )


def available_memory_bytes() -> int | None:
    """Memory the system can still give (Linux MemAvailable; elsewhere physical memory), or None."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def check_level_memory(memory: LevelMemory, what: str, remedy: str, available: int | None = None) -> None:
    """Raise :class:`InsufficientMemoryError` if ``memory`` exceeds the available memory."""
    available = available_memory_bytes() if available is None else available
    if available is not None and memory.total > available:
        raise InsufficientMemoryError(
            f"{what}: one cascade level needs at least {memory.total / GIB:.3g} GiB ({memory.describe()}), "
            f"more than the {available / GIB:.3g} GiB available; {remedy}"
        )
