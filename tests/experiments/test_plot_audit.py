"""scripts/figures/plot_audit.py draws the audit's cells.csv: a figure per dataset, a colour per source."""

import sys
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_rgba

matplotlib.use("Agg")


@pytest.fixture
def audit_plot(monkeypatch):
    from scripts.figures import plot_audit

    return plot_audit


def audit_cells(results: Path) -> pd.DataFrame:
    """A made-up results/audit/cells.csv (the accuracies are arbitrary: only the layout matters)."""
    rows = []
    sources = {
        # dataset: {method: sources}; subject_groups for parkinsons only, oracle for DisDF only
        "parkinsons": {
            "gcforest": ("paper", "ours", "refit", "subject_groups"),
            "disdf": ("paper", "ours", "refit", "subject_groups", "oracle"),
        },
        "ecoli": {"gcforest": ("paper", "ours", "refit"), "disdf": ("paper", "ours", "oracle", "a_new_one")},
    }
    for dataset, by_method in sources.items():
        for method, names in by_method.items():
            for index, source in enumerate(names):
                for N in (50, 80, 100, 120):
                    rows.append(
                        {
                            "dataset": dataset,
                            "N": N,
                            "method": method,
                            "source": source,
                            "mean": 0.7 + 0.02 * index + N / 2000,
                            "ci_half": np.nan if source == "paper" else 0.02,
                        }
                    )
    cells = pd.DataFrame(rows)
    (results / "audit").mkdir(parents=True)
    cells.to_csv(results / "audit" / "cells.csv", index=False)
    return cells


def drawn(ax):
    """Each labelled source of a panel: its data line (an error bar's line, or the paper's markers); the
    single-split bands (bars, not a source) left out."""
    from scripts.figures.plotting import SPLIT_BAND_LABEL

    handles, labels = ax.get_legend_handles_labels()
    return {
        label: getattr(handle, "lines", (handle,))[0]
        for handle, label in zip(handles, labels, strict=True)
        if label != SPLIT_BAND_LABEL
    }


def headline_splits(cells: pd.DataFrame) -> pd.DataFrame:
    """Made-up headline splits of every (dataset, N, method) of ``cells``: at T = 100 evenly from 0.6 to
    0.9 + N / 1000, and at T = 400 far off (the audit's bands must not take them)."""
    rows = []
    for dataset, N, method in cells[["dataset", "N", "method"]].drop_duplicates().itertuples(index=False):
        for repetition in range(41):
            for T, accuracy in ((100, 0.6 + (0.3 + N / 1000) * repetition / 40), (400, 0.1)):
                rows.append(
                    {"dataset": dataset, "N": N, "T": T, "method": method}
                    | {"repetition": repetition, "accuracy": accuracy}
                )
    return pd.DataFrame(rows)


def run_main(audit_plot, monkeypatch, results):
    cells = (
        pd.read_csv(results / "audit" / "cells.csv") if (results / "audit" / "cells.csv").is_file() else None
    )
    if cells is not None:
        monkeypatch.setattr(audit_plot, "read_splits", lambda folder, datasets: headline_splits(cells))
    monkeypatch.setattr(sys, "argv", ["plot_audit.py", "--results", str(results)])
    audit_plot.main()


def test_writes_one_nonempty_png_per_dataset(audit_plot, monkeypatch, tmp_path):
    audit_cells(tmp_path)
    run_main(audit_plot, monkeypatch, tmp_path)
    written = sorted(path.name for path in (tmp_path / "figures").iterdir())
    assert written == ["audit_ecoli.png", "audit_parkinsons.png"]  # and no temporary left beside them
    for name in written:
        assert (tmp_path / "figures" / name).read_bytes().startswith(b"\x89PNG")
        assert (tmp_path / "figures" / name).stat().st_size > 10_000


