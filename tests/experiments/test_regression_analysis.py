"""The regression benchmark's declared analysis, on records made up for the test."""

import numpy as np
import pandas as pd
import pytest

from experiments.analysis.regression_benchmark import analyse, analyse_added, complete, scale_table
from experiments.analysis.regression_plan import ADDED_METHODS, METHODS, REPEATS


def made_up_records(
    n_datasets: int, shift: dict[str, float], seconds: dict[str, float], methods=METHODS
) -> pd.DataFrame:
    """Every method on every split: R^2 = the dataset's base + the method's shift, fit seconds fixed."""
    rng = np.random.default_rng(0)
    rows = []
    for d in range(n_datasets):
        base = rng.uniform(0.3, 0.8)
        for split in range(2 * REPEATS):
            for method in methods:
                r2 = base + shift.get(method, 0.0) + rng.normal(scale=0.001)
                row = {"dataset": f"t{d}", "split": split, "method": method, "status": "ok", "r2": r2}
                rows.append(
                    {**row, "rmse": 1.0 - r2, "fit_cpu_seconds": seconds.get(method, 1.0), "n_levels": 2}
                )
    return pd.DataFrame(rows)


def test_a_table_with_a_missing_or_failed_split_is_left_out():
    records = made_up_records(3, {}, {})
    records.loc[(records.dataset == "t1") & (records.method == "df21") & (records.split == 4), "status"] = (
        "boom"
    )
    records = records[~((records.dataset == "t2") & (records.method == "disdf") & (records.split == 0))]
    assert sorted(complete(records)["dataset"].unique()) == ["t0"]


def test_verdicts_follow_the_declared_rope_and_probability():
    found = analyse(made_up_records(20, {"disdf_df21_level": 0.002, "disdf": -0.05}, {}), 24)
    verdicts = {(c.treatment, c.baseline): c.verdict for c in found.contrasts}
    assert verdicts[("disdf_df21_level", "df21")] == "equivalent"  # +0.002 inside +-0.01
    assert verdicts[("disdf", "df21")] == "worse"
    assert found.n_datasets == 20 and found.n_declared == 24


def test_speedups_are_geometric_means_of_df21s_seconds_over_the_methods():
    found = analyse(made_up_records(4, {}, {"df21": 6.0, "disdf_df21_level": 1.5, "disdf": 2.0}), 24)
    speedups = found.speedups
    assert speedups["disdf_df21_level"].geometric_mean == pytest.approx(4.0)
    assert speedups["disdf"].geometric_mean == pytest.approx(3.0)
    assert speedups["df21"].geometric_mean == pytest.approx(1.0)
    assert list(found.ranking.mean_ranks.index).count("df21") == 1


def test_an_added_method_is_analysed_apart_and_leaves_the_declared_analysis_as_it_was():
    every = (*METHODS, *ADDED_METHODS)
    seconds = {"df21": 6.0, "disdf_out_of_bag": 1.0}
    records = made_up_records(12, {"disdf_out_of_bag": 0.03}, seconds, every)
    declared_only = records[records.method.isin(METHODS)]
    with_added, without = analyse(records, 24), analyse(declared_only, 24)
    pd.testing.assert_frame_equal(with_added.r2, without.r2)
    assert with_added.contrasts == without.contrasts
    assert "disdf_out_of_bag" not in with_added.ranking.mean_ranks.index
    added = analyse_added(records)
    (contrast,) = added.contrasts
    assert (contrast.treatment, contrast.baseline, contrast.verdict) == ("disdf_out_of_bag", "df21", "better")
    assert added.speedups["disdf_out_of_bag"].geometric_mean == pytest.approx(6.0)
    assert list(added.r2.columns) == ["df21", *ADDED_METHODS] and added.n_datasets == 12
    assert analyse_added(declared_only) is None  # no added records yet: nothing to say


def test_the_scale_table_divides_df21s_cpu_seconds_at_the_same_rows_by_each_methods():
    rows = [
        ("df21", 1000, "ok", 100.0),
        ("disdf_out_of_bag", 1000, "ok", 10.0),
        ("disdf_out_of_bag", 5000, "ok", 40.0),  # no DF21 at 5,000 rows
        ("disdf", 1000, "MemoryError: ...", float("nan")),  # a failed fit is not a row of the table
    ]
    scale = pd.DataFrame(rows, columns=["method", "n_train", "status", "fit_cpu_seconds"])
    for column in ("fit_seconds", "peak_memory_gib", "estimate_grown_levels_gib", "n_levels", "test_r2"):
        scale[column] = 1.0
    table = scale_table(scale)
    assert table.loc[("disdf_out_of_bag", 1000), "df21_cpu_ratio"] == pytest.approx(10.0)
    assert table.loc[("df21", 1000), "df21_cpu_ratio"] == pytest.approx(1.0)
    assert np.isnan(table.loc[("disdf_out_of_bag", 5000), "df21_cpu_ratio"])
    assert ("disdf", 1000) not in table.index
