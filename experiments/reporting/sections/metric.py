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

import pandas as pd

from experiments.reporting.section import Rendered, ReportContext, Section
from experiments.reporting.statistics import holm, mean_ci, paired_wilcoxon
from experiments.reporting.tables import experiment_records

log = logging.getLogger(__name__)
REPRESENTATIONS = {
    "metric_raw": "raw (standardised)",
    "metric_nca": "NCA",
    "metric_gcforest": "gcF class vectors",
    "metric_disdf": "DisDF class vectors",
}
SCORES = {"accuracy": "5-NN accuracy", "knn1_accuracy": "1-NN accuracy", "pair_auc": "pair AUC"}
SPLIT = ["dataset", "N", "repetition"]
ALPHA = 0.05


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
            ("DisDF better" if s > 0 else "DisDF worse") if p < ALPHA else "no significant difference"
            for s, p in zip(frame["sign"], frame["p (Holm)"], strict=True)
        ]
        rows.append(frame.drop(columns=["p", "sign"]))
    result = pd.concat(rows, ignore_index=True)
    result["p (Holm)"] = result["p (Holm)"].map(lambda p: f"{p:.2g}")
    return result


def draw_figure(records: pd.DataFrame, path: Path) -> None:
    """Per dataset, each score's mean against N, one line per representation."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    datasets = sorted(records["dataset"].unique())
    fig, axes = plt.subplots(len(SCORES), len(datasets), figsize=(3.6 * len(datasets), 8), squeeze=False)
    for column, dataset in enumerate(datasets):
        part = records[records["dataset"] == dataset]
        for row, (score, label) in enumerate(SCORES.items()):
            ax = axes[row][column]
            for method, name in REPRESENTATIONS.items():
                means = part[part["method"] == method].groupby("N")[score].mean()
                ax.plot(
                    means.index, means.to_numpy(), marker="o", label=name, lw=2.5 if "DisDF" in name else 1.2
                )
            ax.set_title(f"{dataset}: {label}", fontsize=9)
            ax.set_xticks(sorted(part["N"].unique()))
            ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.supxlabel("training set size N (T = 100)")
    fig.tight_layout()
    fig.savefig(path, dpi=110, format="png")
    plt.close(fig)


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
        "(metric-learn) is not in this run: it is not installed here. ± are 95 % CIs over splits. "
        "Figure: `results/figures/metric.png`.",
        "",
        score_rows(records).to_markdown(index=False),
        "",
        "DisDF against gcF's class vectors and against the best other representation (by mean), "
        "paired by split; Wilcoxon, Holm over the dataset's six tests:",
        "",
        disdf_comparisons(records).to_markdown(index=False),
        "",
    ]


def render(context: ReportContext) -> Rendered | None:
    """The section and its figure; None without metric records."""
    records, _ = experiment_records("metric", root=context.root)
    if records.empty:
        return None
    return Rendered(
        "\n".join(metric_section(records)), figures={"figures/metric.png": partial(draw_figure, records)}
    )


SECTION = Section("metric", "the records of experiment=metric", render)
