"""REPORT.md section "Why DisDF ≈ gcF": how far the learned tree weights are from gcForest's uniform 1/T
and how few levels the cascades keep (results/weights/diagnostics.csv, made by
:mod:`experiments.drivers.weight_diagnostics` from refits of the headline's DisDF that reproduce its
records; levels kept from the headline's records).

    python -m experiments.drivers.weight_diagnostics      # make weights (then this section)
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from experiments.analysis.cells import DATASET_NAMES
from experiments.reporting.section import Rendered, ReportContext, Section

DIAGNOSTICS = "results/weights/diagnostics.csv"
FIGURE = "figures/weights.png"


def weight_summary(diagnostics: pd.DataFrame, headline: pd.DataFrame) -> pd.DataFrame:
    """Per dataset and T: the kept levels' mean effective share of trees and total variation from
    uniform (fold models averaged), and the mean levels kept by gcF and DisDF in the headline."""
    kept = diagnostics[diagnostics["level_kept"]]
    weights = kept.groupby(["dataset", "T"]).agg(
        effective_share=("effective_share", "mean"),
        tv_from_uniform=("tv_from_uniform", "mean"),
        max_weight_ratio=("max_weight_ratio", "median"),
        splits=("repetition", "nunique"),
    )
    levels = headline.pivot_table(index=["dataset", "T"], columns="method", values="n_levels", aggfunc="mean")
    return weights.join(
        levels.rename(columns={"gcforest": "gcF levels", "disdf": "DisDF levels"})
    ).reset_index()


def draw(diagnostics: pd.DataFrame):
    def draw_into(path) -> None:
        kept = diagnostics[diagnostics["level_kept"]]
        datasets = sorted(kept["dataset"].unique())
        Ts = sorted(kept["T"].unique())
        figure, axes = plt.subplots(1, len(Ts), figsize=(4.2 * len(Ts), 3.4), sharey=True)
        for axis, T in zip(np.atleast_1d(axes), Ts, strict=True):
            at_T = kept[kept["T"] == T]
            for level, marker in ((1, "o"), (2, "s"), (3, "^")):
                values = [
                    at_T[(at_T["dataset"] == d) & (at_T["level"] == level)]["effective_share"]
                    for d in datasets
                ]
                positions = np.arange(len(datasets)) + 0.22 * (level - 2)
                means = [v.mean() if len(v) else np.nan for v in values]
                spread = [v.quantile([0.1, 0.9]).to_numpy() if len(v) else (np.nan, np.nan) for v in values]
                low = [m - s[0] for m, s in zip(means, spread, strict=True)]
                high = [s[1] - m for m, s in zip(means, spread, strict=True)]
                axis.errorbar(
                    positions, means, yerr=[low, high], fmt=marker, ms=4, capsize=2, label=f"level {level}"
                )
            axis.axhline(1.0, color="0.4", lw=0.8, ls="--", label="uniform (gcF)")
            axis.set_xticks(range(len(datasets)), [DATASET_NAMES.get(d, d) for d in datasets], fontsize=8)
            axis.set_ylim(0, 1.05)
            axis.set_xlim(-0.5, len(datasets) - 0.5)
            axis.set_title(f"T = {T}", fontsize=10)
        first = np.atleast_1d(axes)[0]
        first.set_ylabel("effective trees / T  (1/Σw² ÷ T)")
        handles, labels = first.get_legend_handles_labels()
        figure.legend(handles, labels, fontsize=7, loc="lower center", ncol=4, frameon=False)
        figure.suptitle("DisDF's weights at kept levels: mean, 10–90 % of fold models", fontsize=9)
        figure.tight_layout(rect=(0, 0.08, 1, 1))
        figure.savefig(path, dpi=130)
        plt.close(figure)

    return draw_into


def weights_section(diagnostics: pd.DataFrame, agreement: pd.DataFrame, headline: pd.DataFrame) -> list[str]:
    summary = weight_summary(diagnostics, headline)
    alike = agreement.groupby(["dataset", "T"])["same_prediction"].mean()
    Ts = sorted(summary["T"].unique())
    rows = []
    for dataset, part in summary.groupby("dataset"):
        part = part.set_index("T")
        rows.append(
            {
                "dataset": DATASET_NAMES.get(dataset, dataset),
                "effective trees / T": " / ".join(f"{part.loc[T, 'effective_share']:.2f}" for T in Ts),
                "levels kept gcF; DisDF": " / ".join(
                    f"{part.loc[T, 'gcF levels']:.1f}; {part.loc[T, 'DisDF levels']:.1f}" for T in Ts
                ),
                "same prediction as gcF": " / ".join(f"{100 * alike[dataset, T]:.0f} %" for T in Ts),
            }
        )
    share = summary.groupby("dataset")["effective_share"].mean()
    far, near = share[share < NEAR_UNIFORM], share[share >= NEAR_UNIFORM]
    spread = ", ".join(DATASET_NAMES.get(d, d) for d in far.index)
    flat = ", ".join(DATASET_NAMES.get(d, d) for d in near.index)
    return [
        "## Why DisDF ≈ gcF",
        "",
        f"Per T = {' / '.join(str(T) for T in Ts)}: a kept level's forest acts like that share of its trees "
        "(1/Σw² over T; gcF's uniform weights: 1.00)"
        + (f": far from uniform on {spread}" if len(far) else "")
        + (f", near it on {flat}" if len(near) else "")
        + f". Yet DisDF and gcF predict the same class for {100 * alike.min():.0f}–{100 * alike.max():.0f} % "
        "of test examples: a weighted and a plain average of the same trees rarely disagree on the largest "
        f"class ({int(summary['splits'].min())} splits per (dataset, N), refitted).",
        "",
        pd.DataFrame(rows).to_markdown(index=False, disable_numparse=True),
        "",
        f"![Weights]({FIGURE})",
    ]


#: A kept level's mean effective share of trees from which its weights count as near uniform.
NEAR_UNIFORM = 0.8


def render(context: ReportContext) -> Rendered | None:
    """The section; None without the diagnostics file."""
    path = context.root / DIAGNOSTICS
    if not path.is_file():
        return None
    headline, _ = context.records("paper")
    diagnostics, agreement = pd.read_csv(path), pd.read_csv(path.with_name("agreement.csv"))
    headline = headline[headline["T"].isin(set(diagnostics["T"]))]
    lines = weights_section(diagnostics, agreement, headline)
    return Rendered("\n".join(lines), figures={FIGURE: draw(diagnostics)})


SECTION = Section("weights", DIAGNOSTICS, render)