def test_a_source_of_one_method_only_leaves_the_other_panel_intact(audit_plot, monkeypatch, tmp_path):
    cells = audit_cells(tmp_path)
    figures = {}
    monkeypatch.setattr(audit_plot, "save", lambda figure, results, name: figures.setdefault(name, figure))
    run_main(audit_plot, monkeypatch, tmp_path)
    figure = figures["audit_ecoli.png"]
    gcf, disdf = figure.axes
    assert (gcf.get_title(), disdf.get_title()) == ("gcF", "DisDF")
    assert gcf.get_shared_y_axes().joined(gcf, disdf)
    assert gcf.get_ylabel() == "test accuracy"
    assert "Ecoli" in figure.get_suptitle() and "T = 100" in figure.get_suptitle()
    band = audit_plot.SPLIT_BAND_LABEL
    assert gcf.get_legend_handles_labels()[1] == ["paper", "ours (95% CI)", "refit", band]
    assert disdf.get_legend_handles_labels()[1] == [
        "paper",
        "ours (95% CI)",
        "a_new_one",
        "oracle (λ, τ chosen on test data)",
        band,
    ]
    # the single legend has every source of either panel, once
    (legend,) = figure.legends
    assert [text.get_text() for text in legend.get_texts()] == [
        "paper",
        "ours (95% CI)",
        audit_plot.SPLIT_BAND_LABEL,
        "a_new_one",
        "oracle (λ, τ chosen on test data)",
        "refit",
    ]
    # the paper's values are bare markers at N itself; ours is thicker than a mechanism; the oracle dashed
    lines = drawn(disdf)
    paper = lines["paper"]
    assert paper.get_linestyle() == "None" and list(paper.get_xdata()) == [50, 80, 100, 120]
    expected = cells[
        (cells["dataset"] == "ecoli") & (cells["method"] == "disdf") & (cells["source"] == "paper")
    ]
    assert list(paper.get_ydata()) == list(expected.sort_values("N")["mean"])
    assert lines["ours (95% CI)"].get_linewidth() > lines["a_new_one"].get_linewidth()
    assert lines["oracle (λ, τ chosen on test data)"].get_linestyle() == "--"
    # the mechanisms are dodged: no two lines of a panel at the same x
    a_new_one, oracle = (
        lines[label].get_xdata()[0] for label in ("a_new_one", "oracle (λ, τ chosen on test data)")
    )
    assert len({50, a_new_one, oracle}) == 3


def test_a_source_has_one_colour_in_every_figure(audit_plot, monkeypatch, tmp_path):
    audit_cells(tmp_path)
    figures = {}
    monkeypatch.setattr(audit_plot, "save", lambda figure, results, name: figures.setdefault(name, figure))
    run_main(audit_plot, monkeypatch, tmp_path)

    def colours(figure):
        return {label: to_rgba(line.get_color()) for ax in figure.axes for label, line in drawn(ax).items()}

    parkinsons, ecoli = colours(figures["audit_parkinsons.png"]), colours(figures["audit_ecoli.png"])
    shared = set(parkinsons) & set(ecoli)
    assert {"paper", "ours (95% CI)", "refit", "oracle (λ, τ chosen on test data)"} <= shared
    assert all(parkinsons[label] == ecoli[label] for label in shared)
    every = {**parkinsons, **ecoli}
    assert len(set(every.values())) == len(every)  # and distinct between sources


def test_source_colors_depends_on_the_set_of_sources_only(audit_plot):
    sources = ["ours", "refit", "paper", "oracle", "stratified", "refit", "some_new_mechanism"]
    colors = audit_plot.source_colors(sources)
    assert colors == audit_plot.source_colors(reversed(sources))
    assert set(colors) == set(sources)
    assert colors["paper"] == "black"
    assert len(set(colors.values())) == len(colors)
    # a mechanism's colour is its place among the sorted mechanism names
    assert colors["oracle"] == audit_plot.PALETTE[0] and colors["stratified"] == audit_plot.PALETTE[3]
    # more mechanisms than colours still get one each
    many = audit_plot.source_colors(f"mechanism_{index:02d}" for index in range(len(audit_plot.PALETTE) + 3))
    assert set(many.values()) <= set(audit_plot.PALETTE)


def test_a_missing_cells_csv_names_the_file_and_make_audit(audit_plot, monkeypatch, tmp_path):
    with pytest.raises(SystemExit) as exit:
        run_main(audit_plot, monkeypatch, tmp_path)
    message = str(exit.value.code)
    assert "cells.csv" in message and "make audit" in message
    assert not (tmp_path / "figures").exists()  # nothing drawn


