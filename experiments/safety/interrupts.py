"""Ctrl-C and SIGTERM stop a command the same way, in every phase: exit 130 with a message.

A shell ignores SIGINT in background jobs (``cmd &``), and Python then never
raises KeyboardInterrupt; both handlers are set explicitly. A signal that
lands inside numba's compiler or compiled code can surface as another
exception (a SystemError caused by the KeyboardInterrupt, or a RuntimeError
with no cause at all), so whether a stop was asked for is also remembered
(:func:`stop_requested`), not only read from the exception.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

#: After Ctrl-C or SIGTERM, the command line waits this long for a clean stop, then exits anyway.
FORCE_EXIT_AFTER_SECONDS = 30.0
#: Exit status of a stopped command (128 + SIGINT), as a shell reports Ctrl-C.
INTERRUPTED_EXIT_STATUS = 130
_received: list[str] = []
_depth: list[int] = []  # nesting of stop_signals_interrupt blocks in this process


def stop_requested() -> bool:
    """Whether a SIGINT or SIGTERM arrived while :func:`stop_signals_interrupt` was in force."""
    return bool(_received)


@contextmanager
def stop_signals_interrupt(force_exit_after: float | None = None) -> Iterator[None]:
    """SIGTERM (schedulers, kill) and SIGINT raise KeyboardInterrupt in the block.

    With ``force_exit_after`` (the command line), a stop that has not finished
    that many seconds after the signal, or a second signal, ends the process
    at once: every finished unit is already on disk, so cleaning up the worker
    pool is not worth waiting for.
    """

    def interrupt(signum, frame):
        name = signal.Signals(signum).name
        if force_exit_after is not None:
            if _received:
                _exit_now(f"second {name}")
            watchdog = threading.Timer(
                force_exit_after, _exit_now, args=(f"{name} {force_exit_after:g} s ago",)
            )
            watchdog.daemon = True
            watchdog.start()
        _received.append(name)
        raise KeyboardInterrupt(name)

    def quiet_about_the_stop(unraisable):
        # The interrupt can land in a callback whose exceptions Python cannot raise (numba's ctypes
        # cache callback during compilation), and a compilation cut short leaves llvmlite objects whose
        # destructors then fail: once a stop is asked for, that is noise, not news (the stop is in
        # _received and the command exits 130 with its own message).
        if not (_received or isinstance(unraisable.exc_value, KeyboardInterrupt)):
            previous_hook(unraisable)

    if not _depth:
        _received.clear()  # a new command (or test) starts with no stop asked for
    _depth.append(1)
    previous = {sig: signal.signal(sig, interrupt) for sig in (signal.SIGINT, signal.SIGTERM)}
    previous_hook, sys.unraisablehook = sys.unraisablehook, quiet_about_the_stop
    try:
        yield
    finally:
        _depth.pop()
        sys.unraisablehook = previous_hook
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _exit_now(why: str) -> None:
    """Kill the worker processes and exit with 130, skipping every clean-up."""
    for child in multiprocessing.active_children():
        child.kill()
    sys.stderr.write(
        f"\nStopping ({why}): exiting now; finished units are saved, run the same command to resume.\n"
    )
    sys.stderr.flush()
    os._exit(INTERRUPTED_EXIT_STATUS)


def exit_interrupted(message: str | None = None) -> None:
    """Log ``message``, flush every log handler and stream, and exit 130 at once.

    No interpreter teardown: after a signal that interrupted numba's compiler,
    LLVM's state can crash the process on the way out (SIGSEGV instead of 130).
    """
    if message:
        logging.getLogger("experiments.run").warning(message)
    for handler in logging.getLogger().handlers:
        handler.flush()
    sys.stdout.flush()
    sys.stderr.flush()
    # The worker processes (loky's) would otherwise idle for minutes, hundreds of MB each, after an
    # exit without teardown; they hold no unrecorded result (a split is recorded whole by the parent).
    for child in multiprocessing.active_children():
        child.kill()
    os._exit(INTERRUPTED_EXIT_STATUS)


def caused_by_interrupt(error: BaseException | None) -> bool:
    """True if ``error`` is a KeyboardInterrupt or was raised because of one.

    A signal that arrives while numba code runs surfaces as a SystemError whose
    cause is the KeyboardInterrupt raised by the handler.
    """
    seen = 0
    while error is not None and seen < 20:
        if isinstance(error, KeyboardInterrupt):
            return True
        error = error.__cause__ or error.__context__
        seen += 1
    return False


def run_interruptible(main: Callable[[], None], what: str) -> None:
    """Run a script's ``main`` so that Ctrl-C or SIGTERM exits 130 with one line naming ``what`` stopped."""
    try:
        with stop_signals_interrupt():
            main()
    except BaseException as error:
        if isinstance(error, SystemExit) or not (caused_by_interrupt(error) or stop_requested()):
            raise
        sys.stderr.write(
            f"Interrupted while writing {what}: each file is whole (old or new); run it again.\n"
        )
        raise SystemExit(INTERRUPTED_EXIT_STATUS) from None


def stop_from_the_first_instant() -> None:
    """For a command line's ``__main__``, before its heavy imports: SIGTERM stops it as Ctrl-C does,
    and an interrupt before ``main`` runs exits 130 with one line instead of a traceback."""
    signal.signal(signal.SIGTERM, signal.default_int_handler)

    def interrupted_while_starting(kind, value, traceback):
        if issubclass(kind, KeyboardInterrupt):
            sys.stderr.write("Interrupted while starting: nothing was run.\n")
            sys.stderr.flush()
            os._exit(INTERRUPTED_EXIT_STATUS)
        sys.__excepthook__(kind, value, traceback)

    sys.excepthook = interrupted_while_starting
