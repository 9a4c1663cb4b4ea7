"""The audit's effects are paired by split, and only the oracle column is chosen on test accuracy."""

import numpy as np
import pandas as pd
import pytest

from experiments.reporting.sections.audit import (
    HONEST_METHOD,
    oracle_cells,
    oracle_optimism,
    paired_effect,
)

GRID = [HONEST_METHOD, "disdf_lam0p1_tau1", "disdf_lam10_tau1"]


def grid_records(accuracy, repetitions=20, Ns=(50, 120)):
    """Grid records with ``accuracy(method, N, repetition)`` as test accuracy."""
    return pd.DataFrame(
        [
            {
                "dataset": "ecoli",
                "N": N,
                "T": 100,
                "method": m,
                "repetition": r,
                "accuracy": accuracy(m, N, r),
            }
            for N in Ns
            for m in GRID
            for r in range(repetitions)
        ]
    )


def test_the_honest_column_never_looks_at_the_other_grid_points_test_accuracy():
    base = grid_records(lambda m, N, r: 0.7 + 0.01 * (r % 3))
    better = grid_records(lambda m, N, r: 0.7 + 0.01 * (r % 3) + (0.1 if m == "disdf_lam10_tau1" else 0))
    a, b = oracle_cells(base).set_index("N"), oracle_cells(better).set_index("N")
    pd.testing.assert_series_equal(a["honest"], b["honest"])  # unchanged by the others' test accuracy
    assert (b["chosen"] == "disdf_lam10_tau1").all()  # the oracle follows test accuracy ...
    np.testing.assert_allclose(b["oracle"] - b["honest"], 0.1)  # ... and gains what it saw
    np.testing.assert_allclose(b["held_out_selection"] - b["honest"], 0.1)  # a real gain survives held out


def test_on_pure_noise_the_oracle_gains_and_a_held_out_selection_does_not():
    rng = np.random.default_rng(0)
    noise = {(m, N, r): rng.normal(0.7, 0.05) for m in GRID for N in (50, 120) for r in range(60)}
    records = grid_records(lambda m, N, r: noise[(m, N, r)], repetitions=60)
    cells = oracle_cells(records)
    assert (cells["oracle"] >= cells["honest"]).all()
    few = oracle_optimism(records, n=1)["optimism"].iloc[0]
    many = oracle_optimism(records, n=20)["optimism"].iloc[0]
    assert few > 2.5 and few > 3 * many  # selection on one repetition gains most (pure noise)


def test_a_mechanism_effect_is_the_paired_difference_in_points():
    rows = [
        {"dataset": "ecoli", "N": 50, "T": 100, "method": m, "repetition": r, "accuracy": 0.5 + r / 100}
        for m in ("gcforest", "disdf")
        for r in range(10)
    ]
    baseline = pd.DataFrame(rows)
    mechanism = baseline.assign(
        accuracy=baseline["accuracy"] + np.where(baseline["method"] == "disdf", 0.03, 0.0)
    )
    effect = paired_effect(mechanism, baseline).set_index("method")
    assert effect.loc["disdf", "effect"] == pytest.approx(3.0) and effect.loc["disdf", "splits"] == 10
    assert effect.loc["gcforest", "effect"] == pytest.approx(0.0)