def test_inverted_test_gets_its_own_row_and_scale(audit_plot, monkeypatch, tmp_path):
    cells = audit_cells(tmp_path)
    low = cells[(cells["source"] == "ours") & (cells["dataset"] == "ecoli")].assign(source="inverted_test")
    low["mean"] = 0.08
    pd.concat([cells, low]).to_csv(tmp_path / "audit" / "cells.csv", index=False)
    figures = {}
    monkeypatch.setattr(audit_plot, "save", lambda figure, results, name: figures.setdefault(name, figure))
    run_main(audit_plot, monkeypatch, tmp_path)
    top_gcf, _, bottom_gcf, _ = figures["audit_ecoli.png"].axes
    assert "inverted_test" not in top_gcf.get_legend_handles_labels()[1]
    assert "inverted_test" in bottom_gcf.get_legend_handles_labels()[1]
    assert top_gcf.get_ylim()[0] > 0.5 and bottom_gcf.get_ylim()[1] < 0.5  # the top row is not squashed


def test_single_split_bands_stand_beside_the_papers_values(audit_plot, monkeypatch, tmp_path):
    cells = audit_cells(tmp_path)
    figures = {}
    monkeypatch.setattr(audit_plot, "save", lambda figure, results, name: figures.setdefault(name, figure))
    run_main(audit_plot, monkeypatch, tmp_path)
    figure = figures["audit_parkinsons.png"]
    assert "not adjusted for multiplicity" in figure.get_suptitle()
    splits = headline_splits(cells)
    for ax, method in zip(figure.axes, ("gcforest", "disdf"), strict=True):
        (container,) = [c for c in ax.containers if c.get_label() == audit_plot.SPLIT_BAND_LABEL]
        paper = drawn(ax)["paper"]
        for patch, x in zip(container.patches, paper.get_xdata(), strict=True):
            N = int(x)
            assert patch.get_x() + patch.get_width() / 2 == pytest.approx(x)  # at the paper's value
            # the central 95 % of the T = 100 splits (the T = 400 ones left out)
            mine = splits[
                (splits["dataset"] == "parkinsons")
                & (splits["N"] == N)
                & (splits["method"] == method)
                & (splits["T"] == 100)
            ]["accuracy"]
            assert (patch.get_y(), patch.get_y() + patch.get_height()) == pytest.approx(
                (mine.quantile(0.025), mine.quantile(0.975))
            )
        low, high = ax.get_ylim()
        assert all(low <= y <= high for line in ax.get_lines() for y in line.get_ydata())


def test_every_panel_has_a_title_the_own_scale_row_too(audit_plot, monkeypatch, tmp_path):
    cells = audit_cells(tmp_path)
    low = cells[(cells["source"] == "ours") & (cells["dataset"] == "ecoli")].assign(source="inverted_test")
    low["mean"] = 0.08
    pd.concat([cells, low]).to_csv(tmp_path / "audit" / "cells.csv", index=False)
    figures = {}
    monkeypatch.setattr(audit_plot, "save", lambda figure, results, name: figures.setdefault(name, figure))
    run_main(audit_plot, monkeypatch, tmp_path)
    titles = [ax.get_title() for ax in figures["audit_ecoli.png"].axes]
    assert titles == ["gcF", "DisDF", "gcF: inverted_test (own scale)", "DisDF: inverted_test (own scale)"]


def test_a_far_paper_value_adds_a_zoomed_row_of_ours_and_the_near_mechanisms(
    audit_plot, monkeypatch, tmp_path
):
    cells = audit_cells(tmp_path)
    ecoli_paper = (cells["dataset"] == "ecoli") & (cells["source"] == "paper")
    cells.loc[ecoli_paper & (cells["N"] == 50), "mean"] = 0.3  # Ionosphere's 0.48, made up
    cells.to_csv(tmp_path / "audit" / "cells.csv", index=False)
    figures = {}
    monkeypatch.setattr(audit_plot, "save", lambda figure, results, name: figures.setdefault(name, figure))
    run_main(audit_plot, monkeypatch, tmp_path)
    top_gcf, _, zoom_gcf, zoom_disdf = figures["audit_ecoli.png"].axes
    assert zoom_gcf.get_title() == "gcF: zoom on ours and the mechanisms within 5 points"
    # the zoom has ours and the mechanisms near it, not the paper; its scale is a fraction of the top's
    assert set(drawn(zoom_disdf)) == {"ours (95% CI)", "oracle (λ, τ chosen on test data)", "a_new_one"}
    assert "paper" in drawn(top_gcf) and "paper" not in drawn(zoom_gcf)
    top_span, zoom_span = np.ptp(top_gcf.get_ylim()), np.ptp(zoom_gcf.get_ylim())
    assert zoom_span < top_span / 3
    assert len(figures["audit_parkinsons.png"].axes) == 2  # nothing squeezed there: no zoom
