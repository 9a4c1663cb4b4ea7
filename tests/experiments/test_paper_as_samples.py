"""The paper's values as samples of ours (issue #43, items 5-7), on made-up records with known answers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from experiments.analysis.paper_as_samples import (
    GRID_HONEST,
    paper_sample_check,
    predictive_check,
    repetitions_by_dataset,
    scope_intervals,
    selection_gains,
    table_sampler,
)
from experiments.analysis.paper_claims import split_differences
from experiments.reporting.paper_samples_text import paper_as_samples_section

NS = (50, 80, 100, 120)
TS = (100, 400, 700, 1000)
SIGMA = 0.05


def records_from(differences: dict[int, np.ndarray], dataset: str = "ecoli", n_test=None) -> pd.DataFrame:
    """Records whose DisDF − gcF (accuracy, not points) per split is ``differences[N]`` (splits × T);
    gcF's accuracy is 0.8 everywhere."""
    rows = []
    for N, table in differences.items():
        tested = round(2 * N / 3) if n_test is None else n_test[N]
        for repetition, per_T in enumerate(np.atleast_2d(table)):
            for T, difference in zip(TS, per_T, strict=True):
                cell = {"dataset": dataset, "N": N, "T": T, "repetition": repetition, "n_test": tested}
                rows.append({**cell, "method": "gcforest", "accuracy": 0.8})
                rows.append({**cell, "method": "disdf", "accuracy": 0.8 + difference})
    return pd.DataFrame(rows)


def paper_from(differences: dict[int, np.ndarray], dataset: str = "ecoli") -> pd.DataFrame:
    """A paper table whose DisDF − gcF at (N, T) is ``differences[N][T index]``; gcF 0.8."""
    rows = []
    for N, per_T in differences.items():
        for T, difference in zip(TS, per_T, strict=True):
            rows.append({"dataset": dataset, "N": N, "T": T, "method": "gcforest", "accuracy": 0.8})
            rows.append({"dataset": dataset, "N": N, "T": T, "method": "disdf", "accuracy": 0.8 + difference})
    return pd.DataFrame(rows)


def check_one(records, paper, n, grid=None, draws=10_000, shared_T=True) -> pd.DataFrame:
    """The predictive check of the records' one dataset at one n, indexed by selection."""
    dataset = records["dataset"].iloc[0]
    found = predictive_check(records, paper, {dataset: [n]}, grid, draws=draws, shared_T=shared_T)
    return found.set_index("selection")


# --- the predictive check ---------------------------------------------------------------------------


def test_two_splits_per_n_give_the_exact_probability_of_the_all_positive_table():
    """Per N one split at +1 point and one at −1 in every T: a table of single splits is all +1 with
    probability (1/2)^4 (one draw per N, its T together), a table of means of 2 with (1/4)^4."""
    splits = np.array([[0.01] * 4, [-0.01] * 4])
    records = records_from(dict.fromkeys(NS, splits))
    paper = paper_from(dict.fromkeys(NS, [0.01] * 4))

    one = check_one(records, paper, n=1).loc["λ = τ = 1"]
    assert one["paper_mean"] == pytest.approx(1.0) and one["paper_count"] == 16 and one["cells"] == 16
    for column in ("p_mean", "p_count", "p_joint"):
        assert one[column] == pytest.approx(1 / 16, abs=0.01)  # 3 binomial SDs at 10,000 draws: 0.007
    two = check_one(records, paper, n=2).loc["λ = τ = 1"]
    assert two["p_joint"] == pytest.approx(1 / 256, abs=0.002)
    # Each T its own split: all 16 positive has probability 2^-16, below the smallest P of 10,000 draws.
    apart = check_one(records, paper, n=1, shared_T=False).loc["λ = τ = 1"]
    assert apart["p_count"] == pytest.approx(1 / 10_001)


def noisy_records(seed: int = 0, splits: int = 100) -> pd.DataFrame:
    """DisDF − gcF per split: a split effect shared by its T plus a little noise per T, mean +0.3 points."""
    rng = np.random.default_rng(seed)
    return records_from(
        {N: 0.003 + rng.normal(0, 0.02, (splits, 1)) + rng.normal(0, 0.005, (splits, len(TS))) for N in NS}
    )


def median_split(records: pd.DataFrame) -> dict[int, np.ndarray]:
    """Per N, the split whose mean over T is the median one: its four T (as accuracy differences)."""
    table = split_differences(records).loc["ecoli"] / 100
    chosen = {}
    for N, block in table.groupby(level="N"):
        means = block.mean(axis=1)
        chosen[N] = block.loc[(means - means.median()).abs().idxmin()].to_numpy()
    return chosen


