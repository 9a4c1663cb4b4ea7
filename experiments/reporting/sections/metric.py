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
from experiments.analysis.plan import ALPHA, BETTER, POINTS, WORSE
from experiments.analysis.statistics import holm, mean_ci, paired_wilcoxon
from experiments.reporting.section import Rendered, ReportContext, Section

log = logging.getLogger(__name__)
REPRESENTATIONS = {
    "metric_raw": "raw (standardised)",
    "metric_nca": "NCA",
    "metric_gcforest": "gcF class vectors",
    "metric_disdf": "DisDF class vectors",
}
SCORES = {"accuracy": "5-NN accuracy", "knn1_accuracy": "1-NN accuracy", "pair_auc": "pair AUC"}
SPLIT = ["dataset", "N", "repetition"]


def score_rows(records: pd.DataFrame) -> pd.DataFrame:
    """Per dataset and representation: each score's mean ± 95 % CI over splits."""
    rows = []
    for (dataset, method), group in records.groupby(["dataset", "method"]):
        row = {"dataset": dataset, "representation": REPRESENTATIONS.get(method, method)}
        for score, label in SCORES.items():
            mean, half = mean_ci(group[score].dropna().to_numpy())
            row[label] = f"{mean:.3f} ± {half:.3f}"
        rows.append(row)
    return pd.DataFrame(rows)


def disdf_comparisons(records: pd.DataFrame) -> pd.DataFrame:
    """Per dataset and score: DisDF − gcF and DisDF − the best other representation (by mean),
    in points, paired by split, with Holm-corrected Wilcoxon p-values over the dataset's tests."""
    rows = []
    for dataset, part in records.groupby("dataset"):
        tests = []
        for score, label in SCORES.items():
            wide = part.pivot_table(index=SPLIT, columns="method", values=score).dropna()
            others = wide.drop(columns="metric_disdf").mean().drop("metric_gcforest", errors="ignore")
            best = others.idxmax()
            for against in ("metric_gcforest", best):
                d = 100 * (wide["metric_disdf"] - wide[against])
                tests.append(
                    {
                        "dataset": dataset,
                        "score": label,
                        "DisDF against": REPRESENTATIONS[against],
                        "difference (pp)": f"{d.mean():+.1f} ± {mean_ci(d.to_numpy())[1]:.1f}",
                        "p": paired_wilcoxon(wide["metric_disdf"].to_numpy(), wide[against].to_numpy()),
                        "sign": d.mean(),
                    }
                )
        frame = pd.DataFrame(tests)
        frame["p (Holm)"] = holm(frame["p"].to_numpy())
        frame["verdict"] = [
            (f"DisDF {BETTER}" if s > 0 else f"DisDF {WORSE}") if p < ALPHA else "no significant difference"
            for s, p in zip(frame["sign"], frame["p (Holm)"], strict=True)
        ]
        rows.append(frame.drop(columns=["p", "sign"]))
    result = pd.concat(rows, ignore_index=True)
    result["p (Holm)"] = result["p (Holm)"].map(lambda p: f"{p:.2g}")
    return result


#: The difference row's line per score: colour and marker (apart from the representations' colours).
DIFFERENCE_STYLE = {
    "accuracy": ("black", "o"),
    "knn1_accuracy": ("tab:purple", "s"),
    "pair_auc": ("tab:olive", "^"),
}


def gcf_differences(records: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, N, score): DisDF − gcF class vectors in points, paired by split: ``n`` pairs, the
    ``mean`` and its 95 % CI half-width ``ci`` (not adjusted for multiplicity)."""
    rows = []
    for score in SCORES:
        wide = records.pivot_table(index=SPLIT, columns="method", values=score)
        d = (POINTS * (wide["metric_disdf"] - wide["metric_gcforest"])).dropna()
        for (dataset, N), values in d.groupby(level=["dataset", "N"]):
            mean, half = mean_ci(values.to_numpy())
            rows.append(
                {"dataset": dataset, "N": N, "score": score, "n": len(values), "mean": mean, "ci": half}
            )
    return pd.DataFrame(rows)


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
    names = list(REPRESENTATIONS.items())
    differences = gcf_differences(records)
    for column, dataset in enumerate(datasets):
        part = records[records["dataset"] == dataset]
        Ns = sorted(part["N"].unique())
        step = 0.08 * (min(np.diff(Ns)) if len(Ns) > 1 else 10)
        for row, (score, label) in enumerate(SCORES.items()):
            ax = axes[row][column]
            for index, (method, name) in enumerate(names):
                by_N = part[part["method"] == method].groupby("N")[score]
                stats_ = [mean_ci(values.to_numpy()) for _, values in by_N]
                if not stats_:
                    continue
                means, halves = zip(*stats_, strict=True)
                x = np.array(list(by_N.groups)) + (index - (len(names) - 1) / 2) * step
                ax.errorbar(
                    x,
                    means,
                    yerr=halves,
                    marker="o",
                    ms=3.5,
                    capsize=2,
                    label=name,
                    lw=2.2 if "DisDF" in name else 1.1,
                )
            ax.set_title(f"{DATASET_NAMES.get(dataset, dataset)}: {label}", fontsize=9)
            ax.set_xticks(Ns)
            ax.grid(alpha=0.3)
        ax = axes[-1][column]
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
    tests = disdf_comparisons(records)
    mark = {"DisDF better": " ▲", "DisDF worse": " ▼"}
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
