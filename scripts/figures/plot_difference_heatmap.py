"""DisDF - gcF mean accuracy per cell (N x T) in percentage points, a panel per dataset, with significance.

Writes results/figures/difference_heatmap.png. ▲/▼: DisDF significantly better/worse
(paired Wilcoxon signed-rank, Holm-corrected within the table).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import matplotlib.pyplot as plt
import numpy as np

from scripts.figures.plotting import parse_results_dir, read_cells, repetitions_label, run_plot, save


def main() -> None:
    results = parse_results_dir(__doc__.splitlines()[0])
    cells = read_cells(results)
    cells = cells[cells["method"] == "disdf"].dropna(subset=["difference"])
    if cells.empty:
        raise SystemExit("No paired DisDF/gcF cells: run with model=disdf.")
    cells = cells.assign(difference=100 * cells["difference"])  # percentage points
    datasets = sorted(cells["dataset"].unique())
    n_T, n_N = cells["T"].nunique(), cells["N"].nunique()
    limit = max(1.0, float(np.nanmax(np.abs(cells["difference"]))))
    figure, axes = plt.subplots(
        1,
        len(datasets),
        figsize=((0.75 * n_T + 1.1) * len(datasets) + 1.2, 0.55 * n_N + 1.6),
        squeeze=False,
        layout="constrained",
    )
    for ax, dataset in zip(axes[0], datasets, strict=True):
        group = cells[cells["dataset"] == dataset]
        grid = group.pivot(index="N", columns="T", values="difference")
        verdict = group.pivot(index="N", columns="T", values="verdict")
        image = ax.imshow(grid.to_numpy(), cmap="RdBu", vmin=-limit, vmax=limit, aspect="auto")
        for i, N in enumerate(grid.index):
            for j, T in enumerate(grid.columns):
                value = grid.loc[N, T]
                mark = {"DisDF better": " ▲", "DisDF worse": " ▼"}.get(verdict.loc[N, T], "")
                ink = "white" if abs(value) > 0.6 * limit else "black"
                ax.text(j, i, f"{value:+.1f}{mark}", ha="center", va="center", fontsize=8, color=ink)
        ax.set_xticks(range(len(grid.columns)), grid.columns)
        ax.set_yticks(range(len(grid.index)), grid.index)
        ax.set(xlabel="T", title=dataset)
    axes[0][0].set_ylabel("N")
    figure.colorbar(image, ax=axes[0].tolist(), label="DisDF − gcF (pp)", shrink=0.9)
    figure.suptitle(
        f"DisDF − gcF accuracy in percentage points, {repetitions_label(cells['n'])} per cell "
        "(▲/▼ significant after Holm)"
    )
    save(figure, results, "difference_heatmap.png")


if __name__ == "__main__":
    run_plot(main)
