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


def test_the_section_reports_the_kept_levels_and_the_agreement(tmp_path):
    import pandas as pd

    from experiments.reporting.sections.weights import draw, weights_section

    rows = []
    for dataset, share in (("ecoli", 0.5), ("mnist", 0.25)):
        for level, kept in ((1, True), (2, False)):
            rows.append({"dataset": dataset, "N": 50, "T": 100, "repetition": 0, "level": level, "forest": 1,
                         "fold": 1, "level_kept": kept, "effective_share": share if kept else 0.01,
                         "tv_from_uniform": 0.3, "max_weight_ratio": 4.0})  # fmt: skip
    diagnostics = pd.DataFrame(rows)
    agreement = pd.DataFrame(
        {"dataset": ["ecoli", "mnist"], "N": 50, "T": 100, "repetition": 0, "same_prediction": [0.9, 0.99]}
    )
    headline = pd.DataFrame(
        {"dataset": ["ecoli", "ecoli", "mnist", "mnist"], "T": 100, "method": ["gcforest", "disdf"] * 2,
         "n_levels": [1, 2, 1, 1]}
    )  # fmt: skip
    text = "\n".join(weights_section(diagnostics, agreement, headline))
    # the level past the kept ones (share 0.01) is left out of the shares
    assert "| Ecoli     | 0.50" in text and "| MNIST     | 0.25" in text and "0.01" not in text
    assert "far from uniform on Ecoli, MNIST" in text and "near it" not in text
    assert "for 90–99 % of test examples" in text and "1.0; 2.0" in text
    draw(diagnostics)(tmp_path / "weights.png")
    assert (tmp_path / "weights.png").stat().st_size > 10_000
