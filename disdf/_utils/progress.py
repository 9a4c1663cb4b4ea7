"""A fit's progress, through the ``disdf`` logger (not ``print``): per level with ``verbose >= 1`` (its
number, out-of-fold accuracy, time, elapsed time, peak memory), per forest with ``verbose >= 2``;
and, where stderr is a terminal, a progress bar over the levels.

A program that configures logging routes it as it likes; one that does not still sees the lines
it asked for with ``verbose``: the logger then gets a handler to stderr of its own, once.

The bar (``verbose >= 1``, ``sys.stderr.isatty()``, and tqdm installed: it is no dependency of
the library, only of its experiments extra) counts the levels grown out of ``max_levels`` and shows
the last level's out-of-fold accuracy (a fit that stops early fills it to the levels grown); the
logger's own stderr lines are then written above it (tqdm's ``logging_redirect_tqdm``). Output
that is not a terminal (a file, a pipe, a notebook's captured stream, CI) never gets a bar, only
the lines; without tqdm a terminal gets the lines too.
"""

from __future__ import annotations

import logging
import resource
import sys
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any

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


def _terminal() -> bool:
    """Whether stderr is a terminal (a closed or replaced stream without ``isatty`` is not)."""
    isatty = getattr(sys.stderr, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


def level_bar(owner: str, total: int, stack: ExitStack) -> Any:
    """A tqdm bar over ``total`` levels on stderr, closed by ``stack`` (with the logger's console lines
    redirected above it meanwhile), or None when stderr is no terminal or tqdm is not installed."""
    if not _terminal():
        return None
    try:
        from tqdm import tqdm
        from tqdm.contrib.logging import logging_redirect_tqdm
    except ImportError:
        return None
    bar = stack.enter_context(tqdm(total=total, desc=owner, unit="level", file=sys.stderr, leave=True))
    if any(isinstance(handler, logging.StreamHandler) for handler in LOGGER.handlers):
        stack.enter_context(logging_redirect_tqdm(loggers=[LOGGER], tqdm_class=tqdm))
    return bar


@dataclass
class FitProgress:
    """The progress lines (and bar) of one fit of ``owner`` (the estimator's class name) over at most
    ``max_levels`` levels; a context manager, which closes the bar however the fit ends."""

    owner: str
    verbose: int
    max_levels: int = 0
    score_name: str = "accuracy"  # the level score's name: the regressor's is R^2
    held_out: str = "out-of-fold"  # whose vectors it scores: "out-of-bag" with out_of_bag=True
    started: float = field(default_factory=time.perf_counter)
    level_started: float = field(default_factory=time.perf_counter)
    _stack: ExitStack = field(default_factory=ExitStack)
    _bar: Any = None

    def __post_init__(self) -> None:
        if self.verbose:
            _visible()

    def __enter__(self) -> FitProgress:
        if self.verbose >= 1 and self.max_levels > 0:
            self._bar = level_bar(self.owner, self.max_levels, self._stack)
        return self

    def __exit__(self, error: type[BaseException] | None, *exc_info: object) -> None:
        if self._bar is not None and error is None:  # stopped before max_levels: the bar ends full
            self._bar.total = self._bar.n
            self._bar.refresh()
        self._stack.close()
        self._bar = None

    def start_level(self) -> None:
        self.level_started = time.perf_counter()

    def forest(self, level: int, position: int, kind: str, score: float) -> None:
        if self.verbose >= 2:
            LOGGER.info(
                "[%s] level %d, forest %d (%s): %s %s %.4f",
                self.owner, level + 1, position + 1, kind, self.held_out, self.score_name, score,
            )  # fmt: skip

    def stopped(self, kept: int, score: float, reason: str) -> None:
        """The level kept and why the fit stopped growing (``verbose >= 1``)."""
        if self.verbose >= 1:
            LOGGER.info(
                "[%s] kept level %d (%s %s %.4f); stopped: %s",
                self.owner, kept, self.held_out, self.score_name, score, reason,
            )  # fmt: skip

    def level(self, level: int, score: float) -> None:
        if self.verbose >= 1:
            now = time.perf_counter()
            LOGGER.info(
                "[%s] level %d: %s %s %.4f, %.1f s (elapsed %.1f s), peak memory %.2f GiB",
                self.owner, level + 1, self.held_out, self.score_name, score, now - self.level_started,
                now - self.started,
                peak_memory_gib(),
            )  # fmt: skip
        if self._bar is not None:
            self._bar.set_postfix_str(f"{self.score_name} {score:.4f}", refresh=False)
            self._bar.update(1)
