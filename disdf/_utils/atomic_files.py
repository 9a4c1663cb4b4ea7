"""Whole files replaced in one rename: a reader (or a crash) never sees half a file.

The one atomic-write helper of the project: the downloads of :mod:`disdf.datasets._downloads`
and the experiments' tables, reports and figures (``experiments.safety.durable``) use it.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

#: Temporary files of an atomic rewrite: ``.<name>.<8 random characters>.tmp<suffix>`` beside the target.
TEMPORARY_SUFFIX = ".tmp"
_LEFTOVER = re.compile(r"^\..+\.[a-z0-9_]{8}\.tmp(\.[^.]+)?$")
# The process's umask, read once: rewritten files get the mode a plain open() would give them.
_UMASK = os.umask(0)
os.umask(_UMASK)


@contextmanager
def replaced_atomically(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; once the block succeeds it replaces ``path`` in one rename.

    The file gets the mode of a plain ``open()`` (0666 less the umask), not
    mkstemp's 0600. A temporary left by a kill is recognised by
    :func:`is_leftover` and removed by :func:`remove_leftovers`; it never
    matches a reader's ``*.csv`` or ``*.png``.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.", suffix=TEMPORARY_SUFFIX + path.suffix
    )
    os.close(descriptor)
    try:
        try:
            yield Path(temporary)
            with open(temporary, "rb+") as handle:
                os.fchmod(handle.fileno(), 0o666 & ~_UMASK)
                os.fsync(handle.fileno())
            os.replace(temporary, path)
        except OSError as error:  # a full disk, a quota: name the file (left as it was), not the temporary
            raise type(error)(error.errno, error.strerror or str(error), str(path)) from error
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def write_bytes_atomically(path: str | os.PathLike, data: bytes) -> None:
    with replaced_atomically(path) as temporary:
        temporary.write_bytes(data)


def write_text_atomically(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` so that a reader never sees a half-written file."""
    with replaced_atomically(path) as temporary:
        temporary.write_text(text, encoding="utf-8")


def is_leftover(path: Path) -> bool:
    """Whether ``path`` is the temporary file of an atomic rewrite (never a result)."""
    return bool(_LEFTOVER.match(path.name))


def remove_leftovers(folder: str | os.PathLike) -> list[Path]:
    """Delete the temporaries that killed atomic rewrites left in ``folder`` and its subfolders."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    removed = [path for path in folder.rglob(".*") if path.is_file() and is_leftover(path)]
    for path in removed:
        path.unlink(missing_ok=True)
    return removed
