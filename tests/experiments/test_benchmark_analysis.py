"""The benchmark's comparison across datasets, on constructed accuracies whose answer is known."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from experiments.analysis.benchmark import contrasts, dataset_accuracies, five_by_two_interval, ranking


def records(shift: dict[str, float], n_datasets: int = 20, repetitions: int = 5) -> pd.DataFrame:
    """Records of six methods on ``n_datasets``, each method's accuracy the dataset's base plus its
    shift (in points) and a little noise."""
    rng = np.random.default_rng(0)
    rows = []
    for d in range(n_datasets):
        base = rng.uniform(0.6, 0.9)
        for r in range(repetitions):
            for method in ("gcforest", "disdf", "disdf_tuned", "random_forest", "extra_trees", "knn"):
                accuracy = base + shift.get(method, 0.0) / 100 + rng.normal(0, 0.002)
                rows.append({"dataset": f"d{d}", "repetition": r, "method": method, "accuracy": accuracy})
    return pd.DataFrame(rows)


def test_a_clear_gain_is_better_and_a_null_one_equivalent():
    accuracies = dataset_accuracies(records({"disdf": 0.0, "disdf_tuned": 4.0, "knn": -10.0}))
    by = {(c.treatment, c.baseline): c for c in contrasts(accuracies)}
    assert by[("disdf", "gcforest")].verdict == "equivalent"
    assert by[("disdf_tuned", "gcforest")].verdict == "better"
    assert (
        by[("disdf_tuned", "gcforest")].holm_p < 0.05
        and abs(by[("disdf_tuned", "gcforest")].mean_pp - 4) < 0.5
    )
    worse = contrasts(dataset_accuracies(records({"disdf": -4.0})))[0]
    assert worse.verdict == "worse" and worse.p_worse > 0.95


def test_the_ranking_finds_the_worst_method_last():
    result = ranking(dataset_accuracies(records({"knn": -10.0, "extra_trees": 2.0})))
    assert result.p_value < 1e-6
    assert result.mean_ranks.index[-1] == "knn" and result.mean_ranks.index[0] == "extra_trees"
    assert result.nemenyi.loc["knn", "extra_trees"] < 0.05


def test_incomplete_repetitions_are_left_out_of_every_method():
    frame = records({})
    frame = frame[~((frame["dataset"] == "d0") & (frame["repetition"] == 4) & (frame["method"] == "knn"))]
    accuracies = dataset_accuracies(frame)
    kept = frame[(frame["dataset"] == "d0") & (frame["repetition"] < 4)]
    expected = 100 * kept.groupby("method")["accuracy"].mean()
    np.testing.assert_allclose(accuracies.loc["d0", expected.index], expected.to_numpy())


def test_the_report_section_draws_from_records_and_says_nothing_without_them(tmp_path):
    from experiments.reporting.section import ReportContext
    from experiments.reporting.sections import benchmark

    assert benchmark.render(ReportContext(tmp_path, tmp_path)) is None
    frame = records({"disdf_tuned": 4.0}).assign(dataset=lambda f: "keel_" + f["dataset"])
    traits = pd.DataFrame(
        {"dataset": sorted(set(frame["dataset"])), "n": 300, "d": 5, "classes": 2, "majority_rate": 0.5}
    )
    traits["n"] = np.arange(len(traits)) * 10 + 200
    regime_a = benchmark.REGIMES[0]
    df21 = (
        frame[frame["method"] == "gcforest"]
        .assign(accuracy=lambda f: f["accuracy"] + 0.02, status="ok", library_version="0.1.9")
        .drop(columns="method")
    )
    df21.loc[df21["dataset"] == "keel_d3", "status"] = "ValueError: too few rows"
    regimes = {"benchmark": (regime_a, frame)}
    partial = df21[df21["repetition"] < 4]  # DF21 still running: not looked at, said to be missing
    text = "\n".join(benchmark.benchmark_section(regimes, traits, {"benchmark": partial})[0])
    assert "**DF21**" not in text and "DF21 in regime (a); DF21 in regime (b)" in text
    lines, detail, figures = benchmark.benchmark_section(regimes, traits, {"benchmark": df21})
    text = "\n".join(lines)
    assert "spearman_rho" in "\n".join(detail) and "spearman_rho" not in text
    assert re.search(r"\| DisDF tuned − gcF \| \+(3\.9\d|4\.0\d) \|", text)
    # DF21 on the tables it completed (19 of 20), +2 points over gcF; the failed table named
    assert re.search(r"on 19 tables: DF21 − gcF \+2\.0\d points", text) and "d3: ValueError" in text
    assert "Not complete yet (reported when every table is done): Regime (b)" in text
    assert "DF21 in regime (b)." in text and "DF21 in regime (a)" not in text
    for name, draw in figures.items():
        draw(tmp_path / name.split("/")[-1])
        assert (tmp_path / name.split("/")[-1]).stat().st_size > 10_000


def test_dietterichs_interval_uses_the_spread_within_each_repeat():
    # each repeat's two folds differ by 2 points: the variance of one fold's difference is 2
    differences = pd.Series([1.0, 3.0] * 5, index=range(10))
    mean, half = five_by_two_interval(differences)
    assert mean == 2.0
    np.testing.assert_allclose(half, 2.5705818 * np.sqrt(2.0), rtol=1e-6)  # t(0.975, 5 df)


def test_balanced_accuracy_is_read_by_the_same_tests_when_every_record_has_it(tmp_path):
    """A method that keeps accuracy but loses 5 points of balanced accuracy on every table (it ignores
    a small class): the secondary line (APPENDIX.md's, not the main part's) finds it worse, and records
    without the field show no such line."""
    from experiments.reporting.sections import benchmark

    frame = records({}).assign(dataset=lambda f: "keel_" + f["dataset"])
    frame["balanced_accuracy"] = frame["accuracy"] - 0.05 * (frame["method"] == "disdf")
    traits = pd.DataFrame(
        {"dataset": sorted(set(frame["dataset"])), "n": 300, "d": 5, "classes": 2, "majority_rate": 0.5}
    )
    regimes = {"benchmark": (benchmark.REGIMES[0], frame)}
    lines, detail, _ = benchmark.benchmark_section(regimes, traits, {})
    text, appendix = "\n".join(lines), "\n".join(detail)
    secondary = next(line for line in detail if line.startswith("Balanced accuracy (secondary"))
    assert re.search(r"DisDF − gcF -(4\.9\d|5\.0\d) \(Wilcoxon", secondary) and "worse" in secondary
    assert "Balanced accuracy" not in text  # the main part's 2,000 words hold the primary endpoint only
    assert appendix.index("Balanced accuracy (secondary") < appendix.index("| DisDF − gcF | -")
    assert "| DisDF − gcF | -5.0" in appendix or "| DisDF − gcF | -4.9" in appendix
    without = "\n".join(
        benchmark.benchmark_section(
            {"benchmark": (benchmark.REGIMES[0], frame.drop(columns="balanced_accuracy"))}, traits, {}
        )[0]
    )
    assert "Balanced accuracy" not in without
