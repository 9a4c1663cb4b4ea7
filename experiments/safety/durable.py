"""Files a crash cannot corrupt: JSON-lines appends that can only tear at the end, atomic rewrites.

A run may be killed at any moment (SIGKILL, a scheduler's time limit, a power
cut). Appends go out as one ``write`` system call on an ``O_APPEND`` descriptor,
then ``fsync``, so the only possible damage is a torn last line; the reader
drops it with a warning and the next append cuts it first. Whole files
(tables, reports, figures) are replaced in one rename by
:mod:`disdf._utils.atomic_files`, so a reader sees either the old or the new file.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import warnings
from pathlib import Path


class UnreadableFileError(ValueError):
    """A records or log path that cannot be read as a file (a folder, no permission, an I/O error)."""


def read_numbered_json_lines(path: str | os.PathLike) -> list[tuple[int, object]]:
    """(line number, value) of each JSON line; a torn last line, a line that is not UTF-8 text or
    not JSON is dropped with a warning naming the file and the line.

    Reading never needs write access. A path that is not a readable file raises
    :class:`UnreadableFileError` naming it.
    """
    path = Path(path)
    if not path.exists():
        return []
    try:
        data = path.read_bytes()
    except OSError as error:
        raise _unreadable(path, error) from error
    values = []
    for number, line in enumerate(data.splitlines(keepends=True), start=1):
        if not line.endswith(b"\n"):
            warnings.warn(f"{path}:{number}: dropping a torn last line (an interrupted write)", stacklevel=2)
            break
        try:
            values.append((number, json.loads(line.decode("utf-8"))))
        except UnicodeDecodeError:
            warnings.warn(f"{path}:{number}: dropping a line that is not UTF-8 text", stacklevel=2)
        except json.JSONDecodeError:
            warnings.warn(f"{path}:{number}: dropping a line that is not valid JSON", stacklevel=2)
    return values


def check_readable(path: str | os.PathLike) -> None:
    """Raise :class:`UnreadableFileError` if ``path`` exists but cannot be read (without parsing it)."""
    path = Path(path)
    if path.exists():
        try:
            with open(path, "rb") as handle:
                handle.read(1)
        except OSError as error:
            raise _unreadable(path, error) from error


def _unreadable(path: Path, error: OSError) -> UnreadableFileError:
    return UnreadableFileError(
        f"{path} is not a readable records file ({error.strerror or error}); move it away or fix "
        "its permissions"
    )


def read_json_lines(path: str | os.PathLike) -> list:
    """The values of a JSON-lines file (see :func:`read_numbered_json_lines`)."""
    return [value for _, value in read_numbered_json_lines(path)]


def append_json_lines(path: str | os.PathLike, records: list[dict]) -> None:
    """Append records as JSON lines with one write, then fsync (a torn tail is cut first)."""
    if not records:
        return
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    cut_torn_tail(path)
    data = "".join(json.dumps(record, sort_keys=True) + "\n" for record in records).encode("utf-8")
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            view = memoryview(data)
            while view:  # a regular file takes it all at once unless the process is being killed
                view = view[os.write(descriptor, view) :]
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
    except OSError as error:
        # os.write's error names no file; a torn tail it may leave is cut by the next append or run.
        raise OSError(error.errno, f"{error.strerror} (appending {len(data)} bytes)", str(path)) from error


def cut_torn_tail(path: Path) -> int:
    """Cut a torn last line so the next record starts on a line of its own; return the bytes cut.

    The last byte is read first: a file that ends its last line is never opened for writing, so an
    intact read-only folder can be read (and resumed when nothing is left to run).
    """
    if not path.exists():
        return 0
    if not path.is_file():
        raise UnreadableFileError(f"{path} is not a readable records file (not a regular file); move it away")
    if path.stat().st_size == 0:
        return 0
    with open(path, "rb") as handle:
        handle.seek(-1, os.SEEK_END)
        if handle.read(1) == b"\n":
            return 0
    with open(path, "rb+") as handle:
        data = handle.read()
        keep = data.rfind(b"\n") + 1
        handle.truncate(keep)
        handle.flush()
        os.fsync(handle.fileno())
    return len(data) - keep


class UnwritableFolderError(OSError):
    """An output folder that cannot be created or written to."""


def check_writable(folder: str | os.PathLike, what: str) -> Path:
    """Create ``folder`` and prove a file can be written in it, before any work is done.

    ``what`` names the setting the folder came from, for the error message.
    """
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        raise UnwritableFolderError(
            f"{what}={str(folder)!r} is not a writable folder ({error.strerror or error}); "
            f"choose another with {what}=<folder>"
        ) from error
    return folder


class DiskFullError(OSError):
    """Less free space in an output folder than one unit of saving needs."""


def check_free_space(folder: str | os.PathLike, needed_bytes: int, what: str) -> None:
    """Refuse to start work whose first results could not be saved in ``folder``."""
    free = shutil.disk_usage(folder).free
    if free < needed_bytes:
        raise DiskFullError(
            f"{what}={str(folder)!r} has {free:,} bytes free; saving one split needs at least "
            f"{needed_bytes:,}. Free some space or choose another {what}."
        )