def test_a_paper_table_made_of_our_own_splits_is_unremarkable_and_a_shifted_one_is_not():
    records = noisy_records()
    typical = median_split(records)
    inside = check_one(records, paper_from(typical), n=1).loc["λ = τ = 1"]
    assert inside["p_mean"] > 0.3 and inside["p_count"] > 0.05 and inside["p_joint"] > 0.05
    assert inside["splits"] == 100

    shifted = paper_from({N: values + 0.05 for N, values in typical.items()})  # +5 points in every cell
    outside = check_one(records, shifted, n=1).loc["λ = τ = 1"]
    assert outside["p_mean"] < 1e-3 and outside["p_joint"] < 1e-3
    # Without grid records the test-set selections have no P.
    assert check_one(records, shifted, n=1).loc["λ best per split", ["p_mean", "p_joint"]].isna().all()


def grid_for(records: pd.DataFrame, gain: float, splits: int = 50) -> pd.DataFrame:
    """An audit grid at T = 100 on the records' first ``splits`` splits: λ = τ = 1 is the records' DisDF,
    one point is ``gain`` (accuracy) better on every split, one is worse."""
    disdf = records[(records["method"] == "disdf") & (records["T"] == 100) & (records["repetition"] < splits)]
    frames = [
        disdf.assign(method=GRID_HONEST),
        disdf.assign(method="disdf_lam10_tau1", accuracy=disdf["accuracy"] + gain),
        disdf.assign(method="disdf_lam0p1_tau1", accuracy=disdf["accuracy"] - 0.02),
    ]
    return pd.concat(frames, ignore_index=True)


def test_choosing_lambda_on_the_test_data_explains_a_table_that_is_the_gain_above_ours():
    records = noisy_records(seed=1)
    paper = paper_from({N: values + 0.03 for N, values in median_split(records).items()})
    check = check_one(records, paper, n=2, grid=grid_for(records, gain=0.03))
    assert check.loc["λ = τ = 1", "p_joint"] < 1e-3
    for selection in ("λ best per split", "λ best per cell"):
        assert check.loc[selection, "p_mean"] > 0.1 and check.loc[selection, "p_joint"] > 0.02
        assert check.loc[selection, "splits"] == 50
    # A constant gain: both ways of choosing pick the same point and draw the same splits.
    assert check.loc["λ best per split", "p_joint"] == check.loc["λ best per cell", "p_joint"]


def test_the_best_point_per_split_adds_at_least_what_the_best_point_per_cell_adds():
    records = noisy_records(seed=2)
    rng = np.random.default_rng(3)
    grid = grid_for(records, gain=0.0)
    grid["accuracy"] += rng.normal(0, 0.02, len(grid)) * (grid["method"] != GRID_HONEST)
    table = split_differences(records).loc["ecoli"]
    gains = selection_gains(grid).loc["ecoli"]
    honest = table_sampler(table, 3)(np.random.default_rng(0), 500)
    per_split = table_sampler(table, 3, gains, choose="split")(np.random.default_rng(0), 500)
    per_cell = table_sampler(table, 3, gains, choose="cell")(np.random.default_rng(0), 500)
    assert per_split.shape == per_cell.shape == (500, 16)
    assert (per_split >= per_cell - 1e-12).all() and (per_split > per_cell + 1e-9).any()
    assert not np.array_equal(honest, per_cell)  # the grid draws from its 50 splits, not all 100


# --- n̂ per dataset ----------------------------------------------------------------------------------


