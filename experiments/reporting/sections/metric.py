"""REPORT.md section "DisDF as a metric learner", and its figure.

    python -m experiments.reporting.sections.metric      # after make metric

Per dataset and representation (``experiment=metric``, T = 100, every N): 5-NN and 1-NN
accuracy and the pair-verification ROC AUC, means with 95 % CIs over splits; and DisDF against
gcF and against the best other representation, paired by split (Wilcoxon over all the dataset's
splits, Holm over the three scores within the dataset).
"""

from __future__ import annotations

import logging
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.analysis.cells import DATASET_NAMES
from experiments.analysis.metric_view import (
    REPRESENTATIONS,
    SCORES,
    disdf_comparisons,
    gcf_differences,
    score_curves,
    score_intervals,
)
from experiments.analysis.plan import BETTER, WORSE
from experiments.reporting.section import Rendered, ReportContext, Section

log = logging.getLogger(__name__)


def score_rows(records: pd.DataFrame) -> pd.DataFrame:
    """Per dataset and representation: each score's mean ± 95 % CI over splits."""
    intervals = score_intervals(records)
    rows = []
    for (dataset, method), group in intervals.groupby(["dataset", "method"], sort=False):
        row = {"dataset": dataset, "representation": REPRESENTATIONS.get(method, method)}
        for item in group.itertuples():
            row[SCORES[item.score]] = f"{item.mean:.3f} ± {item.half:.3f}"
        rows.append(row)
    return pd.DataFrame(rows)


def comparison_rows(records: pd.DataFrame) -> pd.DataFrame:
    """:func:`~experiments.analysis.metric_view.disdf_comparisons`, as the section's table shows them."""
    tests = disdf_comparisons(records)
    return pd.DataFrame(
        {
            "dataset": tests["dataset"],
            "score": tests["score"],
            "DisDF against": tests["against"],
            "difference (pp)": [
                f"{m:+.1f} ± {h:.1f}" for m, h in zip(tests["mean"], tests["half"], strict=True)
            ],
            "p (Holm)": tests["p_holm"].map(lambda p: f"{p:.2g}"),
            "verdict": tests["verdict"],
        }
    )


#: The difference row's line per score: colour and marker (apart from the representations' colours).
DIFFERENCE_STYLE = {
    "accuracy": ("black", "o"),
    "knn1_accuracy": ("tab:purple", "s"),
    "pair_auc": ("tab:olive", "^"),
}


def _score_panel(ax, curves: pd.DataFrame, dataset: str, score: str, Ns: list, step: float) -> None:
    """One score on one dataset: each representation's mean against N with its 95 % CI, dodged."""
    names = list(REPRESENTATIONS.items())
    for index, (method, name) in enumerate(names):
        line = curves[(curves["dataset"] == dataset) & (curves["method"] == method)]
        line = line[line["score"] == score]
        if line.empty:
            continue
        x = line["N"].to_numpy() + (index - (len(names) - 1) / 2) * step
        ax.errorbar(
            x,
            line["mean"].to_numpy(),
            yerr=line["half"].to_numpy(),
            marker="o",
            ms=3.5,
            capsize=2,
            label=name,
            lw=2.2 if "DisDF" in name else 1.1,
        )
    ax.set_title(f"{DATASET_NAMES.get(dataset, dataset)}: {SCORES[score]}", fontsize=9)
    ax.set_xticks(Ns)
    ax.grid(alpha=0.3)


def _difference_panel(ax, differences: pd.DataFrame, dataset: str, Ns: list, step: float) -> None:
    """DisDF − gcF class vectors on one dataset, per score, paired by split, with its 95 % CI."""
    ax.axhline(0, color="0.4", lw=0.8)
    mine = differences[differences["dataset"] == dataset]
    for index, (score, (color, marker)) in enumerate(DIFFERENCE_STYLE.items()):
        line = mine[mine["score"] == score].sort_values("N")
        ax.errorbar(
            line["N"] + (index - 1) * step,
            line["mean"],
            yerr=line["ci"],
            color=color,
            marker=marker,
            ms=3.5,
            capsize=2,
            lw=1.1,
            label=f"DisDF − gcF: {SCORES[score]}",
        )
    ax.set_title(f"{DATASET_NAMES.get(dataset, dataset)}: DisDF − gcF class vectors", fontsize=9)
    ax.set_xticks(Ns)
    ax.grid(alpha=0.3)


