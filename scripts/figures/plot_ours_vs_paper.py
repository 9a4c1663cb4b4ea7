"""Our mean accuracy against the paper's, every cell of every table, with the y = x line.

Writes results/figures/ours_vs_paper.png.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import matplotlib.pyplot as plt

from scripts.figures.plotting import METHOD_STYLE, parse_results_dir, read_cells, run_plot, save

MARKERS = {"parkinsons": "o", "ecoli": "s", "ionosphere": "^", "mnist": "D"}


def main() -> None:
    results = parse_results_dir(__doc__.splitlines()[0])
    cells = read_cells(results).dropna(subset=["paper"])
    figure, ax = plt.subplots(figsize=(5.5, 5.5))
    if cells.empty:
        ax.text(0.5, 0.5, "no cell of this run is in the paper's tables", ha="center", va="center")
        save(figure, results, "ours_vs_paper.png")
        return
    for (dataset, method), group in cells.groupby(["dataset", "method"]):
        label, color = METHOD_STYLE[method]
        ax.errorbar(
            group["paper"],
            group["mean"],
            yerr=group["ci_half"],
            fmt=MARKERS.get(dataset, "o"),
            color=color,
            alpha=0.75,
            ms=5,
            capsize=2,
            label=f"{dataset} {label}",
        )
    low = min(cells["paper"].min(), (cells["mean"] - cells["ci_half"].fillna(0)).min()) - 0.02
    high = max(cells["paper"].max(), (cells["mean"] + cells["ci_half"].fillna(0)).max()) + 0.02
    ax.plot([low, high], [low, high], "k--", lw=1, label="y = x")
    ax.set(xlim=(low, high), ylim=(low, high), xlabel="paper's accuracy", ylabel="our mean accuracy (95% CI)")
    ax.set_title("Ours against the paper, every cell")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    save(figure, results, "ours_vs_paper.png")


if __name__ == "__main__":
    run_plot(main)
