"""A fit's progress, through the ``disdf`` logger (not ``print``): per level with ``verbose >= 1`` (its
number, out-of-fold accuracy, time, elapsed time, peak memory), per forest with ``verbose >= 2``.

A program that configures logging routes it as it likes; one that does not still sees the lines
it asked for with ``verbose``: the logger then gets a handler to stderr of its own, once.
"""

from __future__ import annotations

import logging
import resource
import sys
import time
from dataclasses import dataclass, field

LOGGER = logging.getLogger("disdf")


def peak_memory_gib() -> float:
    """The process's peak resident memory so far, GiB (ru_maxrss: KiB on Linux, bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (2**30 if sys.platform == "darwin" else 2**20)


def _visible() -> None:
    """Give the logger a stderr handler when nothing would show its INFO lines (no handler anywhere)."""
    if not LOGGER.hasHandlers():
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(message)s"))
        LOGGER.addHandler(handler)
        LOGGER.setLevel(logging.INFO)


@dataclass
class FitProgress:
    """The progress lines of one fit of ``owner`` (the estimator's class name)."""

    owner: str
    verbose: int
    started: float = field(default_factory=time.perf_counter)
    level_started: float = field(default_factory=time.perf_counter)

    def __post_init__(self) -> None:
        if self.verbose:
            _visible()

    def start_level(self) -> None:
        self.level_started = time.perf_counter()

    def forest(self, level: int, position: int, kind: str, accuracy: float) -> None:
        if self.verbose >= 2:
            LOGGER.info(
                "[%s] level %d, forest %d (%s): out-of-fold accuracy %.4f",
                self.owner, level + 1, position + 1, kind, accuracy,
            )  # fmt: skip

    def level(self, level: int, accuracy: float) -> None:
        if self.verbose >= 1:
            now = time.perf_counter()
            LOGGER.info(
                "[%s] level %d: out-of-fold accuracy %.4f, %.1f s (elapsed %.1f s), peak memory %.2f GiB",
                self.owner, level + 1, accuracy, now - self.level_started, now - self.started,
                peak_memory_gib(),
            )  # fmt: skip
