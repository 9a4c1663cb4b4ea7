"""Giving the heap's freed memory back to the system between a cascade's levels.

A level frees its held-out leaf rows, its level input and every fold model's growth copies (the
training rows feature-major, a random forest's presorted order and value codes) once it is fitted.
glibc's allocator keeps much of that freed memory for later allocations instead of returning it
(freed blocks below the top of an arena, and arenas of the worker threads), so the process's
resident memory keeps the previous levels' peaks while the next level's trees are added to it: on
all of MNIST hundreds of MB. :func:`release_free_memory` asks glibc to return it
(``malloc_trim(0)``); elsewhere (another C library, macOS, Windows) it does nothing.

A trim walks the whole heap and costs system time, so it is asked only after a level freed at least
:data:`TRIM_MIN_BYTES`: the protocol's levels of 50-120 examples free a few MB, which glibc's reuse
serves better, and trimming after each of them doubled the protocol's system CPU time.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from functools import cache

#: The memory a level must free before the heap is trimmed (MNIST's levels free hundreds of MB).
TRIM_MIN_BYTES = 64 * 2**20


@cache
def _malloc_trim():
    """glibc's ``malloc_trim``, or None where there is none."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        trim = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc (musl has no malloc_trim)
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return trim


def release_free_memory(freed_bytes: int | None = None) -> bool:
    """Return the heap's free memory to the system, if ``freed_bytes`` (what the caller just freed;
    None: unknown) reaches :data:`TRIM_MIN_BYTES`; True if the C library was asked."""
    trim = _malloc_trim()
    if trim is None or (freed_bytes is not None and freed_bytes < TRIM_MIN_BYTES):
        return False
    trim(0)
    return True
