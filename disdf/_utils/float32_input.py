"""A cascade level's input as the trees read it: float32 columns, converted once.

Both engines grow and apply their trees on float32 values (as scikit-learn's
forests do). The level input x^(q-1) of eq. (40) is assembled here directly in
float32, the same values as the float64 columns side by side converted, without
that float64 matrix (on all of MNIST, 0.5 GB at the ninth level).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: Input dtypes taken as they are (float32 X is not widened); any other is converted to float64
#: first, so that values beyond float32's range are refused (check_float32_range), not made inf.
INPUT_DTYPES = (np.float64, np.float32)


def check_float32_range(X: np.ndarray) -> None:
    """Both engines grow trees on float32 (as scikit-learn's forests do): refuse what it cannot hold,
    before any work, with scikit-learn's message."""
    if X.size and np.max(np.abs(X)) > np.finfo(np.float32).max:
        raise ValueError("Input X contains infinity or a value too large for dtype('float32').")


def as_float32(X: np.ndarray) -> np.ndarray:
    """X as C-ordered float32 (as both engines read it), without a copy if it is one already."""
    return np.ascontiguousarray(X, dtype=np.float32)


def float32_columns(parts: Sequence[np.ndarray]) -> np.ndarray:
    """The blocks of columns ``parts`` side by side, converted to float32 (C-ordered): equal to
    ``np.hstack(parts).astype(np.float32)`` without the float64 matrix (one block: no copy)."""
    if len(parts) == 1:
        return as_float32(parts[0])
    out = np.empty((parts[0].shape[0], sum(part.shape[1] for part in parts)), dtype=np.float32)
    start = 0
    for part in parts:
        out[:, start : start + part.shape[1]] = part
        start += part.shape[1]
    return out
