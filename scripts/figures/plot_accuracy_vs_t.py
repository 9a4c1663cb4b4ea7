"""Accuracy against T for each N: both methods with 95% CIs, the paper's values and our single splits.

Writes results/figures/accuracy_vs_T_<dataset>.png. T is drawn as evenly spaced
categories and the two methods side by side (dodged), so they never hide each
other. Each method's mean has its 95 % CI (per cell, not adjusted for multiplicity);
behind it a light bar spans the central 95 % of our single splits (2.5th–97.5th
percentile of the cell's accuracies, from the raw records the tables were made
from), beside the paper's value (a cross), which is one split's accuracy, not a
mean. A run with one T has no "against T" to draw: its figure is accuracy against
N at that T instead (one panel).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from experiments.analysis.paper_statistics import single_split_bands
from scripts.figures.plotting import (
    METHOD_STYLE,
    UNADJUSTED,
    dataset_name,
    draw_split_bands,
    parse_results_dir,
    read_cells,
    read_splits,
    repetitions_label,
    run_plot,
    save,
)

#: Horizontal offset of each method within a T category (fraction of the spacing between Ts).
DODGE = {"gcforest": -0.15, "disdf": 0.15}
#: Panels per row (one panel per N).
COLUMNS = 2
#: Width of a single-split band (same unit as DODGE).
BAND_WIDTH = 0.24
CELL = ["N", "T", "method"]


def draw_ours_and_paper(ax: Axes, x: np.ndarray, line: pd.DataFrame, label: str, color: str) -> None:
    """One method's single-split bands, means with 95 % CIs at ``x``, and the paper's values as crosses
    (``line``: the method's cells in x order, with the band's ``low`` and ``high``)."""
    draw_split_bands(ax, x, line, color, BAND_WIDTH, f"{label} (ours, central 95 % of single splits)")
    ax.errorbar(
        x, line["mean"], yerr=line["ci_half"], fmt="-o", color=color, lw=1, ms=4, capsize=3,
        label=f"{label} (ours, mean and 95% CI)",
    )  # fmt: skip
    ax.plot(x, line["paper"], "x", color=color, ms=8, mew=2, label=f"{label} (paper)")


def with_bands(cells: pd.DataFrame, splits: pd.DataFrame) -> pd.DataFrame:
    """The cells with their single-split band (``low``, ``high``); a cell without splits is refused."""
    bands = single_split_bands(splits)
    both = cells.merge(bands, on=["dataset", *CELL], how="left")
    if both["low"].isna().any():
        missing = both[both["low"].isna()].iloc[0]
        raise SystemExit(
            f"Nothing was drawn. No split records for {missing['dataset']} N={missing['N']} T={missing['T']} "
            f"{missing['method']}: run `make tables` first."
        )
    return both


def legend_below(figure: plt.Figure, ax: Axes) -> None:
    """One legend under the panels: a column per kind (band, mean, paper), a row per method."""
    entries = dict(zip(*reversed(ax.get_legend_handles_labels()), strict=True))
    kinds = ("central 95 %", "mean", "paper")
    order = sorted(entries, key=lambda label: next(i for i, kind in enumerate(kinds) if kind in label))
    figure.legend(
        [entries[label] for label in order], order, loc="outside lower center", ncol=3, fontsize=7,
        frameon=False,
    )  # fmt: skip


def subtitle(group: pd.DataFrame) -> str:
    """The figure's second title line: what is drawn, and that the CIs are not adjusted."""
    return (
        f"{repetitions_label(group['n'])} per cell: mean with {UNADJUSTED};\n"
        "shaded: the central 95 % of our single splits; ×: the paper's value"
    )


def main() -> None:
    results = parse_results_dir(__doc__.splitlines()[0])
    cells = read_cells(results)
    cells = with_bands(cells, read_splits(results, cells["dataset"].unique()))
    for dataset, group in cells.groupby("dataset"):
        if group["T"].nunique() == 1:
            save(against_n(str(dataset), group), results, f"accuracy_vs_T_{dataset}.png")
            continue
        Ns, Ts = sorted(group["N"].unique()), sorted(group["T"].unique())
        position = {T: index for index, T in enumerate(Ts)}
        columns = min(len(Ns), COLUMNS)
        rows = -(-len(Ns) // columns)
        figure, axes = plt.subplots(
            rows,
            columns,
            figsize=(max(3.2, 0.9 * len(Ts) + 1.2) * columns, 2.9 * rows + 1.0),
            sharey=True,
            squeeze=False,
            layout="constrained",
        )
        for ax in axes.flat[len(Ns) :]:
            ax.set_visible(False)
        for ax, N in zip(axes.flat, Ns, strict=False):
            for method, (label, color) in METHOD_STYLE.items():
                line = group[(group["N"] == N) & (group["method"] == method)].sort_values("T")
                if line.empty:
                    continue
                draw_ours_and_paper(
                    ax, np.array([position[T] for T in line["T"]]) + DODGE[method], line, label, color
                )
            ax.set_xticks(range(len(Ts)), [str(T) for T in Ts])
            ax.set_xlim(-0.5, len(Ts) - 0.5)
            ax.set_title(f"N = {N}", fontsize=10)
            ax.set_xlabel("trees per forest T")
            if ax.get_subplotspec().is_first_col():
                ax.set_ylabel("test accuracy")
            ax.grid(alpha=0.3, axis="y")
        legend_below(figure, axes.flat[0])
        figure.suptitle(f"{dataset_name(dataset)}: test accuracy against T\n{subtitle(group)}", fontsize=10)
        save(figure, results, f"accuracy_vs_T_{dataset}.png")


def against_n(dataset: str, group: pd.DataFrame) -> plt.Figure:
    """One T: test accuracy against N, both methods dodged, with 95% CIs and the paper's values."""
    Ns = sorted(group["N"].unique())
    position = {N: index for index, N in enumerate(Ns)}
    figure, ax = plt.subplots(figsize=(max(5.0, 0.9 * len(Ns) + 1.5), 3.8), layout="constrained")
    for method, (label, color) in METHOD_STYLE.items():
        line = group[group["method"] == method].sort_values("N")
        if line.empty:
            continue
        draw_ours_and_paper(
            ax, np.array([position[N] for N in line["N"]]) + DODGE[method], line, label, color
        )
    ax.set_xticks(range(len(Ns)), [str(N) for N in Ns])
    ax.set(xlim=(-0.5, len(Ns) - 0.5), xlabel="training set size N", ylabel="test accuracy")
    ax.grid(alpha=0.3, axis="y")
    T = int(group["T"].iloc[0])
    ax.set_title(f"T = {T}", fontsize=10)
    legend_below(figure, ax)
    figure.suptitle(f"{dataset_name(dataset)}: test accuracy at T = {T}\n{subtitle(group)}", fontsize=9)
    return figure


if __name__ == "__main__":
    run_plot(main)
