"""The audit's mechanisms against N, next to the paper's values and our headline, a figure per dataset.

Reads results/audit/cells.csv (written by `make audit`) and writes
results/figures/audit_<dataset>.png: gcF left, DisDF right, x = N, y = test accuracy.
The paper's values are large black markers, ours a thick line with 95% CIs, each
mechanism a thinner line with its CIs, dodged along x. Behind the paper's markers a
light bar spans the central 95 % of our single splits at T = 100 (the headline's raw
records, those its tables were made from): the paper reports one value per cell, to be
read against where one split's accuracy falls, not against a CI of a mean. A source
keeps its colour in every panel and every dataset's figure.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

from collections.abc import Iterable

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from experiments.analysis.paper_statistics import single_split_bands
from scripts.figures.plotting import (
    METHOD_STYLE,
    SPLIT_BAND_LABEL,
    UNADJUSTED,
    dataset_name,
    draw_split_bands,
    parse_results_dir,
    read_splits,
    run_plot,
    save,
)

#: The number of trees of every row of the audit's table (it has no T column).
T = 100
COLUMNS = ("dataset", "N", "method", "source", "mean", "ci_half")
#: Sources with a fixed look; every other source is a mechanism of the audit.
PAPER, OURS, ORACLE = "paper", "ours", "oracle"
FIXED_COLORS = {PAPER: "black", OURS: "dimgray"}
#: Colours of the mechanisms, given in the order of their sorted names (tab10 without its grey,
#: then tab20's light shades); more mechanisms than colours reuse them from the start.
PALETTE = (
    "tab:blue",
    "tab:orange",
    "tab:green",
    "tab:red",
    "tab:purple",
    "tab:brown",
    "tab:pink",
    "tab:olive",
    "tab:cyan",
    "#aec7e8",
    "#ffbb78",
    "#98df8a",
    "#ff9896",
    "#c5b0d5",
    "#c49c94",
    "#f7b6d2",
    "#dbdb8d",
    "#9edae5",
)
LABELS = {PAPER: "paper", OURS: "ours (95% CI)", ORACLE: "oracle (λ, τ chosen on test data)"}
#: Simulated faults far below every other line: drawn in their own row of panels, on their own scale,
#: so they do not squash the others.
OWN_SCALE = ("inverted_test",)
#: A row zooming on ours and the mechanisms whose every cell lies within NEAR (accuracy) of ours, added
#: when the full-scale row spans more than ZOOM_RATIO times their range: there the paper's values or a
#: far mechanism (Ionosphere's 0.48, the misaligned features) squeeze them into a few pixels.
NEAR = 0.05
ZOOM_RATIO = 3.0
#: Half the width over which the lines of one N are spread, as a fraction of the smallest gap between Ns.
SPREAD = 0.3
#: Width of a single-split band, as a fraction of the smallest gap between Ns.
BAND_WIDTH = 0.12


def read_audit(results: Path) -> pd.DataFrame:
    """The audit's cell table, or SystemExit naming the file and the command that writes it."""
    path = results / "audit" / "cells.csv"
    if not path.is_file():
        raise SystemExit(f"No audit table {path}: run `make audit` first.")
    cells = pd.read_csv(path)
    missing = [column for column in COLUMNS if column not in cells.columns]
    if missing:
        raise SystemExit(f"{path} lacks the column(s) {', '.join(missing)}: rerun `make audit`.")
    cells["source"] = cells["source"].astype(str)
    return cells.dropna(subset=["mean"])


def mechanisms(sources: Iterable[str]) -> list[str]:
    """The sources other than the paper and ours, sorted by name."""
    return sorted(set(sources) - {PAPER, OURS})


def source_colors(sources: Iterable[str]) -> dict[str, str]:
    """A colour for each source: fixed for the paper and ours, the mechanisms in sorted order from PALETTE.

    Pass the sources of the whole table, not of one dataset, so a source has one colour in every figure.
    """
    sources = set(sources)
    colors = {source: color for source, color in FIXED_COLORS.items() if source in sources}
    for index, source in enumerate(mechanisms(sources)):
        colors[source] = PALETTE[index % len(PALETTE)]
    return colors


