"""Optimism of a record: how much the out-of-fold score that chose its depth overstates its test accuracy."""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.reporting.statistics import mean_ci


def with_optimism(records: pd.DataFrame) -> pd.DataFrame:
    """``records`` of cascades (a baseline has no levels) with ``kept_score`` (out-of-fold accuracy
    of the kept level) and ``optimism`` (kept_score − test accuracy, in percentage points)."""
    records = records[records["n_levels"] > 0]
    kept = [scores[n - 1] for scores, n in zip(records["level_scores"], records["n_levels"], strict=True)]
    return records.assign(kept_score=kept, optimism=100 * (np.asarray(kept, float) - records["accuracy"]))


def split_mean_ci(frame: pd.DataFrame, column: str) -> tuple[float, float]:
    """Mean of ``column`` and its 95 % CI with the split (N, repetition) as the independent unit:
    the T of one split share their trees, so they are averaged first."""
    per_split = frame.groupby(["N", "repetition"])[column].mean()
    return mean_ci(per_split.to_numpy())
