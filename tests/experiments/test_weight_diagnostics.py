"""The weight diagnostics: each measure is at its bound for uniform weights and for one tree."""

import numpy as np
import pytest

from experiments.drivers.weight_diagnostics import weight_rows


def test_uniform_weights_are_all_trees_and_one_tree_is_one():
    T = 50
    uniform, one_tree = np.full(T, 1 / T), np.eye(T)[3]
    rows = weight_rows([[[uniform, one_tree]]], n_levels=1)
    assert rows[0]["effective_trees"] == pytest.approx(T) and rows[0]["tv_from_uniform"] == pytest.approx(0)
    assert rows[0]["max_weight_ratio"] == pytest.approx(1)
    assert rows[1]["effective_trees"] == pytest.approx(1) and rows[1]["tv_from_uniform"] == pytest.approx(
        1 - 1 / T
    )
    assert rows[1]["effective_share"] == pytest.approx(1 / T) and rows[1][
        "max_weight_ratio"
    ] == pytest.approx(T)


def test_levels_past_the_kept_ones_are_marked():
    w = np.full(4, 0.25)
    rows = weight_rows([[[w]], [[w]], [[w]]], n_levels=2)
    assert [row["level_kept"] for row in rows] == [True, True, False]
    assert [(row["level"], row["forest"], row["fold"]) for row in rows] == [(1, 1, 1), (2, 1, 1), (3, 1, 1)]
