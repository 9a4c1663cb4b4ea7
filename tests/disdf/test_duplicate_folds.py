"""Copies of a feature row share a fold (group_duplicates): a copy never tells its held-out twin its
label through the out-of-fold class vectors; on data without copies the folds, and so every number,
are those of StratifiedKFold."""

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.model_selection import StratifiedKFold

from disdf import CascadeForestClassifier, DisDFClassifier, MultiGrainedScanner
from disdf._utils.folds import duplicate_groups, stratified_folds

ESTIMATORS = [CascadeForestClassifier, DisDFClassifier]


def stacked_copies(n: int = 240, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """X twice, the copy labelled (y + 1) mod 3: on these rows no classifier exceeds 0.5 accuracy."""
    X, y = make_classification(n_samples=n, n_features=8, n_informative=5, n_classes=3, random_state=seed)
    return np.vstack([X, X]), np.concatenate([y, (y + 1) % 3])


@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_stacked_copies_score_no_better_than_chance_allows(estimator):
    X, y = stacked_copies()
    grouped = estimator(n_trees=20, random_state=0).fit(X, y)
    assert max(grouped.level_scores_) <= 0.55
    # the same data dealt row by row: the copies leak, and the scores climb (why the default groups)
    leaking = estimator(n_trees=20, random_state=0, group_duplicates=False).fit(X, y)
    assert max(leaking.level_scores_) > 0.7


def test_same_label_copies_stay_in_one_fold():
    X, y = make_classification(n_samples=150, n_features=6, random_state=1)
    X = np.vstack([X, X[:50], X[:20]])  # 50 rows twice or three times, with their own labels
    y = np.concatenate([y, y[:50], y[:20]])
    folds = stratified_folds(y, 3, 7, duplicate_groups(X), who="test")
    fold_of = np.empty(len(y), dtype=int)
    for k, (train, held_out) in enumerate(folds):
        fold_of[held_out] = k
        assert np.intersect1d(train, held_out).size == 0
    for row in range(50):
        copies = np.flatnonzero((X == X[row]).all(axis=1))
        assert len(set(fold_of[copies])) == 1
    assert sorted(np.concatenate([held_out for _, held_out in folds])) == list(range(len(y)))


def test_same_label_copies_no_longer_inflate_the_level_score():
    """Copies with their own labels: out of fold, a dealt-apart copy is answered by its twin."""
    X, y = make_classification(n_samples=200, n_features=6, flip_y=0.3, random_state=2)
    X, y = np.vstack([X, X]), np.concatenate([y, y])
    grouped = CascadeForestClassifier(n_trees=20, random_state=0, max_levels=1).fit(X, y)
    leaking = CascadeForestClassifier(n_trees=20, random_state=0, max_levels=1, group_duplicates=False).fit(
        X, y
    )
    assert leaking.level_scores_[0] > grouped.level_scores_[0] + 0.1


@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_without_copies_the_folds_and_the_model_are_unchanged(estimator):
    X, y = make_classification(n_samples=120, n_features=6, n_classes=3, n_informative=4, random_state=3)
    assert duplicate_groups(X) is None
    expected = list(StratifiedKFold(3, shuffle=True, random_state=11).split(X, y))
    for (train, test), (train_g, test_g) in zip(
        expected, stratified_folds(y, 3, 11, duplicate_groups(X), who="test"), strict=True
    ):
        np.testing.assert_array_equal(train, train_g)
        np.testing.assert_array_equal(test, test_g)
    grouped = estimator(n_trees=10, random_state=0).fit(X, y)
    dealt = estimator(n_trees=10, random_state=0, group_duplicates=False).fit(X, y)
    assert grouped.level_scores_ == dealt.level_scores_
    np.testing.assert_array_equal(grouped.predict_proba(X), dealt.predict_proba(X))


def test_equal_values_as_the_trees_compare_them_are_copies():
    """-0.0 and 0.0, and float64 values that round to one float32, are one value for a split."""
    X = np.array([[0.0, 1.0], [-0.0, 1.0], [1.0, 1.0 + 1e-12], [1.0, 1.0], [2.0, 3.0]])
    groups = duplicate_groups(X)
    assert groups is not None
    assert groups[0] == groups[1] and groups[2] == groups[3] and groups[4] not in (groups[0], groups[2])


def test_too_few_distinct_rows_are_refused_naming_the_parameter():
    X = np.repeat([[0.0, 1.0], [1.0, 0.0]], 10, axis=0)
    y = np.tile([0, 1], 10)
    with pytest.raises(ValueError, match=r"group_duplicates=True.*2 distinct feature rows.*n_folds=3"):
        CascadeForestClassifier(n_trees=5).fit(X, y)
    CascadeForestClassifier(n_trees=5, group_duplicates=False).fit(X, y)  # the old folds still fit


def test_few_distinct_rows_leave_no_fold_empty():
    """Four distinct rows, three folds: whichever fold the grouping empties receives a whole group."""
    X = np.repeat(np.arange(8.0).reshape(4, 2), 4, axis=0)
    y = np.tile([0, 1], 8)
    for seed in range(20):
        folds = stratified_folds(y, 3, seed, duplicate_groups(X), who="test")
        assert all(len(held_out) > 0 for _, held_out in folds)


def test_the_scanner_groups_copies_too():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, size=(30, 16)).astype(float)
    X, y = np.vstack([X, X]), np.concatenate([np.zeros(30, int), np.ones(30, int)])
    scanner = MultiGrainedScanner(image_shape=(4, 4), window_sizes=[2], n_trees=3, random_state=0).fit(X, y)
    train = scanner.fold_train_examples_
    for row in range(30):
        assert all((row in examples) == (row + 30 in examples) for examples in train)


