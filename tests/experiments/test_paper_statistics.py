"""The paper's tables judged against simulated per-split variability whose truth we know."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from experiments.analysis.cells import DATASET_NAMES
from experiments.analysis.paper_statistics import (
    paired_t_power,
    power_of_our_tests,
    repetitions_consistent,
    spread_across_T,
)
from experiments.reporting.paper_statistics_text import paper_statistics_section

DATASETS = ("parkinsons", "ecoli", "ionosphere", "mnist")
NS = (50, 80, 100, 120)
TS = (100, 400, 700, 1000)
METHODS = ("gcforest", "disdf")
SIGMA = 0.05


def row_mean(dataset_index: int, n_index: int, method_index: int) -> float:
    """A made-up true accuracy per (dataset, N, method), the same for every T."""
    return 0.6 + 0.05 * dataset_index + 0.02 * n_index + 0.03 * method_index


def simulated_tables(
    seed: int = 0, repetitions: int = 100, paper_repetitions: int = 5
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Our records (``repetitions`` draws per cell) and a paper table of means of fresh draws."""
    rng = np.random.default_rng(seed)
    records, paper = [], []
    for d, dataset in enumerate(DATASETS):
        for i, N in enumerate(NS):
            for m, method in enumerate(METHODS):
                mean = row_mean(d, i, m)
                for T in TS:
                    cell = {"dataset": dataset, "N": N, "T": T, "method": method}
                    ours = rng.normal(mean, SIGMA, repetitions)
                    records += [{**cell, "repetition": r, "accuracy": a} for r, a in enumerate(ours)]
                    paper_value = rng.normal(mean, SIGMA, paper_repetitions).mean()
                    paper.append({**cell, "accuracy": paper_value})
    return pd.DataFrame(records), pd.DataFrame(paper)


def test_repetitions_recovers_the_paper_s_number_of_repetitions():
    records, paper = simulated_tables(seed=0, paper_repetitions=5)
    estimate = repetitions_consistent(spread_across_T(records, paper)).set_index("dataset")
    everything = estimate.loc["all"]
    assert everything["R"] == 32
    assert everything["ci_low"] <= 5 <= everything["ci_high"]
    assert everything["ci_high"] < 100
    assert set(estimate.index) == {*DATASETS, "all", "all but ionosphere"}


def test_repetitions_is_exact_when_the_spread_is_exactly_sigma_over_root_n():
    spread = pd.DataFrame(
        {
            "dataset": ["a", "a", "b"],
            "n_T": [4, 4, 4],
            "sigma_per_split": [0.05, 0.1, 0.02],
            "paper_sd_across_T": [0.05 / 3, 0.1 / 3, 0.02 / 3],  # n = 9 in every row
        }
    )
    estimate = repetitions_consistent(spread).set_index("dataset")
    assert estimate["n_hat"].to_numpy() == pytest.approx([9, 9, 9])
    assert (estimate["ci_low"] < 9).all() and (estimate["ci_high"] > 9).all()
    # More rows, more degrees of freedom: a narrower interval.
    width = estimate["ci_high"] - estimate["ci_low"]
    assert width["all"] < width["b"]


def test_spread_across_t_gives_the_paper_s_sd_and_our_pooled_sigma():
    records, paper = simulated_tables(seed=1, repetitions=20)
    row = {"dataset": "ecoli", "N": 80, "method": "disdf"}
    paper_values = paper.loc[(paper[list(row)] == pd.Series(row)).all(axis=1), "accuracy"].to_numpy()
    ours = records[(records[list(row)] == pd.Series(row)).all(axis=1)]
    spread = spread_across_T(records, paper)
    found = spread[(spread[list(row)] == pd.Series(row)).all(axis=1)].iloc[0]

    assert len(spread) == len(DATASETS) * len(NS) * len(METHODS)
    assert found["paper_sd_across_T"] == pytest.approx(np.std(paper_values, ddof=1), abs=1e-15)
    assert found["paper_range_across_T"] == pytest.approx(np.ptp(paper_values), abs=1e-15)
    pooled = np.sqrt(ours.groupby("T")["accuracy"].var(ddof=1).mean())
    assert found["sigma_per_split"] == pytest.approx(pooled, abs=1e-15)
    assert found["expected_sd_across_T"] == pytest.approx(pooled / np.sqrt(20), abs=1e-15)
    assert found["our_sd_across_T"] == pytest.approx(ours.groupby("T")["accuracy"].mean().std(ddof=1))


PAPER_DELTAS = {100: 0.0, 400: 0.5, 700: 1.4, 1000: 2.0, 1300: -1.4}  # points, per T