def source_offsets(sources: Iterable[str], Ns: Iterable[float]) -> dict[str, float]:
    """Shift along x of each source's line: the paper and ours at N itself, the mechanisms around it."""
    Ns = np.unique(np.asarray(list(Ns), dtype=float))
    gap = float(np.diff(Ns).min()) if len(Ns) > 1 else 20.0
    others = mechanisms(sources)
    # ours in the middle, the mechanisms alternately right and left of it: +1, -1, +2, -2, ...
    slots = [(index // 2 + 1) * (1 if index % 2 == 0 else -1) for index in range(len(others))]
    step = SPREAD * gap / max(1, max((abs(slot) for slot in slots), default=1))
    offsets = {PAPER: 0.0, OURS: 0.0}
    offsets.update({source: slot * step for source, slot in zip(others, slots, strict=True)})
    return offsets


def read_bands(results: Path, datasets: Iterable[str]) -> pd.DataFrame:
    """Per (dataset, N, method): the central 95 % of the headline's single splits at T = :data:`T`."""
    splits = read_splits(results, datasets)
    return single_split_bands(splits[splits["T"] == T], by=("dataset", "N", "method"))


def band_width(Ns: Iterable[float]) -> float:
    """A single-split band's width in units of N: :data:`BAND_WIDTH` of the smallest gap between Ns."""
    Ns = np.unique(np.asarray(list(Ns), dtype=float))
    return BAND_WIDTH * (float(np.diff(Ns).min()) if len(Ns) > 1 else 20.0)


def near_sources(cells: pd.DataFrame) -> set[str]:
    """Ours and the mechanisms of ``cells`` (the full-scale row's, without OWN_SCALE) whose every cell
    lies within :data:`NEAR` of ours."""
    ours = cells[cells["source"] == OURS].set_index(["N", "method"])["mean"]
    near = {OURS}
    for source, line in cells.groupby("source"):
        if source in (PAPER, OURS):
            continue
        gap = (line.set_index(["N", "method"])["mean"] - ours).abs().dropna()
        if not gap.empty and gap.max() <= NEAR:
            near.add(str(source))
    return near


def zoom_cells(cells: pd.DataFrame) -> pd.DataFrame | None:
    """The cells of the zoomed row (ours and :func:`near_sources`), or None when the full-scale row does
    not squeeze them (it spans at most :data:`ZOOM_RATIO` times their range)."""

    def span(frame: pd.DataFrame) -> float:
        half = frame["ci_half"].fillna(0.0)
        return float((frame["mean"] + half).max() - (frame["mean"] - half).min())

    near = cells[cells["source"].isin(near_sources(cells))]
    if near.empty or span(cells) <= ZOOM_RATIO * span(near):
        return None
    return near


def draw_panel(ax: Axes, cells: pd.DataFrame, colors: dict[str, str], offsets: dict[str, float]) -> None:
    """One method's sources of one dataset: the paper's markers, ours and every mechanism."""
    for source, line in sorted(cells.groupby("source"), key=lambda item: (item[0] != PAPER, item[0] != OURS)):
        line = line.sort_values("N")
        x = line["N"].to_numpy(dtype=float) + offsets[source]
        label = LABELS.get(source, source)
        if source == PAPER:
            ax.plot(x, line["mean"], "o", color=colors[source], ms=10, label=label, zorder=4)
            continue
        ours = source == OURS
        ax.errorbar(
            x,
            line["mean"],
            yerr=line["ci_half"],
            fmt="--o" if source == ORACLE else "-o",
            color=colors[source],
            lw=2.5 if ours else 1.2,
            ms=5 if ours else 4,
            capsize=3 if ours else 2,
            elinewidth=1.5 if ours else 0.9,
            label=label,
            zorder=3 if ours else 2,
        )


def plot_dataset(
    dataset: str,
    cells: pd.DataFrame,
    colors: dict[str, str],
    offsets: dict[str, float],
    bands: pd.DataFrame | None = None,
) -> plt.Figure:
    """A dataset's figure: gcF's panel left and DisDF's right, sharing y, one legend below them; a row
    zooming on ours and the mechanisms near it where the full scale squeezes them (:func:`zoom_cells`);
    the sources of OWN_SCALE (if the dataset has them) in a last row on their own y scale. ``bands``
    (the dataset's :func:`read_bands`): our single splits' central 95 % behind the paper's markers."""
    full = cells[~cells["source"].isin(OWN_SCALE)]
    zoom = zoom_cells(full)
    apart = cells[cells["source"].isin(OWN_SCALE)]
    # (cells, panel title after the method's name, y label, row height) per row of panels
    rows = [(full, "", "test accuracy", 3.0)]
    if zoom is not None:
        title = f": zoom on ours and the mechanisms within {100 * NEAR:g} points"
        rows.append((zoom, title, "test accuracy\n(zoom)", 2.0))
    if not apart.empty:
        title = f": {', '.join(sorted(set(apart['source'])))} (own scale)"
        rows.append((apart, title, "test accuracy\n(own scale)", 1.3))
    heights = [row[3] for row in rows]
    figure, axes = plt.subplots(
        len(rows),
        len(METHOD_STYLE),
        figsize=(10, 1.4 * sum(heights)),
        sharey="row",
        sharex=True,
        squeeze=False,
        layout="constrained",
        gridspec_kw={"height_ratios": heights},
    )
    Ns = sorted(cells["N"].unique())
    width = band_width(Ns)
    for row, (part, title, ylabel, _) in enumerate(rows):
        for ax, (method, (name, _)) in zip(axes[row], METHOD_STYLE.items(), strict=True):
            panel = part[part["method"] == method]
            if panel.empty:
                ax.text(
                    0.5, 0.5, f"no {name} cell in the audit", ha="center", va="center", transform=ax.transAxes
                )
            draw_panel(ax, panel, colors, offsets)
            if row == 0 and bands is not None:
                mine = bands[bands["method"] == method].sort_values("N")
                draw_split_bands(
                    ax, mine["N"].to_numpy(dtype=float), mine, colors[OURS], width, SPLIT_BAND_LABEL
                )
            ax.set_xticks(Ns, [str(N) for N in Ns])
            ax.grid(alpha=0.3, axis="y")
            ax.set_title(name + title, fontsize=10)
            if row == len(rows) - 1:
                ax.set_xlabel("training set size N")
        axes[row][0].set_ylabel(ylabel)
    # one entry per source, although a source may be drawn in one panel only
    entries = {}
    for ax in axes.flat:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            entries.setdefault(label, handle)
    # paper, ours, our single splits, the mechanisms by name
    order = [
        LABELS[PAPER],
        LABELS[OURS],
        SPLIT_BAND_LABEL,
        *(LABELS.get(source, source) for source in colors),
    ]
    labels = sorted(entries, key=lambda label: order.index(label) if label in order else len(order))
    figure.legend(
        [entries[label] for label in labels],
        labels,
        loc="outside lower center",
        ncol=4,
        fontsize=8,
        frameon=False,
    )
    figure.suptitle(
        f"{dataset_name(dataset)}: test accuracy under the audit's mechanisms, T = {T}\n"
        f"means with {UNADJUSTED}"
        + (
            "; shaded: the central 95 % of our single splits, beside the paper's values"
            if bands is not None
            else ""
        ),
        fontsize=10,
    )
    return figure


def main() -> None:
    results = parse_results_dir(__doc__.splitlines()[0])
    cells = read_audit(results)
    bands = read_bands(results, cells["dataset"].unique())
    colors = source_colors(cells["source"])
    offsets = source_offsets(cells["source"], cells["N"])
    for dataset, group in cells.groupby("dataset"):
        mine = bands[bands["dataset"] == dataset]
        save(plot_dataset(str(dataset), group, colors, offsets, mine), results, f"audit_{dataset}.png")


if __name__ == "__main__":
    run_plot(main)
