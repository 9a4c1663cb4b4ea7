"""Helpers the reproduction and the benchmarks share with the library: files replaced atomically, the
process's peak memory, the declarative parameter checks the estimators use, and an estimator's own
check before any work (:func:`validate_estimator`).

The library's own helpers live in the private ``disdf._utils``; these names are its public face, kept
stable for code outside the package (``experiments/``, ``scripts/``) that must write files the way the
library does or check a table of parameters with the library's messages.
"""

from disdf._utils.atomic_files import (
    is_leftover,
    remove_leftovers,
    replaced_atomically,
    write_text_atomically,
)
from disdf._utils.parameters import Boolean, Float, Integer, OneOf, check_parameters, validate_estimator
from disdf._utils.progress import peak_memory_gib

__all__ = [
    "Boolean",
    "Float",
    "Integer",
    "OneOf",
    "check_parameters",
    "is_leftover",
    "peak_memory_gib",
    "remove_leftovers",
    "replaced_atomically",
    "validate_estimator",
    "write_text_atomically",
]