def paired_tables(n: int = 100, sd_points: float = 5.0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Records whose DisDF − gcF per split has mean exactly 0 and SD exactly ``sd_points`` in every
    cell, and a paper table with the differences ``PAPER_DELTAS``."""
    rng = np.random.default_rng(2)
    records, paper = [], []
    for T, delta in PAPER_DELTAS.items():
        gcf = rng.uniform(0.6, 0.8, n)
        z = rng.normal(size=n)
        difference = (z - z.mean()) / z.std(ddof=1) * sd_points / 100
        cell = {"dataset": "ecoli", "N": 50, "T": T}
        for method, accuracy in (("gcforest", gcf), ("disdf", gcf + difference)):
            records += [
                {**cell, "method": method, "repetition": r, "accuracy": a} for r, a in enumerate(accuracy)
            ]
        paper += [
            {**cell, "method": "gcforest", "accuracy": 0.8},
            {**cell, "method": "disdf", "accuracy": 0.8 + delta / 100},
        ]
    return pd.DataFrame(records), pd.DataFrame(paper)


def test_power_is_alpha_at_no_difference_and_0_8_at_a_noncentrality_of_2_8():
    records, paper = paired_tables()
    power = power_of_our_tests(records, paper, alpha=0.05).set_index("T")

    assert power["n_pairs"].eq(100).all()
    assert power["our_sd_difference"].to_numpy() == pytest.approx(5.0, abs=1e-9)
    assert power["our_mean_difference"].to_numpy() == pytest.approx(0.0, abs=1e-9)
    assert power["paper_delta"].to_dict() == pytest.approx(PAPER_DELTAS)
    assert power.loc[100, "power"] == pytest.approx(0.05, abs=1e-9)
    assert power.loc[100, "power_holm16"] == pytest.approx(0.05 / 16, abs=1e-9)
    # δ = 1.4 points with σ_d = 5 and n = 100: δ√n/σ_d = 2.8, the textbook 80 % power.
    assert power.loc[700, "power"] == pytest.approx(0.8, abs=0.03)
    assert power.loc[1300, "power"] == pytest.approx(power.loc[700, "power"], abs=1e-12)


def test_power_grows_with_the_size_of_the_difference_and_shrinks_with_the_level():
    records, paper = paired_tables()
    power = power_of_our_tests(records, paper, alpha=0.05)
    by_size = power.assign(size=power["paper_delta"].abs()).sort_values("size").drop_duplicates("size")
    assert np.all(np.diff(by_size["power"]) > 0)
    assert np.all(np.diff(by_size["power_holm16"]) > 0)
    assert (power["power_holm16"] < power["power"]).all()


def test_paired_t_power_at_the_edges():
    assert paired_t_power(0.0, 0.0, 100, alpha=0.05) == pytest.approx(0.05, abs=1e-12)
    assert paired_t_power(1.0, 0.0, 100) == 1.0
    assert np.isnan(paired_t_power(1.0, 1.0, 1))
    # A difference far beyond the noise: scipy's nct.cdf is nan out here; the power must be 1.
    assert paired_t_power(10.0, 1.0, 100) == pytest.approx(1.0)
    assert paired_t_power(-10.0, 1.0, 100, alpha=0.05 / 16) == pytest.approx(1.0)


def test_section_is_short_markdown_with_every_dataset_and_no_pooled_row():
    records, paper = simulated_tables(seed=3, repetitions=10)
    lines = paper_statistics_section(records, paper)
    text = "\n".join(lines)
    assert lines[0] == "### What the paper's tables can tell"
    assert len(lines) <= 20
    assert all(DATASET_NAMES.get(dataset, dataset) in text for dataset in DATASETS)
    assert "| all datasets " not in text and "inside our CI of the mean" not in text
    assert "on our 10 splits" in text  # the number of repetitions comes from the records
    assert "likelihood-ratio test" in text


def test_one_n_for_every_dataset_is_rejected_only_when_they_differ():
    """The likelihood-ratio test: datasets simulated with 1 and 20 repetitions differ, all with 5 do not."""
    from experiments.analysis.paper_statistics import heterogeneity

    same = spread_across_T(*simulated_tables(seed=1, paper_repetitions=5))
    assert heterogeneity(same)["p"] > 0.01
    records, paper = simulated_tables(seed=1, paper_repetitions=20)
    _, few = simulated_tables(seed=2, paper_repetitions=1)
    mixed = pd.concat([paper[paper["dataset"].isin(DATASETS[:2])], few[~few["dataset"].isin(DATASETS[:2])]])
    assert heterogeneity(spread_across_T(records, mixed))["p"] < 1e-3


def test_the_sign_pattern_and_single_split_coverage_count_what_they_say():
    from experiments.analysis.paper_statistics import sign_pattern, single_split_coverage

    records, paper = simulated_tables(seed=4, repetitions=40)
    signs = sign_pattern(records, paper).set_index("dataset")
    for dataset in DATASETS:
        shares = [
            float(signs.loc[dataset, c].rstrip("%"))
            for c in ("our splits: DisDF > gcF", "ties", "DisDF < gcF")
        ]
        assert sum(shares) == pytest.approx(100, abs=2)  # rounded shares of every split
    coverage = single_split_coverage(records, paper).set_index("dataset")["inside single-split 95 %"]
    assert all(
        int(c.split("/")[0]) >= 28 for c in coverage
    )  # a mean of 5 draws sits well inside one draw's 95 %
