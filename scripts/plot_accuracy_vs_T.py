"""Accuracy against T for each N: both methods with 95% CI bands, the paper's values as points.

Writes results/figures/accuracy_vs_T_<dataset>.png.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
from plotting import METHOD_STYLE, parse_results_dir, read_cells, save


def main() -> None:
    results = parse_results_dir(__doc__.splitlines()[0])
    cells = read_cells(results)
    for dataset, group in cells.groupby("dataset"):
        Ns = sorted(group["N"].unique())
        figure, axes = plt.subplots(
            1, len(Ns), figsize=(3.6 * len(Ns), 3.4), sharey=True, squeeze=False, layout="constrained"
        )
        for ax, N in zip(axes[0], Ns, strict=True):
            for method, (label, color) in METHOD_STYLE.items():
                line = group[(group["N"] == N) & (group["method"] == method)].sort_values("T")
                if line.empty:
                    continue
                ax.errorbar(
                    line["T"],
                    line["mean"],
                    yerr=line["ci_half"],
                    fmt="-o",
                    color=color,
                    label=f"{label} (ours)",
                    ms=4,
                    capsize=3,
                )
                ax.fill_between(
                    line["T"],
                    line["mean"] - line["ci_half"],
                    line["mean"] + line["ci_half"],
                    color=color,
                    alpha=0.2,
                )
                ax.plot(line["T"], line["paper"], "x", color=color, ms=8, mew=2, label=f"{label} (paper)")
            n_min = int(group[group["N"] == N]["n"].min())
            ax.set_title(f"N = {N} ({n_min}+ repetitions)")
            ax.set_xlabel("trees per forest T")
            ax.grid(alpha=0.3)
        axes[0][0].set_ylabel("test accuracy")
        axes[0][-1].legend(fontsize=7, loc="lower right")
        figure.suptitle(f"{dataset}: accuracy against T (bands: 95% CI)")
        save(figure, results, f"accuracy_vs_T_{dataset}.png")


if __name__ == "__main__":
    main()
