"""The K folds of out-of-fold class vectors, with copies of a feature row kept in one fold.

A copy of a row in a fold model's training folds tells the held-out copy its label through its
out-of-fold class vector, and the next level learns that label: stacked twice with the copy
labelled otherwise, a cascade scored 0.84 out of fold on rows no classifier can get more than half
right. So the folds are scikit-learn's ``StratifiedKFold`` (shuffled, seeded), and then every row
whose features another row repeats joins the fold of the first row of its group. On rows without
copies nothing moves: the folds are ``StratifiedKFold``'s, bit for bit, and so are every fold
model and number of a fit on them. (scikit-learn's ``StratifiedGroupKFold`` would keep groups
together too, but it deals every fold anew, also on data without copies.)
"""

from __future__ import annotations

import numpy as np
from sklearn.model_selection import KFold, StratifiedKFold

#: (training rows, held-out rows) per fold, increasing, as scikit-learn's splitters give them.
Folds = list[tuple[np.ndarray, np.ndarray]]


def duplicate_groups(X: np.ndarray) -> np.ndarray | None:
    """The group of each row (rows of equal values, as the trees compare them, share one), or None
    when no two rows are equal."""
    values = np.array(X, dtype=np.float32, order="C")  # one copy (a level's input is wider than X)
    values += np.float32(0.0)  # -0.0 and 0.0: one value
    rows = values.view(np.dtype((np.void, values.dtype.itemsize * values.shape[1]))).ravel()
    _, first, groups = np.unique(rows, return_index=True, return_inverse=True)
    if len(first) == len(rows):
        return None
    return first[groups.ravel()]  # each row's group named by its first row


def stratified_folds(
    y_code: np.ndarray,
    n_folds: int,
    seed: int,
    groups: np.ndarray | None,
    *,
    who: str,
    min_rows: int = 1,
) -> Folds:
    """``StratifiedKFold(n_folds, shuffle=True, random_state=seed)``'s folds of y (they depend on the
    labels alone), with each row of a group of copies moved into the fold of its group's first row.

    ``groups``: :func:`duplicate_groups` of the rows whose copies are grouped (a cascade's original
    features, not the class vectors its levels add: copies of a row share a fold, hence their class
    vectors too), computed once per fit; None: every row dealt alone. A fold the grouping leaves with
    fewer than ``min_rows`` rows (DisDF's cross-fitting cuts each held-out set in two at least)
    receives whole groups from the fold of most groups; data of too few distinct rows for that is
    refused in one line naming ``group_duplicates`` (``who``: the estimator).
    """
    splitter = StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=seed)
    folds = list(splitter.split(np.zeros(len(y_code)), y_code))
    return folds if groups is None else copies_together(folds, groups, who=who, min_rows=min_rows)


def shuffled_folds(
    n_samples: int, n_folds: int, seed: int, groups: np.ndarray | None, *, who: str, min_rows: int = 1
) -> Folds:
    """``KFold(n_folds, shuffle=True, random_state=seed)``'s folds of n rows (the regressor's: its target
    has no classes to stratify; DF21's regressor deals them so too), copies kept together as
    :func:`stratified_folds` keeps them."""
    folds = list(KFold(n_splits=n_folds, shuffle=True, random_state=seed).split(np.zeros((n_samples, 1))))
    return folds if groups is None else copies_together(folds, groups, who=who, min_rows=min_rows)


def copies_together(folds: Folds, groups: np.ndarray, *, who: str, min_rows: int) -> Folds:
    """The folds with each row of a group of copies moved into the fold of its group's first row, and a
    fold left with fewer than ``min_rows`` rows given whole groups (:func:`stratified_folds`)."""
    n_folds, n_rows = len(folds), len(groups)
    fold_of = np.empty(n_rows, dtype=np.intp)
    for k, (_, held_out) in enumerate(folds):
        fold_of[held_out] = k
    fold_of = fold_of[groups]
    first_rows = np.unique(groups)
    if not _fill_small_folds(fold_of, groups, first_rows, n_folds, min_rows):
        raise ValueError(
            f"{who}: with group_duplicates=True the {n_rows} rows hold {len(first_rows)} distinct "
            f"feature rows, too few for n_folds={n_folds} folds of {min_rows} row(s) or more: give fewer "
            "folds, or group_duplicates=False (copies of a row then tell each other their targets out of "
            "fold)"
        )
    return [(np.flatnonzero(fold_of != k), np.flatnonzero(fold_of == k)) for k in range(n_folds)]


def _fill_small_folds(
    fold_of: np.ndarray, groups: np.ndarray, first_rows: np.ndarray, n_folds: int, min_rows: int
) -> bool:
    """Give each fold of fewer than ``min_rows`` rows whole groups, one at a time, each the last group of
    the fold with the most groups (few distinct rows only: without copies, or with few, no fold is
    that small and nothing moves). False if a fold stays too small (too few distinct rows)."""
    for small in range(n_folds):
        while np.sum(fold_of == small) < min_rows:
            group_folds = fold_of[first_rows]
            counts = np.bincount(group_folds, minlength=n_folds)
            counts[small] = 0
            donor = int(np.argmax(counts))
            if counts[donor] < 2:
                return False
            fold_of[groups == first_rows[group_folds == donor][-1]] = small
    return all(np.sum(fold_of == k) >= min_rows for k in range(n_folds))