def few_distinct_rows() -> tuple[np.ndarray, np.ndarray]:
    """100 rows of 5 distinct feature rows, repeated 40, 30, 20, 9 and 1 times, random labels: grouped,
    the lone row is often a fold of its own."""
    X = np.repeat(np.arange(10.0).reshape(5, 2), [40, 30, 20, 9, 1], axis=0)
    return X, np.random.default_rng(0).integers(0, 2, size=100)


def test_disdf_cross_fits_on_data_of_few_distinct_rows():
    """No fold is left with fewer than the 2 held-out rows DisDF's cross-fitting cuts in two (the
    grouping alone leaves the lone row a fold of one row for most seeds); DisDF fits."""
    X, y = few_distinct_rows()
    alone = [
        min(len(h) for _, h in stratified_folds(y, 3, s, duplicate_groups(X), who="t")) for s in range(20)
    ]
    assert min(alone) == 1  # what would stop DisDF's cross-fitting
    for seed in range(20):
        folds = stratified_folds(y, 3, seed, duplicate_groups(X), who="test", min_rows=2)
        assert all(len(held_out) >= 2 for _, held_out in folds)
    for seed in range(3):
        DisDFClassifier(n_trees=5, random_state=seed).fit(X, y)


def test_both_cascades_share_level_1_on_grouped_folds():
    """The runner grows level 1 once for gcForest and DisDF: both deal the same grouped folds (at
    least 2 held-out rows each, what DisDF's cross-fitting needs), so DisDF fits on gcForest's level."""
    from disdf.cascade._shared_first_level import fit_sharing_first_level

    X, y = few_distinct_rows()
    for seed in range(4):
        _, disdf = fit_sharing_first_level(
            [
                CascadeForestClassifier(n_trees=5, random_state=seed),
                DisDFClassifier(n_trees=5, random_state=seed),
            ],
            X,
            y,
        )
        assert disdf.level_scores_ == DisDFClassifier(n_trees=5, random_state=seed).fit(X, y).level_scores_
