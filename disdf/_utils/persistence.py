"""Saving a fitted estimator (pickle, joblib): the library's version goes with it, and a model saved by
another version is refused when loaded, in one line naming both versions (its internal layout, which
a pickle holds, is not kept across versions)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import numpy as np

try:
    VERSION = version("disdf")
except PackageNotFoundError:  # a source tree that is not installed
    VERSION = "0+unknown"

#: The key of a pickled estimator's state that holds the version that saved it.
VERSION_KEY = "_disdf_version"
#: The key that holds the checksum of the arrays among its attributes (lists and dicts of them too).
ARRAYS_KEY = "_disdf_arrays_digest"


class ModelVersionError(ValueError):
    """A saved model was made by another version of disdf than the one loading it."""


class CorruptedModelError(ValueError):
    """A saved model's arrays do not match the checksum saved with them: the file changed after it was
    written (a loaded tree with a wrong child code would route examples forever, a wrong weight or
    importance would give wrong numbers silently)."""


def arrays_digest(arrays: Iterable[np.ndarray]) -> str:
    """A checksum (BLAKE2b) of arrays' types, shapes and bytes, in order."""
    digest = hashlib.blake2b(digest_size=16)
    for array in arrays:
        array = np.ascontiguousarray(array)
        digest.update(f"{array.dtype.str}{array.shape}".encode())
        digest.update(array.reshape(-1).view(np.uint8).data)  # the buffer itself, not a copy
    return digest.hexdigest()


def attribute_arrays(state: dict[str, Any]) -> list[np.ndarray]:
    """The arrays among an estimator's attributes, in their lists, tuples and dicts too (in order; the
    objects that hold arrays of their own, such as the forests, check them themselves)."""
    found: list[np.ndarray] = []

    def collect(value: Any) -> None:
        if isinstance(value, np.ndarray) and value.dtype != object:
            found.append(value)
        elif isinstance(value, (list, tuple)):
            for item in value:
                collect(item)
        elif isinstance(value, dict):
            for key in sorted(value, key=str):
                collect(value[key])

    for name in sorted(state):
        collect(state[name])
    return found


class VersionedPickle:
    """A mixin (before scikit-learn's BaseEstimator) that stamps a pickled estimator with the disdf
    version and a checksum of its arrays, and refuses to load one of another version or whose arrays
    changed."""

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()  # type: ignore[misc]  # BaseEstimator's, next in the MRO
        return {**state, VERSION_KEY: VERSION, ARRAYS_KEY: arrays_digest(attribute_arrays(state))}

    def __setstate__(self, state: dict[str, Any]) -> None:
        saved = state.pop(VERSION_KEY, None)
        if saved != VERSION:
            raise ModelVersionError(
                f"This {type(self).__name__} was saved by disdf {saved or 'older than 0.1.0'} and cannot be "
                f"loaded by disdf {VERSION}: refit it with this version, or load it with disdf=={saved}"
            )
        digest = state.pop(ARRAYS_KEY, None)
        if digest is not None and arrays_digest(attribute_arrays(state)) != digest:
            raise CorruptedModelError(
                f"A saved disdf model is corrupted: this {type(self).__name__}'s arrays (weights, "
                "importances, class labels, ...) do not match the checksum saved with them (the file "
                "changed after it was written). Restore the file or refit the model"
            )
        super().__setstate__(state)  # type: ignore[misc]