def metric_figure(records: pd.DataFrame):
    """Per dataset (column) and score (row): the mean against N with its 95 % CI over splits, one line per
    representation, dodged along N; one y scale per row (a score). The last row: DisDF − gcF class
    vectors per score, paired by split, with its 95 % CI (the two cascades' curves above coincide: their
    difference is the point). Every panel titled, the legend below the panels."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    datasets = sorted(records["dataset"].unique())
    fig, axes = plt.subplots(
        len(SCORES) + 1,
        len(datasets),
        figsize=(3.4 * len(datasets), 11.5),
        squeeze=False,
        sharey="row",
        layout="constrained",
    )
    differences = gcf_differences(records)
    curves = score_curves(records)
    for column, dataset in enumerate(datasets):
        Ns = sorted(records[records["dataset"] == dataset]["N"].unique())
        step = 0.08 * (min(np.diff(Ns)) if len(Ns) > 1 else 10)
        for row, score in enumerate(SCORES):
            _score_panel(axes[row][column], curves, dataset, score, Ns, step)
        _difference_panel(axes[-1][column], differences, dataset, Ns, step)
    for row, label in enumerate(SCORES.values()):
        axes[row][0].set_ylabel(label)
    axes[-1][0].set_ylabel("DisDF − gcF (pp), paired by split")
    handles, labels = axes[0][0].get_legend_handles_labels()
    more, more_labels = axes[-1][0].get_legend_handles_labels()
    fig.legend(
        [*handles, *more],
        [*labels, *more_labels],
        loc="outside lower center",
        ncol=4,
        fontsize=8,
        frameon=False,
    )
    for ax in axes[-1]:
        ax.set_xlabel("training set size N")
    fig.suptitle(
        "Each representation as a metric, T = 100: means over splits with 95 % CIs "
        "(per cell, not adjusted for multiplicity)",
        fontsize=11,
    )
    return fig


def draw_figure(records: pd.DataFrame, path: Path) -> None:
    """:func:`metric_figure` into ``path`` (a PNG)."""
    import matplotlib.pyplot as plt

    fig = metric_figure(records)
    fig.savefig(path, dpi=110, format="png")
    plt.close(fig)


def compact_rows(records: pd.DataFrame) -> pd.DataFrame:
    """Per dataset and score: each representation's mean, and DisDF against gcF and against the best
    other representation (difference ± 95 % CI in points; ▲/▼ significant after Holm, else ·)."""
    tests = comparison_rows(records)
    mark = {f"DisDF {BETTER}": " ▲", f"DisDF {WORSE}": " ▼"}
    rows = []
    for (dataset, score), group in (
        records.groupby(["dataset", "method"])[list(SCORES)].mean().stack().groupby(level=[0, 2])
    ):
        label = SCORES[score]
        row = {"dataset": DATASET_NAMES.get(dataset, dataset), "score": label}
        for method, name in REPRESENTATIONS.items():
            row[name.replace(" class vectors", "")] = (
                f"{group.get((dataset, method, score), float('nan')):.3f}"
            )
        mine = tests[(tests["dataset"] == dataset) & (tests["score"] == label)]
        for position, (_, test) in enumerate(mine.iterrows()):
            name = "DisDF − gcF (pp)" if position == 0 else "DisDF − best other (pp)"
            suffix = "" if position == 0 else f" ({test['DisDF against']})"
            row[name] = f"{test['difference (pp)']}{mark.get(test['verdict'], '')}{suffix}"
        rows.append(row)
    order = {label: index for index, label in enumerate(SCORES.values())}
    return pd.DataFrame(rows).sort_values(
        ["dataset", "score"], key=lambda c: c.map(order) if c.name == "score" else c
    )


def metric_section(records: pd.DataFrame) -> list[str]:
    return [
        "## DisDF as a metric learner",
        "",
        "The paper's objective is a contrastive loss on distances between class vectors; here each "
        "representation is judged as a metric (`make metric`: T = 100, every N, "
        f"{records['repetition'].nunique()} repetitions on the headline's splits). 5-NN and 1-NN accuracy on "
        "the test examples, training points embedded with their out-of-fold vectors (cascades) or the "
        "fitted map (raw: standardised features; NCA: scikit-learn's NeighborhoodComponentsAnalysis, "
        "50 iterations), Euclidean for raw and NCA, Manhattan (the paper's d_1) for class vectors; pair "
        "AUC: every pair of test examples, same class against different class by distance. LMNN "
        "(metric-learn) is not in this run: it is not installed here. Means over splits; DisDF against "
        "gcF's class vectors and against the best other representation (by mean), paired by split, ± 95 % "
        "CI; ▲/▼: significant by Wilcoxon, Holm over the dataset's six tests. Each representation's CIs: "
        "`metric/scores.csv`; figure: `figures/metric.png`.",
        "",
        compact_rows(records).to_markdown(index=False, disable_numparse=True),
        "",
    ]


def render(context: ReportContext) -> Rendered | None:
    """The section and its figure; None without metric records."""
    records, _ = context.records("metric")
    if records.empty:
        return None
    return Rendered(
        "\n".join(metric_section(records)),
        figures={"figures/metric.png": partial(draw_figure, records)},
        files={"metric/scores.csv": score_rows(records).to_csv(index=False)},
    )


SECTION = Section("metric", "the records of experiment=metric", render)
