"""DisDF - gcF mean accuracy per cell (N x T), one panel per dataset, with significance marks.

Writes results/figures/difference_heatmap.png. ▲/▼: DisDF significantly better/worse
(paired Wilcoxon signed-rank, Holm-corrected within the table).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from plotting import parse_results_dir, read_cells, save


def main() -> None:
    results = parse_results_dir(__doc__.splitlines()[0])
    cells = read_cells(results)
    cells = cells[cells["method"] == "disdf"].dropna(subset=["difference"])
    if cells.empty:
        raise SystemExit("No paired DisDF/gcF cells: run with model=disdf.")
    datasets = sorted(cells["dataset"].unique())
    limit = max(0.01, float(np.nanmax(np.abs(cells["difference"]))))
    figure, axes = plt.subplots(
        1, len(datasets), figsize=(3.8 * len(datasets), 3.6), squeeze=False, layout="constrained"
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
                ax.text(j, i, f"{value:+.3f}{mark}", ha="center", va="center", fontsize=8, color=ink)
        ax.set_xticks(range(len(grid.columns)), grid.columns)
        ax.set_yticks(range(len(grid.index)), grid.index)
        ax.set(xlabel="T", title=dataset)
    axes[0][0].set_ylabel("N")
    figure.colorbar(image, ax=axes[0].tolist(), label="DisDF − gcF accuracy", shrink=0.9)
    figure.suptitle("DisDF − gcF per cell (▲/▼ significant after Holm)")
    save(figure, results, "difference_heatmap.png")


if __name__ == "__main__":
    main()
