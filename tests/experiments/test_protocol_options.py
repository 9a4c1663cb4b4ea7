"""The audit's protocol options: stratified draws, subject groups, simulated label faults."""

import numpy as np
import pytest

from experiments.running.composition import compose_config, config_hash
from experiments.running.protocol import Pool, draw_split, group_split, load_pool, with_label_fault


def pool(n_per_class=(300, 60, 30), groups=None, two_pools=False) -> Pool:
    y = np.repeat(np.arange(len(n_per_class)), n_per_class)
    X = np.arange(len(y), dtype=float)[:, None]  # a row's feature is its index: rows can be traced
    if two_pools:
        return Pool(X, y, X.copy(), y.copy())
    return Pool(X, y, groups=groups)


def test_the_random_draw_is_the_one_every_earlier_record_used():
    p = pool()
    split = draw_split(p, 50, 33, seed=7)
    order = np.random.default_rng(7).permutation(len(p.y_train))
    np.testing.assert_array_equal(split.X_train[:, 0], order[:50])
    np.testing.assert_array_equal(split.X_test[:, 0], order[50:83])


@pytest.mark.parametrize("two_pools", [False, True])
def test_a_stratified_draw_keeps_the_class_proportions_and_a_random_one_does_not(two_pools):
    p = pool((500,) * 10, two_pools=two_pools)  # ten classes, as MNIST; N = 50: 5 per class
    stratified = [draw_split(p, 50, 33, seed, train_draw="stratified") for seed in range(20)]
    for split in stratified:
        assert np.bincount(split.y_train, minlength=10).tolist() == [5] * 10
        assert set(np.bincount(split.y_test, minlength=10)) <= {3, 4}
        assert not set(split.X_train[:, 0]) & set(split.X_test[:, 0]) or two_pools
    random = [draw_split(p, 50, 33, seed) for seed in range(20)]
    assert max(np.bincount(s.y_train, minlength=10).max() for s in random) >= 8  # some digit gets 8+
    assert min(np.bincount(s.y_train, minlength=10).min() for s in random) <= 2  # another 2 or fewer


def test_groups_never_reach_both_sides_and_the_sizes_are_the_protocols():
    groups = np.repeat(np.arange(65), 6)  # 390 rows, 6 per group, as Parkinsons' recordings
    p = pool((200, 190), groups=groups)
    for seed in range(30):
        split = group_split(p, 120, 80, seed, cap_test=True)
        train, test = split.X_train[:, 0].astype(int), split.X_test[:, 0].astype(int)
        assert len(train) == 120 and len(test) == 80 and not set(train) & set(test)
        assert not set(groups[train]) & set(groups[test]), seed
    # too few rows left in other groups: capped, or refused naming the sizes
    assert len(group_split(p, 360, 240, 0, cap_test=True).y_test) <= 30
    with pytest.raises(ValueError, match="N=360 training rows by whole groups"):
        group_split(p, 360, 240, 0, cap_test=False)


def test_parkinsons_subjects_stay_on_one_side(data_dir):
    from disdf import load_subjects

    p = load_pool("parkinsons", str(data_dir), "subject")
    subjects = load_subjects("parkinsons", data_dir)
    X_all, _ = p.X_train, p.y_train
    for seed in range(10):
        split = draw_split(p, 120, 80, seed, "parkinsons", cap_test=True)
        rows = {tuple(x): i for i, x in enumerate(X_all)}
        train = {subjects[rows[tuple(x)]] for x in split.X_train}
        test = {subjects[rows[tuple(x)]] for x in split.X_test}
        assert len(split.y_train) == 120 and 0 < len(split.y_test) <= 75 and not train & test
    # at N = 50 (about 8 of the 32 subjects) the training side holds both classes in every split
    # (a uniform order of subjects gives some all-ill training sets), the test side in most
    splits = [draw_split(p, 50, 33, seed, "parkinsons", cap_test=True) for seed in range(200)]
    assert all(len(set(split.y_train)) == 2 for split in splits)
    assert np.mean([len(set(split.y_test)) == 2 for split in splits]) > 0.8
    with pytest.raises(ValueError, match=r"ecoli.*no subjects"):
        load_pool("ecoli", str(data_dir), "subject")


def test_label_faults_misalign_once_per_dataset_or_invert_the_test_labels():
    p = pool((100, 50))
    misaligned = with_label_fault(p, "misaligned", "ionosphere")
    assert sorted(misaligned.y_train) == sorted(p.y_train) and np.mean(misaligned.y_train != p.y_train) > 0.2
    np.testing.assert_array_equal(misaligned.y_train, with_label_fault(p, "misaligned", "ionosphere").y_train)
    inverted = with_label_fault(p, "inverted_test", "ionosphere")
    honest, faulty = draw_split(p, 50, 33, 3), draw_split(inverted, 50, 33, 3)
    np.testing.assert_array_equal(faulty.y_train, honest.y_train)
    np.testing.assert_array_equal(faulty.y_test, 1 - honest.y_test)
    with pytest.raises(ValueError, match="inverted_test needs two classes"):
        with_label_fault(pool(), "inverted_test", "ecoli")


def test_each_option_enters_the_hash_only_when_set_and_bad_values_are_named():
    from experiments.running.plan import plan_run

    base = config_hash(compose_config("experiment=paper"))
    for override in (
        "protocol.train_draw=stratified",
        "protocol.split_groups=subject",
        "protocol.label_fault=misaligned",
        "model.test_vectors=refit",
        "model.group_duplicates=true",  # the estimators' default, but not the committed records' folds
    ):
        assert config_hash(compose_config("experiment=paper", override)) != base, override
    assert config_hash(compose_config("experiment=paper", "model.group_duplicates=false")) == base
    assert config_hash(compose_config("experiment=paper", "protocol.train_draw=random")) == base
    for override, name in (
        ("protocol.train_draw=stratify", "train_draw"),
        ("protocol.split_groups=patient", "split_groups"),
    ):
        with pytest.raises(ValueError, match=name):
            plan_run(compose_config("experiment=paper", override))
