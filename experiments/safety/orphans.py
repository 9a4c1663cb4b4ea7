"""A runner's worker processes end with it, even when it is killed without a word (SIGKILL).

loky keeps an idle worker for 300 s and does not notice that the process that started it is gone,
so after a ``kill -9`` of the runner its workers (about 340 MB each) lived on for minutes. Each job
a worker runs first calls :func:`exit_with_runner`, which starts, once per process, a daemon thread
that ends the process within :data:`POLL_SECONDS` of the runner's death (the worker's parent
changes: it is re-parented). It does nothing in the runner itself (``n_jobs=1``) or in a process
the runner did not start (a Dask worker), and it changes no record.
"""

from __future__ import annotations

import os
import threading
import time

#: How often a worker looks for its runner.
POLL_SECONDS = 1.0
#: A process's watch, started once (the runner's pid it watches).
_watching: set[int] = set()
_lock = threading.Lock()


def _watch(runner_pid: int) -> None:
    while os.getppid() == runner_pid:
        time.sleep(POLL_SECONDS)
    os._exit(1)  # the runner is gone; nothing of this job can be recorded any more


def exit_with_runner(runner_pid: int) -> None:
    """In a worker the runner ``runner_pid`` started: end this process when the runner ends."""
    if os.getpid() == runner_pid or os.getppid() != runner_pid:
        return
    with _lock:
        if runner_pid in _watching:
            return
        _watching.add(runner_pid)
    threading.Thread(target=_watch, args=(runner_pid,), name="exit-with-runner", daemon=True).start()
