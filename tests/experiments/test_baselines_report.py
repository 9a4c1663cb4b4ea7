"""Baselines are paired with the headline by unit; the best baseline is chosen per dataset."""

import pandas as pd
import pytest

from experiments.reporting.sections.baselines import (
    against_baseline,
    baseline_rows,
    best_baselines,
    level_one_agreement,
)
from tests.experiments.records_for_tests import a_record


def records(method, accuracy, n_levels=1, repetitions=12):
    return pd.DataFrame(
        [
            a_record(method=method, repetition=r, accuracy=accuracy + r / 200, n_levels=n_levels)
            for r in range(repetitions)
        ]
    )


def test_the_best_baseline_is_chosen_per_dataset_and_cascades_are_tested_against_it():
    baselines = pd.concat([records("knn", 0.6, 0), records("random_forest", 0.7, 0), records("level1", 0.65)])
    assert best_baselines(baselines)["ecoli"] == "random_forest"
    headline = pd.concat([records("gcforest", 0.75), records("disdf", 0.70)])
    tests = against_baseline(
        headline[headline["method"] == "gcforest"], baselines[baselines["method"] == "random_forest"]
    )
    assert tests["d"].iloc[0] == pytest.approx(5.0) and tests["better"].iloc[0]
    row = baseline_rows(headline, baselines).iloc[0]
    assert row["best baseline"] == "RF (4T trees)"
    assert (
        row["gcF better / worse (cells)"] == "1 / 0 of 1"
        and row["DisDF better / worse (cells)"] == "0 / 0 of 1"
    )


def test_level_one_agrees_with_gcf_only_where_gcf_kept_one_level():
    headline = pd.concat([records("gcforest", 0.75, n_levels=1)])
    baselines = records("level1", 0.75)
    assert level_one_agreement(headline, baselines) == (12, 12)
    assert level_one_agreement(headline.assign(n_levels=2), baselines) == (0, 0)
