"""What a validated fit hands the level loop: one named object instead of a tuple."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class FitInputs:
    """A fit's inputs once checked (``_CascadeBase._prepare_fit``).

    ``X``: float32, as every tree reads it; ``y_code``: the target as the forests grow on it
    (``_encode_target``'s); ``specs``: the level's members, each ``(kind, extra_params)``; ``rng``: the
    fit's random state, which draws every seed in a fixed order; ``tree_params``: the trees' own
    parameters; ``sample_weight``: one weight per example, or None."""

    X: np.ndarray
    y_code: np.ndarray
    specs: list
    rng: np.random.RandomState
    tree_params: dict[str, Any]
    sample_weight: np.ndarray | None
