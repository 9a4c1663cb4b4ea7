"""The report sections' figures show what they claim: differences recomputed from the records, every CI
wide enough to see, no value or reference beyond its axis, every panel titled, plain tick labels."""

from __future__ import annotations

import itertools

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.collections import LineCollection

from tests.experiments.test_paper_claims import PAPER, make_records


def inside(ax, axis: str = "both") -> bool:
    """Every line's data and every error bar of ``ax`` within its axis limits (lines in data coordinates:
    an axhline spans the axes by construction)."""
    (x0, x1), (y0, y1) = sorted(ax.get_xlim()), sorted(ax.get_ylim())
    points = [
        np.column_stack([line.get_xdata(), line.get_ydata()])
        for line in ax.get_lines()
        if line.get_transform() == ax.transData
    ]
    points += [
        np.concatenate(collection.get_segments())
        for collection in ax.collections
        if isinstance(collection, LineCollection) and collection.get_segments()
    ]
    xy = np.concatenate(points).astype(float)
    xy = xy[np.isfinite(xy).all(axis=1)]
    ok_x = ((xy[:, 0] >= x0) & (xy[:, 0] <= x1)).all()
    ok_y = ((xy[:, 1] >= y0) & (xy[:, 1] <= y1)).all()
    return {"both": ok_x and ok_y, "x": ok_x, "y": ok_y}[axis]


def titled(figure) -> bool:
    return all(ax.get_title() for ax in figure.axes if ax.get_visible())


# --- the verdict's forest plot -------------------------------------------------------------------


@pytest.fixture(scope="module")
def forest():
    from experiments.analysis.dataset_effects import effect_rows
    from experiments.analysis.paper_as_samples import scope_intervals
    from experiments.analysis.paper_claims import split_differences
    from experiments.reporting.sections.verdict import forest_figure

    records = make_records(repetitions=12, difference=lambda dataset, N, T: 0.5 * (dataset == "parkinsons"))
    paper = pd.read_csv(PAPER)
    scope = scope_intervals(records).set_index("dataset")
    effects = effect_rows(records, paper)
    effects = effects.assign(
        nb_low=effects["dataset"].map(scope["nb_low"]), nb_high=effects["dataset"].map(scope["nb_high"])
    )
    figure = forest_figure(records, paper, effects)
    figure.canvas.draw()  # the constrained layout's final positions, for the pixel widths
    yield figure, split_differences(records), paper, effects
    plt.close(figure)


def test_each_forest_panel_has_its_own_range_where_every_ci_is_seen(forest):
    figure = forest[0]
    assert [ax.get_title() for ax in figure.axes] == ["Ecoli", "Ionosphere", "MNIST", "Parkinsons"]
    assert "not adjusted for multiplicity" in figure.get_suptitle()
    assert len({ax.get_xlim() for ax in figure.axes}) > 1  # not one shared range
    for ax in figure.axes:
        assert inside(ax, "x")  # no value, paper's or ours, beyond the axis
        (cells, *_) = [c for c in ax.containers if c.get_label() == "ours, 90% CI"]
        (segments,) = cells.lines[2]
        widths = [
            abs(np.diff(ax.transData.transform(segment)[:, 0])[0]) for segment in segments.get_segments()
        ]
        assert min(widths) > 15  # pixels: at the old shared range (−8 to +21) they were about 2


def test_the_forest_draws_the_recomputed_differences_and_every_paper_value(forest):
    from experiments.analysis.paper_claims import paper_differences

    figure, differences, paper, effects = forest
    theirs = paper_differences(paper)
    for ax, dataset in zip(figure.axes, ("ecoli", "ionosphere", "mnist", "parkinsons"), strict=True):
        (cells, *_) = [c for c in ax.containers if c.get_label() == "ours, 90% CI"]
        table = differences.loc[dataset]
        expected = [table.loc[N][T].mean() for N in (50, 80, 100, 120) for T in (100, 400, 700, 1000)]
        assert list(cells.lines[0].get_xdata()) == pytest.approx(expected)
        # each paper value: a cross at its value, or ▶ ◀ at the edge with the value written
        crosses = [x for line in ax.get_lines() if line.get_marker() == "x" for x in line.get_xdata()]
        written = [float(text.get_text()) for text in ax.texts]
        values = [theirs.loc[(dataset, N), T] for N in (50, 80, 100, 120) for T in (100, 400, 700, 1000)]
        low, high = ax.get_xlim()
        beyond = [v for v in values if not low <= v <= high]
        assert beyond and {round(v, 1) for v in beyond} <= set(written)
        assert len(crosses) + len(written) == len(values) + 1  # the pooled row's too
        # the pooled row for new data: Nadeau–Bengio's interval, wider than the one given the file
        (new_data,) = [c for c in ax.containers if "Nadeau–Bengio" in c.get_label()]
        (segment,) = new_data.lines[2][0].get_segments()
        pooled = effects[effects["dataset"] == dataset].iloc[0]
        assert sorted(segment[:, 0]) == pytest.approx([pooled["nb_low"], pooled["nb_high"]])
        assert pooled["nb_high"] - pooled["nb_low"] > pooled["ci_high"] - pooled["ci_low"]


