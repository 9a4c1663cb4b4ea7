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


class ModelVersionError(ValueError):
    """A saved model was made by another version of disdf than the one loading it."""


class CorruptedModelError(ValueError):
    """A saved model's tree arrays do not match the checksum saved with them: the file changed after
    it was written (a loaded tree with a wrong child code would route examples forever)."""


def arrays_digest(arrays: Iterable[np.ndarray]) -> str:
    """A checksum (BLAKE2b) of arrays' types, shapes and bytes, in order."""
    digest = hashlib.blake2b(digest_size=16)
    for array in arrays:
        array = np.ascontiguousarray(array)
        digest.update(f"{array.dtype.str}{array.shape}".encode())
        digest.update(array.reshape(-1).view(np.uint8).data)  # the buffer itself, not a copy
    return digest.hexdigest()


class VersionedPickle:
    """A mixin (before scikit-learn's BaseEstimator) that stamps a pickled estimator with the disdf
    version and refuses to load one of another version."""

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()  # type: ignore[misc]  # BaseEstimator's, next in the MRO
        return {**state, VERSION_KEY: VERSION}

    def __setstate__(self, state: dict[str, Any]) -> None:
        saved = state.pop(VERSION_KEY, None)
        if saved != VERSION:
            raise ModelVersionError(
                f"This {type(self).__name__} was saved by disdf {saved or 'older than 0.1.0'} and cannot be "
                f"loaded by disdf {VERSION}: refit it with this version, or load it with disdf=={saved}"
            )
        super().__setstate__(state)  # type: ignore[misc]
