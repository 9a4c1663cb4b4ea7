"""Our mean accuracy against the paper's, every cell of every table: a panel per dataset on one scale,
both methods with 95% CIs, the y = x line.

Writes results/figures/ours_vs_paper.png.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import matplotlib.pyplot as plt

from scripts.figures.plotting import METHOD_STYLE, dataset_name, parse_results_dir, read_cells, run_plot, save


def main() -> None:
    results = parse_results_dir(__doc__.splitlines()[0])
    cells = read_cells(results).dropna(subset=["paper"])
    if cells.empty:
        figure, ax = plt.subplots(figsize=(5.5, 3))
        ax.text(0.5, 0.5, "no cell of this run is in the paper's tables", ha="center", va="center")
        ax.set_axis_off()
        save(figure, results, "ours_vs_paper.png")
        return
    datasets = sorted(cells["dataset"].unique())
    low = min(cells["paper"].min(), (cells["mean"] - cells["ci_half"].fillna(0)).min()) - 0.02
    high = max(cells["paper"].max(), (cells["mean"] + cells["ci_half"].fillna(0)).max()) + 0.02
    figure, axes = plt.subplots(
        1,
        len(datasets),
        figsize=(3.1 * len(datasets), 3.6),
        sharex=True,
        sharey=True,
        squeeze=False,
        layout="constrained",
    )
    for ax, dataset in zip(axes[0], datasets, strict=True):
        ax.plot([low, high], [low, high], "k--", lw=1, label="y = x (ours = paper)")
        for method, (label, color) in METHOD_STYLE.items():
            group = cells[(cells["dataset"] == dataset) & (cells["method"] == method)]
            if group.empty:
                continue
            ax.errorbar(
                group["paper"],
                group["mean"],
                yerr=group["ci_half"],
                fmt="o",
                color=color,
                alpha=0.7,
                ms=3.5,
                capsize=1.5,
                label=f"{label} (ours, 95% CI)",
            )
        ax.set(xlim=(low, high), ylim=(low, high), title=dataset_name(dataset), aspect="equal")
        ax.set_xlabel("the paper's test accuracy")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("our mean test accuracy")
    handles, labels = axes[0][0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="outside lower center", ncol=3, fontsize=8, frameon=False)
    figure.suptitle("Ours against the paper, every cell (N × T)")
    save(figure, results, "ours_vs_paper.png")


if __name__ == "__main__":
    run_plot(main)