# --- the metric section's figure -----------------------------------------------------------------


def metric_records(repetitions: int = 20) -> pd.DataFrame:
    """Made-up metric records: two datasets, two N, four representations; DisDF's scores above gcF's
    by a planted amount that differs by score, dataset and N."""
    rng = np.random.default_rng(1)
    rows = []
    for dataset in ("ecoli", "mnist"):
        for N in (50, 100):
            for repetition in range(repetitions):
                base = rng.normal(0.7, 0.05)
                shifts = {
                    "metric_raw": -0.1,
                    "metric_nca": -0.05,
                    "metric_gcforest": 0.0,
                    "metric_disdf": 0.0,
                }
                for method, shift in shifts.items():
                    row = {"dataset": dataset, "N": N, "repetition": repetition, "method": method}
                    for index, score in enumerate(("accuracy", "knn1_accuracy", "pair_auc")):
                        planted = 0.01 * (index + 1) * (N / 50) if method == "metric_disdf" else 0.0
                        row[score] = base + shift + planted + rng.normal(0, 0.01)
                    rows.append(row)
    return pd.DataFrame(rows)


def test_the_metric_figure_plots_disdf_minus_gcf_recomputed_from_the_records():
    from experiments.analysis.cells import DATASET_NAMES
    from experiments.analysis.metric_view import SCORES
    from experiments.reporting.sections.metric import metric_figure

    records = metric_records()
    figure = metric_figure(records)
    try:
        assert titled(figure)
        assert "not adjusted for multiplicity" in figure.get_suptitle()
        axes = np.array(figure.axes).reshape(len(SCORES) + 1, 2)
        wide = records.pivot_table(
            index=["dataset", "N", "repetition"], columns="method", values=list(SCORES)
        )
        for ax, dataset in zip(axes[-1], ("ecoli", "mnist"), strict=True):
            assert ax.get_title() == f"{DATASET_NAMES[dataset]}: DisDF − gcF class vectors"
            lines = {c.get_label(): c.lines[0] for c in ax.containers}
            for score, label in SCORES.items():
                d = 100 * (wide[(score, "metric_disdf")] - wide[(score, "metric_gcforest")]).loc[dataset]
                drawn = lines[f"DisDF − gcF: {label}"]
                assert list(drawn.get_ydata()) == pytest.approx(list(d.groupby(level="N").mean()))
            assert inside(ax)
    finally:
        plt.close(figure)


# --- the multi-grained scanning section's figure -------------------------------------------------


def test_the_mgs_figure_has_cis_titles_and_its_60000_image_references_on_its_axis():
    from scipy import stats

    from experiments.analysis.scanning_claim import ANCHOR_LABEL, GCFOREST_PUBLISHED, PUBLISHED_LABEL
    from experiments.reporting.sections.mgs import mgs_figure

    cells = pd.DataFrame(
        [
            {"method": method, "N": N, "T": T, "n": 30, "d": -5.0 + N / 20, "ci": 2.0}
            for method in ("gcforest", "disdf")
            for T in (100, 1000)
            for N in (50, 80, 100, 120)
        ]
    )
    sizes = pd.DataFrame(
        {
            "n_train": [1000, 1000, 10000, 10000],
            "n_test": [10000] * 4,
            "method": ["gcforest"] * 4,
            "scanning": [False, True, False, True],
            "accuracy": [0.9066, 0.954, 0.9602, 0.9796],
        }
    )
    anchor = pd.Series(
        {"n_train": 60000, "test_accuracy": 0.9791, "accuracy_ci_low": 0.9761, "accuracy_ci_high": 0.9818}
    )
    figure = mgs_figure(cells, sizes, anchor)
    try:
        left, right = figure.axes
        assert titled(figure) and "not adjusted for multiplicity" in left.get_title()
        assert inside(left) and inside(right)  # the 60,000-image references on the axis, not beyond it
        assert not [line for line in right.get_lines() if line.get_transform() != right.transData]
        assert [label.get_text() for label in right.get_xticklabels()] == ["1,000", "10,000", "60,000"]
        drawn = {c.get_label(): c for c in right.containers}
        for scanning, accuracies in ((False, (0.9066, 0.9602)), (True, (0.954, 0.9796))):
            label = f"gcF {'with' if scanning else 'without'} scanning (first n images)"
            (segments,) = drawn[label].lines[2]
            for (low, high), accuracy in zip(
                (sorted(segment[:, 1]) for segment in segments.get_segments()), accuracies, strict=True
            ):
                interval = stats.binomtest(round(accuracy * 10000), 10000).proportion_ci(0.95)
                assert (low, high) == pytest.approx((interval.low, interval.high))
        assert drawn[PUBLISHED_LABEL].lines[0].get_ydata()[0] == GCFOREST_PUBLISHED
        (segments,) = drawn[ANCHOR_LABEL].lines[2]
        assert sorted(segments.get_segments()[0][:, 1]) == pytest.approx([0.9761, 0.9818])
        # each panel's legend is below it, off the data
        assert not left.get_legend() and not right.get_legend() and len(figure.subfigs[0].legends) == 1
    finally:
        plt.close(figure)


