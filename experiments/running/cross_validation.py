"""Dietterich's 5 x 2-fold cross-validation: the benchmark's full-data regime (#42, regime b).

A dataset with more rows than the cap (the protocol's one N) is first cut to a stratified subsample
of cap rows, seeded by (dataset, cap, protocol seed); repetitions 0-9 are then the ten folds of
scikit-learn's :class:`~sklearn.model_selection.RepeatedStratifiedKFold` (2 folds, 5 repeats; one
seed per dataset and cap): repetition r trains on one half of repeat r // 2 and tests on the other.
"""

from __future__ import annotations

import numpy as np
from sklearn.model_selection import RepeatedStratifiedKFold, train_test_split

#: How a protocol splits: the paper's repeated holdout of N training examples, or 5 x 2-fold CV.
SPLIT_SCHEMES = ("holdout", "5x2cv")
#: The repetitions of 5 x 2-fold cross-validation: 5 repeats of 2 folds.
FIVE_BY_TWO_REPETITIONS = 10


def used_rows(y: np.ndarray, cap: int, seed: int) -> np.ndarray:
    """The positions of the rows the regime uses: every row of a table of at most ``cap`` rows, else a
    stratified subsample of ``cap`` rows (in increasing position order)."""
    positions = np.arange(len(y))
    if len(y) <= cap:
        return positions
    return np.sort(train_test_split(positions, train_size=cap, stratify=y, random_state=seed)[0])


def five_by_two_folds(y: np.ndarray, cap: int, subsample_seed: int, folds_seed: int) -> list[tuple]:
    """The ten (train, test) position pairs of 5 x 2-fold CV on :func:`used_rows`, in repetition order."""
    used = used_rows(y, cap, subsample_seed)
    folds = RepeatedStratifiedKFold(n_splits=2, n_repeats=5, random_state=folds_seed)
    return [(used[train], used[test]) for train, test in folds.split(used, y[used])]
