"""The benchmark's regime (b): 5 x 2-fold cross-validation on at most a cap of rows per table."""

import json

import numpy as np
import pytest

from experiments.running.composition import compose_config, config_hash
from experiments.running.cross_validation import five_by_two_folds, used_rows
from experiments.running.plan import decide, plan_run
from experiments.running.protocol import Unit


def labels(n_per_class=(600, 300, 100)) -> np.ndarray:
    return np.repeat(np.arange(len(n_per_class)), n_per_class)


def test_each_repeat_tests_every_used_row_once_and_trains_on_the_rest():
    y = labels()
    folds = five_by_two_folds(y, cap=400, subsample_seed=1, folds_seed=2)
    assert len(folds) == 10
    used = used_rows(y, 400, 1)
    for repeat in range(5):
        (train_a, test_a), (_, test_b) = folds[2 * repeat], folds[2 * repeat + 1]
        np.testing.assert_array_equal(np.sort(train_a), np.sort(test_b))
        np.testing.assert_array_equal(np.sort(np.concatenate([test_a, test_b])), used)
        assert not set(train_a) & set(test_a)
    assert not np.array_equal(np.sort(folds[0][1]), np.sort(folds[2][1]))  # the repeats reshuffle


def test_a_table_over_the_cap_is_cut_in_its_class_proportions_and_a_small_one_is_kept_whole():
    y = labels()
    used = used_rows(y, 400, seed=5)
    assert len(used) == 400 and len(np.unique(used)) == 400
    np.testing.assert_allclose(np.bincount(y[used]) / 400, np.bincount(y) / len(y), atol=0.01)
    np.testing.assert_array_equal(used_rows(y, 5000, seed=5), np.arange(len(y)))
    np.testing.assert_array_equal(used_rows(y, 400, seed=5), used)  # the seed fixes it
    assert not np.array_equal(used_rows(y, 400, seed=6), used)


def test_the_runner_splits_by_the_folds_and_bounds_each_test_set():
    plan = decide(compose_config("experiment=benchmark_cv", "datasets=[keel_iris,keel_magic]"))
    protocol = plan.protocol
    pool = protocol.pool("keel_magic")
    sizes = []
    for repetition in range(10):
        split = protocol.split(pool, Unit("keel_magic", 1000, 100, "gcforest", repetition), 0)
        assert len(split.y_train) + len(split.y_test) == 1000
        sizes.append(len(split.y_test))
    assert max(sizes) == protocol.expected_test_size("keel_magic", 1000)
    assert protocol.expected_test_size("keel_iris", 1000) == 75  # 150 rows, all used
    assert plan.grid.n_test_varies


def test_the_scheme_enters_the_hash_and_its_settings_are_checked_naming_them():
    base = config_hash(compose_config("experiment=benchmark"))
    assert config_hash(compose_config("experiment=benchmark", "protocol.split_scheme=holdout")) == base
    assert config_hash(compose_config("experiment=benchmark", "protocol.split_scheme=5x2cv")) != base
    for overrides, name in (
        (("protocol.repetitions=11",), "protocol.repetitions must be at most 10"),
        (("datasets=[mnist]",), "must not name mnist"),
        (("protocol.split_scheme=3x3",), "split_scheme"),
    ):
        with pytest.raises(ValueError, match=name):
            plan_run(compose_config("experiment=benchmark_cv", *overrides))


def test_a_small_5x2cv_run_reports_its_own_protocol_and_fold_based_intervals(tmp_path):
    """Two KEEL tables, gcF only, T = 5, the ten folds: the run's REPORT.md describes 5 x 2 CV (the cap,
    repeats and folds, each table's rows and halves), says nothing of a hold-out test size or of a
    dataset that "cannot hold both sets", and its tables label their intervals as fold-based."""
    from experiments.reporting.report import write_protocol
    from experiments.running.runner import run_units

    cfg = compose_config(
        "experiment=benchmark_cv",
        "datasets=[keel_iris,keel_wine]",
        "protocol.methods=[gcforest]",
        "protocol.Ts=[5]",
        "protocol.Ns=[120]",
        "runtime.n_jobs=1",
        "runtime.progress=false",
        f"runtime.output_dir={tmp_path}",
    )
    plan = plan_run(cfg)
    run_units(plan)
    write_protocol(plan)
    report = (tmp_path / "REPORT.md").read_text()
    assert "Dietterich's 5 × 2-fold cross-validation" in report and "at most 120 rows" in report
    assert "cannot hold both sets" not in report and "test size round(" not in report
    assert "keel_iris 120 (60/60)" in report and "keel_wine 120 (60/60)" in report
    table = (tmp_path / "tables" / "keel_iris.md").read_text()
    assert "over the 10 folds ± t(5)·s̄, fold-based" in table and "95% CI" not in table
    records = [json.loads(line) for line in (tmp_path / "raw" / "keel_iris.jsonl").read_text().splitlines()]
    assert len(records) == 10 and all("confusion" in r and "balanced_accuracy" in r for r in records)


def test_the_method_names_the_test_size_as_it_is_computed():
    from experiments.reporting.sections.protocol import test_size_formula

    assert test_size_formula(2 / 3) == "round(2N/3)"  # 33 and 53 test examples at N = 50 and 80
    assert test_size_formula(10.0) == "round(10N)"
    assert test_size_formula(0.37) == "round(0.37N)"
