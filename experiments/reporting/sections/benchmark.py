"""REPORT.md section "Beyond the paper's datasets": the benchmark's comparison across 43 KEEL tables,
by the rules declared before its records (:mod:`experiments.analysis.benchmark_plan`).

    python -m experiments.reporting.report --section benchmark     # after make benchmark
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy import stats

from experiments.analysis.benchmark import (
    Ranking,
    complete_repetitions,
    contrasts,
    dataset_accuracies,
    ranking,
    trait_correlations,
)
from experiments.analysis.benchmark_plan import DECISION_PROBABILITY, MARGIN_PP
from experiments.reporting.section import Rendered, ReportContext, Section
from experiments.running.keel import DATASET_TABLE as TABLE

NAMES = {
    "gcforest": "gcF",
    "disdf": "DisDF",
    "disdf_tuned": "DisDF tuned",
    "random_forest": "RF (4T)",
    "extra_trees": "ET (4T)",
    "knn": "5-NN",
}
CD_FIGURE = "figures/benchmark_ranks.png"
FOREST_FIGURE = "figures/benchmark_differences.png"


def per_dataset_differences(records: pd.DataFrame, treatment: str, baseline: str) -> pd.DataFrame:
    """Per dataset: the mean paired difference treatment - baseline over its repetitions (points) and
    its 95 % CI (t), unadjusted."""
    table = complete_repetitions(records)
    difference = 100 * (table[treatment] - table[baseline])
    rows = []
    for dataset, values in difference.groupby(level="dataset"):
        n = len(values)
        half = stats.t.ppf(0.975, n - 1) * values.std(ddof=1) / np.sqrt(n) if n > 1 else np.nan
        rows.append({"dataset": dataset.removeprefix("keel_"), "mean": values.mean(), "half": half, "n": n})
    return pd.DataFrame(rows).sort_values("mean")


def critical_difference(n_methods: int, n_datasets: int, alpha: float = 0.05) -> float:
    """Nemenyi's critical difference of mean ranks (Demšar 2006): q_alpha sqrt(k(k+1) / 6N), q_alpha the
    studentized range quantile over sqrt(2) (scipy)."""
    q = stats.studentized_range.ppf(1 - alpha, n_methods, np.inf) / np.sqrt(2)
    return float(q * np.sqrt(n_methods * (n_methods + 1) / (6 * n_datasets)))


def draw_ranks(result: Ranking, n_tables: int):
    """Each method's mean rank, with the span of one critical difference to its right: a method whose
    rank lies inside another's span is not separated from it by Nemenyi's test."""
    ranks = result.mean_ranks
    cd = critical_difference(len(ranks), n_tables)

    def draw(path) -> None:
        figure, axis = plt.subplots(figsize=(7.5, 2.8))
        y = np.arange(len(ranks))[::-1]
        axis.hlines(y, ranks.to_numpy(), ranks.to_numpy() + cd, color="0.8", lw=5, label=f"one CD ({cd:.2f})")
        axis.plot(ranks.to_numpy(), y, "o", color="tab:blue")
        axis.set_yticks(y, [NAMES[m] for m in ranks.index])
        axis.set_xlabel("mean rank over tables (1 = best)")
        axis.set_xlim(1, float(ranks.max()) + cd + 0.2)
        axis.legend(loc="upper right", fontsize=8)
        axis.set_title(f"{n_tables} KEEL tables: methods within one CD of each other are not "
                       "separated (Nemenyi, alpha 0.05)", fontsize=9)  # fmt: skip
        figure.tight_layout()
        figure.savefig(path, dpi=130)
        plt.close(figure)

    return draw


#: The differences plotted inside +-this many points; an interval beyond is clipped, its end an arrow.
X_LIMIT = 6.0


def draw_differences(frames: dict[str, pd.DataFrame]):
    def draw(path) -> None:
        figure, axes = plt.subplots(1, len(frames), figsize=(4.4 * len(frames), 8.5))
        for axis, (title, frame) in zip(np.atleast_1d(axes), frames.items(), strict=True):
            y = np.arange(len(frame))
            low = np.clip(frame["mean"] - frame["half"], -X_LIMIT, X_LIMIT)
            high = np.clip(frame["mean"] + frame["half"], -X_LIMIT, X_LIMIT)
            axis.hlines(y, low, high, color="tab:blue", lw=1)
            axis.plot(np.clip(frame["mean"], -X_LIMIT, X_LIMIT), y, "o", ms=3, color="tab:blue")
            ends = zip(frame["mean"] - frame["half"], frame["mean"] + frame["half"], strict=True)
            for row, (lo, hi) in enumerate(ends):
                if lo < -X_LIMIT:
                    axis.annotate("", (-X_LIMIT, row), (-X_LIMIT + 0.6, row), arrowprops={"arrowstyle": "->"})
                if hi > X_LIMIT:
                    axis.annotate("", (X_LIMIT, row), (X_LIMIT - 0.6, row), arrowprops={"arrowstyle": "->"})
            axis.axvspan(-MARGIN_PP, MARGIN_PP, color="0.9", zorder=0, label=f"±{MARGIN_PP:g} point")
            axis.axvline(0, color="0.4", lw=0.8)
            axis.set_xlim(-X_LIMIT - 0.3, X_LIMIT + 0.3)
            axis.set_yticks(y, frame["dataset"], fontsize=7)
            axis.set_xlabel("difference (points); 95 % CI over repetitions, unadjusted", fontsize=8)
            axis.set_title(title, fontsize=10)
            axis.legend(loc="lower right", fontsize=7)
        figure.suptitle(f"Per table; arrows: intervals beyond ±{X_LIMIT:g} points", fontsize=9)
        figure.tight_layout()
        figure.savefig(path, dpi=130)
        plt.close(figure)

    return draw


def repetition_range(repetitions: pd.Series) -> str:
    """ "30", or "25–30" where tables have different counts."""
    low, high = int(repetitions.min()), int(repetitions.max())
    return f"{low}" if low == high else f"{low}–{high}"


def benchmark_section(records: pd.DataFrame, traits: pd.DataFrame) -> tuple[list[str], dict]:
    accuracies = dataset_accuracies(records)
    repetitions = records.groupby("dataset")["repetition"].nunique()
    result = ranking(accuracies)
    decided = contrasts(accuracies)
    lines = [
        "## Beyond the paper's datasets",
        "",
        f"The 43 tables of KEEL's balanced collection (`results/benchmark/datasets.csv`); the paper's "
        f"small-sample regime: N = 100 stratified training examples, the rest (up to 1,000) as test set, "
        f"T = 100, {repetition_range(repetitions)} repetitions per table "
        f"({len(accuracies)} tables with every method; `make benchmark`). Protocol and tests were "
        "declared before the first record was written (`configs/experiment/benchmark.yaml`, "
        "`experiments/analysis/benchmark_plan.py`); a table's accuracy is its mean over repetitions, "
        "and the table is the unit of every test.",
        "",
        f"| contrast | mean (points) | Wilcoxon p (Holm) | P(worse) | P(within ±{MARGIN_PP:g}) | P(better) | "
        f"verdict (P > {DECISION_PROBABILITY:g}) |",
        "|:--|--:|--:|--:|--:|--:|:--|",
    ]
    for c in decided:
        lines.append(
            f"| {NAMES[c.treatment]} − {NAMES[c.baseline]} | {c.mean_pp:+.2f} | {c.holm_p:.3g} | "
            f"{c.p_worse:.3f} | {c.p_equivalent:.3f} | {c.p_better:.3f} | {c.verdict} |"
        )
    ranks = ", ".join(f"{NAMES[m]} {r:.2f}" for m, r in result.mean_ranks.items())
    lines += [
        "",
        f"Friedman's test over the six methods: χ² = {result.statistic:.1f}, p = {result.p_value:.2g}. "
        f"Mean ranks (1 = best): {ranks}. In the figure a method within one critical difference of "
        "another is not separated from it (Nemenyi).",
        "",
        f"![Mean ranks]({CD_FIGURE})",
        "",
        f"![Per-table differences]({FOREST_FIGURE})",
        "",
        "DisDF's gain over gcF against each table's traits (Spearman, descriptive, uncorrected):",
        "",
        trait_correlations(accuracies, traits).to_markdown(index=False, floatfmt=".3f"),
        "",
        "Not yet run: the full-data regime (5 × 2-fold cross-validation), DF21, and the tuned headline on "
        "the paper's own datasets.",
    ]
    frames = {
        "DisDF − gcF": per_dataset_differences(records, "disdf", "gcforest"),
        "DisDF tuned − gcF": per_dataset_differences(records, "disdf_tuned", "gcforest"),
    }
    figures = {CD_FIGURE: draw_ranks(result, len(accuracies)), FOREST_FIGURE: draw_differences(frames)}
    return lines, figures


def render(context: ReportContext) -> Rendered | None:
    """The section; None without the benchmark's records."""
    records, _ = context.records("benchmark")
    if records.empty or not TABLE.is_file():
        return None
    traits = pd.read_csv(TABLE).assign(dataset=lambda frame: "keel_" + frame["dataset"])
    lines, figures = benchmark_section(records, traits)
    return Rendered("\n".join(lines), figures=figures)


SECTION = Section(
    "benchmark", "the records of experiment=benchmark and results/benchmark/datasets.csv", render
)
