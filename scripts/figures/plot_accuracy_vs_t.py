"""Accuracy against T for each N: both methods with 95% CIs, the paper's values as crosses.

Writes results/figures/accuracy_vs_T_<dataset>.png. T is drawn as evenly spaced
categories and the two methods side by side (dodged), so they never hide each
other. A run with one T has no "against T" to draw: its figure is accuracy against
N at that T instead (one panel).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import matplotlib.pyplot as plt
import numpy as np

from scripts.figures.plotting import (
    METHOD_STYLE,
    dataset_name,
    parse_results_dir,
    read_cells,
    repetitions_label,
    run_plot,
    save,
)

#: Horizontal offset of each method within a T category (fraction of the spacing between Ts).
DODGE = {"gcforest": -0.12, "disdf": 0.12}


def draw_ours_and_paper(ax, x, line, label: str, color: str) -> None:
    """One method's means with 95 % CIs at ``x``, and the paper's values as crosses."""
    ax.errorbar(
        x, line["mean"], yerr=line["ci_half"], fmt="-o", color=color, lw=1, ms=4, capsize=3,
        label=f"{label} (ours, 95% CI)",
    )  # fmt: skip
    ax.plot(x, line["paper"], "x", color=color, ms=8, mew=2, label=f"{label} (paper)")


def main() -> None:
    results = parse_results_dir(__doc__.splitlines()[0])
    cells = read_cells(results)
    for dataset, group in cells.groupby("dataset"):
        if group["T"].nunique() == 1:
            save(against_n(str(dataset), group), results, f"accuracy_vs_T_{dataset}.png")
            continue
        Ns, Ts = sorted(group["N"].unique()), sorted(group["T"].unique())
        position = {T: index for index, T in enumerate(Ts)}
        figure, axes = plt.subplots(
            1,
            len(Ns),
            figsize=(max(2.2, 0.7 * len(Ts) + 1.0) * len(Ns), 3.2),
            sharey=True,
            squeeze=False,
            layout="constrained",
        )
        for ax, N in zip(axes[0], Ns, strict=True):
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
            ax.grid(alpha=0.3, axis="y")
        axes[0][0].set_ylabel("test accuracy")
        handles, labels = axes[0][0].get_legend_handles_labels()
        figure.legend(handles, labels, loc="outside lower center", ncol=4, fontsize=7, frameon=False)
        figure.suptitle(
            f"{dataset_name(dataset)}: test accuracy against T ({repetitions_label(group['n'])} per cell)"
        )
        save(figure, results, f"accuracy_vs_T_{dataset}.png")


def against_n(dataset: str, group) -> plt.Figure:
    """One T: test accuracy against N, both methods dodged, with 95% CIs and the paper's values."""
    Ns = sorted(group["N"].unique())
    position = {N: index for index, N in enumerate(Ns)}
    figure, ax = plt.subplots(figsize=(max(3.5, 0.9 * len(Ns) + 1.5), 3.4), layout="constrained")
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
    figure.legend(loc="outside lower center", ncol=2, fontsize=7, frameon=False)
    T = int(group["T"].iloc[0])
    figure.suptitle(
        f"{dataset_name(dataset)}: test accuracy at T = {T} ({repetitions_label(group['n'])} per cell)",
        fontsize=10,
    )
    return figure


if __name__ == "__main__":
    run_plot(main)