# --- the growing-data section's figure -----------------------------------------------------------


def test_the_scale_figure_reads_in_plain_numbers_and_shows_repeated_timings():
    import re

    from experiments.reporting.sections.scale import OTHER_RUN, SPREAD_BAR, other_timings, scale_figure

    def row(problem, method, n, seconds, gib):
        return {"problem": problem, "method": method, "n_train": n, "fit_seconds": seconds} | {
            "peak_memory_gib": gib,
            "date": "2026-11-26",
        }

    measured = pd.DataFrame(
        [
            row("mnist", method, n, seconds * n / 5000, gib * (n / 5000) ** 0.5)
            for method, seconds, gib in (("gcforest", 16, 0.6), ("disdf", 60, 0.65), ("df21", 170, 0.39))
            for n in (5000, 10000, 20000, 60000)
            if not (method == "df21" and n == 60000)
        ]
        + [
            row("higgs_like", "random_forest", n, 2 * n / 10000, 0.2 * (n / 10000) ** 0.4)
            for n in (10**4, 10**5, 10**6)
        ]
    )
    df21 = pd.DataFrame(
        {
            "mode": ["native", "native", "kfold"], "n_train": [10000, 60000, 10000], "n_jobs": [2, 2, 2],
            "fit_seconds": [634.0, 2610.0, 1.0], "peak_memory_gb": [0.56, 1.57, 9.0],
            "date": ["2026-11-22", "2026-11-25", "x"],
        }
    )  # fmt: skip
    figure = scale_figure(measured, other_timings(df21))
    try:
        figure.canvas.draw()
        assert titled(figure) and "one timing" in figure.get_suptitle()
        assert [ax.get_title() for ax in figure.axes] == [
            "MNIST: fit time", "HIGGS-shaped: fit time", "MNIST: peak memory", "HIGGS-shaped: peak memory"
        ]  # fmt: skip
        assert not any(ax.get_legend() for ax in figure.axes) and len(figure.legends) == 1  # off the data
        for ax in figure.axes:
            assert inside(ax)
            for axis in (ax.xaxis, ax.yaxis):
                labels = [label for label in axis.get_ticklabels(which="both") if label.get_text()]
                assert labels and all(re.fullmatch(r"[\d,]+(\.\d+)?", label.get_text()) for label in labels)
            boxes = [label.get_window_extent() for label in ax.xaxis.get_ticklabels() if label.get_text()]
            assert not any(a.overlaps(b) for a, b in itertools.pairwise(boxes))
        assert [label.get_text() for label in figure.axes[0].get_xticklabels()] == [
            "5,000", "10,000", "20,000", "60,000"
        ]  # fmt: skip
        # DF21 at 10,000 timed twice: a bar from the lower to the higher timing; the kfold row is not its mode
        mnist_time = figure.axes[0]
        (bar,) = [c for c in mnist_time.collections if len(c.get_segments()) == 1]
        assert sorted(bar.get_segments()[0][:, 1]) == pytest.approx([170 * 2, 634.0])
        assert SPREAD_BAR in [text.get_text() for text in figure.legends[0].get_texts()]
        assert "spans the timings of a point timed twice" in figure.get_suptitle()
        (again,) = [line for line in mnist_time.get_lines() if line.get_label() == OTHER_RUN]
        assert list(again.get_xdata()) == [10000, 60000]
    finally:
        plt.close(figure)