def exact_spread_tables(repetitions: dict[str, float], splits: int = 30) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Records whose per-split SD is exactly SIGMA in every cell (gcF = DisDF, so averaging the methods
    changes nothing) and a paper table whose SD across T is exactly SIGMA/√n in every row: n̂ = n."""
    rng = np.random.default_rng(4)
    steps = np.array([-1.5, -0.5, 0.5, 1.5]) / np.std([-1.5, -0.5, 0.5, 1.5], ddof=1)
    records, paper = [], []
    for dataset, n in repetitions.items():
        for i, N in enumerate(NS):
            mean = 0.7 + 0.02 * i
            for j, T in enumerate(TS):
                z = rng.normal(size=splits)
                accuracy = mean + (z - z.mean()) / z.std(ddof=1) * SIGMA
                value = mean + steps[j] * SIGMA / np.sqrt(n)
                for method in ("gcforest", "disdf"):
                    cell = {"dataset": dataset, "N": N, "T": T, "method": method}
                    records += [
                        {**cell, "repetition": r, "accuracy": a, "n_test": round(2 * N / 3)}
                        for r, a in enumerate(accuracy)
                    ]
                    paper.append({**cell, "accuracy": value})
    return pd.DataFrame(records), pd.DataFrame(paper)


def test_n_hat_is_exact_per_dataset_and_below_one_is_flagged():
    records, paper = exact_spread_tables({"ecoli": 4.0, "mnist": 0.5, "parkinsons": 2.5})
    estimates, _ = repetitions_by_dataset(records, paper)
    estimates = estimates.set_index("dataset")
    assert estimates["n_hat"].to_dict() == pytest.approx({"ecoli": 4.0, "mnist": 0.5, "parkinsons": 2.5})
    assert estimates["R"].eq(4).all()  # the methods averaged: one row per N
    assert estimates["below_one"].to_dict() == {"ecoli": False, "mnist": True, "parkinsons": False}
    assert estimates["n_check"].to_dict() == {"ecoli": 4, "mnist": 1, "parkinsons": 3}
    assert (estimates["ci_low"] < estimates["n_hat"]).all() and (
        estimates["ci_high"] > estimates["n_hat"]
    ).all()


def test_the_pooled_n_hat_is_given_only_when_the_datasets_agree():
    agree, paper = exact_spread_tables(dict.fromkeys(("ecoli", "mnist", "parkinsons"), 3.0))
    _, test = repetitions_by_dataset(agree, paper)
    assert test["p"] == pytest.approx(1.0) and test["groups"] == 3
    assert test["pooled"]["n_hat"] == pytest.approx(3.0)
    assert "pooled n̂ = 3.0" in "\n".join(
        paper_as_samples_section(agree, paper, paper_sample_check(agree, paper, draws=200))
    )

    disagree, paper = exact_spread_tables({"ecoli": 1.0, "mnist": 25.0, "parkinsons": 1.0})
    _, test = repetitions_by_dataset(disagree, paper)
    assert test["p"] < 0.05 and test["pooled"] is None
    text = "\n".join(
        paper_as_samples_section(disagree, paper, paper_sample_check(disagree, paper, draws=200))
    )
    assert "no pooled n̂ is given" in text and "pooled n̂ =" not in text


# --- the scope of our intervals ---------------------------------------------------------------------


def test_the_nadeau_bengio_interval_widens_as_the_test_share_grows():
    rng = np.random.default_rng(6)
    differences = {N: rng.normal(0.005, 0.03, (100, 1)) + rng.normal(0, 0.01, (100, 4)) for N in NS}
    widths, conditional = [], []
    for fraction in (0.25, 0.5, 1.0):
        n_test = {N: round(fraction * N) for N in NS}
        records = records_from(differences, n_test=n_test)
        row = scope_intervals(records).iloc[0]
        widths.append(row["nb_high"] - row["nb_low"])
        conditional.append(row["cond_high"] - row["cond_low"])
    assert widths[0] < widths[1] < widths[2]
    assert conditional == pytest.approx([conditional[0]] * 3)  # the conditional CI ignores the test size
    assert widths[0] > 4 * conditional[0]  # 1/100 + 0.25 against 1/100: √26 ≈ 5 times as wide


def test_the_intervals_are_at_the_level_of_the_decisions_and_the_estimate_is_the_reports():
    rng = np.random.default_rng(7)
    records = records_from({N: rng.normal(0.005, 0.03, (100, 4)) for N in NS})
    ninety, ninety_five = scope_intervals(records).iloc[0], scope_intervals(records, level=0.95).iloc[0]
    assert "nb_share_low" not in ninety  # the unvalidated scaled variant is gone
    ratio = (ninety["cond_high"] - ninety["cond_low"]) / (ninety_five["cond_high"] - ninety_five["cond_low"])
    assert ratio == pytest.approx(1.6449 / 1.96, rel=0.01)  # a 90 % interval, not a 95 % one
    # The estimate is the report's: the mean over N of the per-N means of the T-averaged differences.
    per_split = split_differences(records).mean(axis=1)
    assert ninety["mean"] == pytest.approx(per_split.groupby(level="N").mean().mean())


# --- the section ------------------------------------------------------------------------------------


def test_the_section_has_the_three_tables_and_names_every_dataset():
    records = pd.concat([noisy_records(seed=8).assign(dataset=d) for d in ("ecoli", "parkinsons")])
    paper = pd.concat(
        [paper_from(median_split(noisy_records(seed=9))).assign(dataset=d) for d in ("ecoli", "parkinsons")]
    )
    grid = grid_for(records, gain=0.01)
    lines = paper_as_samples_section(records, paper, paper_sample_check(records, paper, grid, draws=500))
    text = "\n".join(lines)
    assert lines[0] == "### The paper's values as samples of ours"
    assert len(lines) <= 40
    assert sum(line.startswith("|:") for line in lines) == 3  # three markdown tables
    assert "Ecoli" in text and "Parkinsons" in text
    assert "500 tables per row" in text and "50 splits per N the grid ran (100 for λ = τ = 1)" in text
    assert "new data: Nadeau–Bengio (90%)" in text and "share of the file" in text  # dropped, and said
