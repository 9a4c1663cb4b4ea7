"""DisDF - gcF mean accuracy per cell (N x T) in percentage points, a panel per dataset, with significance.

Writes results/figures/difference_heatmap.png. Only significant cells are coloured (paired Wilcoxon
signed-rank, Holm-corrected within the table; ▲/▼: DisDF better/worse), on a scale set by the
significant cells, so a large difference that the splits cannot tell from 0 never looks like a result;
every cell prints its value. The scale is at least ±1 point.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import matplotlib.pyplot as plt
import numpy as np

from scripts.figures.plotting import (
    dataset_name,
    parse_results_dir,
    read_cells,
    repetitions_label,
    run_plot,
    save,
)


def main() -> None:
    results = parse_results_dir(__doc__.splitlines()[0])
    cells = read_cells(results)
    cells = cells[cells["method"] == "disdf"].dropna(subset=["difference"])
    if cells.empty:
        raise SystemExit("No paired DisDF/gcF cells: run with model=disdf.")
    cells = cells.assign(difference=100 * cells["difference"])  # percentage points
    datasets = sorted(cells["dataset"].unique())
    n_T, n_N = cells["T"].nunique(), cells["N"].nunique()
    significant = cells["verdict"].isin(["DisDF better", "DisDF worse"])
    limit = max(1.0, float(np.abs(cells.loc[significant, "difference"]).max()) if significant.any() else 1.0)
    figure, axes = plt.subplots(
        1,
        len(datasets),
        figsize=(max(7.5, (0.75 * n_T + 1.1) * len(datasets) + 1.2), 0.55 * n_N + 1.9),
        squeeze=False,
        layout="constrained",
    )
    for ax, dataset in zip(axes[0], datasets, strict=True):
        group = cells[cells["dataset"] == dataset]
        grid = group.pivot(index="N", columns="T", values="difference")
        verdict = group.pivot(index="N", columns="T", values="verdict")
        shown = np.where(verdict.isin(["DisDF better", "DisDF worse"]).to_numpy(), grid.to_numpy(), 0.0)
        image = ax.imshow(shown, cmap="RdBu", vmin=-limit, vmax=limit, aspect="auto")
        for i, N in enumerate(grid.index):
            for j, T in enumerate(grid.columns):
                value = grid.loc[N, T]
                mark = {"DisDF better": " ▲", "DisDF worse": " ▼"}.get(verdict.loc[N, T], "")
                ink = "white" if abs(shown[i, j]) > 0.6 * limit else "black"
                ax.text(j, i, f"{value:+.1f}{mark}", ha="center", va="center", fontsize=8, color=ink)
        ax.set_xticks(range(len(grid.columns)), grid.columns)
        ax.set_yticks(range(len(grid.index)), grid.index)
        ax.set(xlabel="trees per forest T", title=dataset_name(dataset))
    axes[0][0].set_ylabel("training set size N")
    figure.colorbar(image, ax=axes[0].tolist(), label="DisDF − gcF (pp)", shrink=0.9)
    figure.suptitle(
        f"DisDF − gcF test accuracy (percentage points), {repetitions_label(cells['n'])} per cell\n"
        "coloured only where significant after Holm (▲ DisDF better, ▼ worse)",
        fontsize=10,
    )
    save(figure, results, "difference_heatmap.png")


if __name__ == "__main__":
    run_plot(main)
