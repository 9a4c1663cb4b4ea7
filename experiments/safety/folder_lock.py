"""One writer per output folder: an advisory lock that a killed run cannot leave behind.

``flock`` on ``<folder>/.lock``: the kernel releases it when the holder's
process ends, however it ends (SIGKILL included), so a lock is never stuck.
The file keeps the holder's pid, host and start time for the message a second
run gets. Re-entrant within a process (the command line holds it over units
and tables; each also takes it when called alone).
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

LOCK_NAME = ".lock"
_held: dict[Path, int] = {}


class FolderInUseError(RuntimeError):
    """Another run is writing to the same output folder."""


@contextmanager
def exclusive_folder(folder: str | os.PathLike) -> Iterator[Path]:
    """Hold ``folder`` for this process; raise FolderInUseError at once if another process holds it."""
    folder = Path(folder).resolve()
    if folder in _held:
        _held[folder] += 1
        try:
            yield folder
        finally:
            _held[folder] -= 1
        return
    folder.mkdir(parents=True, exist_ok=True)
    handle = open(folder / LOCK_NAME, "a+", encoding="utf-8")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip() or "a run that has not yet said who it is"
        handle.close()
        raise FolderInUseError(
            f"{folder} is being written by another run ({holder}); two runs on one folder would record "
            "every unit twice. Wait for it to finish, stop it, or choose another runtime.output_dir."
        ) from None
    handle.seek(0)
    handle.truncate()
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    handle.write(json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "since": started}) + "\n")
    handle.flush()
    _held[folder] = 1
    try:
        yield folder
    finally:
        del _held[folder]
        fcntl.flock(handle, fcntl.LOCK_UN)
        handle.close()
