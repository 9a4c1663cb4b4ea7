"""REPORT.md section "Beyond the paper's datasets": the benchmark's comparison across 43 KEEL tables,
by the rules declared before its records (:mod:`experiments.analysis.benchmark_plan`).

    python -m experiments.reporting.report --section benchmark     # after make benchmark
"""

from __future__ import annotations

from dataclasses import dataclass

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from experiments.analysis.benchmark import (
    Ranking,
    complete_repetitions,
    contrasts,
    critical_difference,
    dataset_accuracies,
    df21_against_gcforest,
    has_metric,
    per_dataset_differences,
    ranking,
    trait_correlations,
    with_df21,
)
from experiments.analysis.benchmark_plan import SECONDARY_METRIC
from experiments.analysis.cells import PAPER_TABLES
from experiments.analysis.plan import ALPHA, BETTER, DECISION_PROBABILITY, MARGIN_PP
from experiments.analysis.tuned_headline import decisions, split_differences
from experiments.reporting.section import Rendered, ReportContext, Section
from experiments.running.keel import DATASET_TABLE as TABLE
from experiments.running.keel import KEEL_TABLES

NAMES = {
    "gcforest": "gcF",
    "disdf": "DisDF",
    "disdf_tuned": "DisDF tuned",
    "random_forest": "RF (4T)",
    "extra_trees": "ET (4T)",
    "knn": "5-NN",
    "df21": "DF21",
}
DETAIL_TITLE = "Beyond the paper's datasets: ranks, traits and per-table differences"
CD_FIGURE = "figures/benchmark_ranks.png"
FOREST_FIGURE = "figures/benchmark_differences.png"


def draw_ranks(
    result: Ranking, n_tables: int, names: dict[str, str] | None = None, what: str = "KEEL tables"
):
    """Each method's mean rank, with the span of one critical difference to its right: a method whose
    rank lies inside another's span is not separated from it by Nemenyi's test (``names``: the methods'
    labels, NAMES by default; ``what``: the tables, in the title)."""
    labels = NAMES if names is None else names
    ranks = result.mean_ranks
    cd = critical_difference(len(ranks), n_tables)

    def draw(path) -> None:
        figure, axis = plt.subplots(figsize=(7.5, 3.0))
        y = np.arange(len(ranks))[::-1]
        axis.hlines(y, ranks.to_numpy(), ranks.to_numpy() + cd, color="0.8", lw=5, label=f"one CD ({cd:.2f})")
        axis.plot(ranks.to_numpy(), y, "o", color="tab:blue")
        axis.set_yticks(y, [labels[m] for m in ranks.index])
        axis.set_xlabel("mean rank over tables (1 = best)")
        axis.set_xlim(1, float(ranks.max()) + cd + 0.2)
        axis.legend(loc="upper right", fontsize=8)
        axis.set_title(f"{n_tables} {what}: methods within one CD of each other are not separated "
                       f"(Nemenyi, alpha {ALPHA:g});\nmean ranks, and so this picture, change with the set "
                       "of methods compared", fontsize=9)  # fmt: skip
        figure.tight_layout()
        figure.savefig(path, dpi=130)
        plt.close(figure)

    return draw


#: The differences plotted inside +-this many points; an interval beyond is clipped, its end an arrow.
X_LIMIT = 6.0


def draw_differences(frames: dict[str, pd.DataFrame], scheme: str = "holdout"):
    interval = "Dietterich's 5x2 t" if scheme == "5x2cv" else "over repetitions"

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
            axis.set_xlabel(f"difference (points); 95 % CI {interval}, unadjusted", fontsize=8)
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


@dataclass(frozen=True)
class Regime:
    """One regime of the benchmark: its experiment, how it is described, and its figures' names."""

    experiment: str
    title: str
    description: str
    scheme: str
    ranks_figure: str
    differences_figure: str

    @property
    def label(self) -> str:
        """ "regime (a)": the title's first words, as a sentence names it."""
        return self.title.split(",")[0].lower()


REGIMES = (
    Regime(
        "benchmark",
        "Regime (a), the paper's small samples",
        "N = 100 stratified, the rest (≤ 1,000) tested, T = 100, {repetitions} repetitions "
        "(`make benchmark`)",
        "holdout",
        CD_FIGURE,
        FOREST_FIGURE,
    ),
    Regime(
        "benchmark_cv",
        "Regime (b), the full data up to 1,000 rows",
        "5 × 2-fold CV on ≤ 1,000 rows per table, T = 100 (`make benchmark-cv`)",
        "5x2cv",
        "figures/benchmark_cv_ranks.png",
        "figures/benchmark_cv_differences.png",
    ),
)


def complete_tables(records: pd.DataFrame, regime: Regime) -> pd.DataFrame | None:
    """A regime's records to report, or None while it runs (no interim look: reported when every table
    is done). 5 x 2-fold CV: the records of the tables whose ten folds every method completed, once
    all 43 tables are; a holdout regime's records as they are (its tests use complete repetitions)."""
    if regime.scheme != "5x2cv":
        return records
    folds = complete_repetitions(records).groupby(level="dataset").size()
    complete = records[records["dataset"].isin(folds[folds == 10].index)]
    return complete if complete["dataset"].nunique() == len(KEEL_TABLES) else None


def regime_lines(
    regime: Regime, records: pd.DataFrame, traits: pd.DataFrame
) -> tuple[list[str], list[str], dict]:
    """A regime's lines in REPORT.md (contrasts, Friedman's test, the ranks figure), in APPENDIX.md (mean
    ranks, trait correlations, per-table differences) and its figures, from its complete records
    (:func:`complete_tables`)."""
    accuracies = dataset_accuracies(records)
    repetitions = records.groupby("dataset")["repetition"].nunique()
    result = ranking(accuracies)
    description = regime.description.format(repetitions=repetition_range(repetitions))
    cd = critical_difference(len(result.mean_ranks), len(accuracies))
    best = result.mean_ranks.index[0]
    main = [
        f"**{regime.title}**: {description}.",
        "",
        f"| contrast | mean (points) | Wilcoxon p (Holm) | P(worse) | P(within ±{MARGIN_PP:g}) | P(better) | "
        f"verdict (P > {DECISION_PROBABILITY:g}) |",
        "|:--|--:|--:|--:|--:|--:|:--|",
    ]
    for c in contrasts(accuracies):
        main.append(
            f"| {NAMES[c.treatment]} − {NAMES[c.baseline]} | {c.mean_pp:+.2f} | {c.holm_p:.3g} | "
            f"{c.p_worse:.3f} | {c.p_equivalent:.3f} | {c.p_better:.3f} | {c.verdict} |"
        )
    main += [
        "",
        f"Friedman χ² = {result.statistic:.1f}, p = {result.p_value:.2g}; {NAMES[best]} ranks first "
        f"({result.mean_ranks.iloc[0]:.2f}), critical difference {cd:.2f} (Nemenyi).",
        "",
        f"![Mean ranks]({regime.ranks_figure})",
        "",
    ]
    ranks = ", ".join(f"{NAMES[m]} {r:.2f}" for m, r in result.mean_ranks.items())
    correlations = trait_correlations(accuracies, traits)
    detail = [
        f"### {regime.title}",
        "",
        f"Mean ranks (1 = best): {ranks}. DisDF's gain over gcF against the tables' traits (Spearman, "
        "descriptive, uncorrected):",
        "",
        correlations.to_markdown(index=False, floatfmt=".3f"),
        "",
        f"![Per-table differences, {regime.title}]({regime.differences_figure})",
        "",
    ]
    if has_metric(records, SECONDARY_METRIC):
        # the secondary endpoint in APPENDIX.md only (moved there on 2026-11-28 to make room in the main
        # part's 2,000 words for the regression benchmark's paragraph; the numbers as before)
        more, behind = secondary_lines(records)
        detail += more + behind
    frames = {
        "DisDF − gcF": per_dataset_differences(records, "disdf", "gcforest", regime.scheme),
        "DisDF tuned − gcF": per_dataset_differences(records, "disdf_tuned", "gcforest", regime.scheme),
    }
    figures = {
        regime.ranks_figure: draw_ranks(result, len(accuracies)),
        regime.differences_figure: draw_differences(frames, regime.scheme),
    }
    return main, detail, figures


def secondary_lines(records: pd.DataFrame) -> tuple[list[str], list[str]]:
    """Balanced accuracy, the declared secondary endpoint, by the same tests: one line for REPORT.md,
    its contrasts and mean ranks for APPENDIX.md."""
    scores = dataset_accuracies(records, SECONDARY_METRIC)
    result = ranking(scores)
    cd = critical_difference(len(result.mean_ranks), len(scores))
    found = contrasts(scores)
    fixed = next(c for c in found if c.treatment == "disdf")
    best = result.mean_ranks.index[0]
    main = [
        f"Balanced accuracy (secondary, declared before computing it): DisDF − gcF {fixed.mean_pp:+.2f} "
        f"(Wilcoxon p = {fixed.holm_p:.2g}; P(±{MARGIN_PP:g}) = {fixed.p_equivalent:.2f}, {fixed.verdict}); "
        f"{NAMES[best]} ranks first ({result.mean_ranks.iloc[0]:.2f}, CD {cd:.2f}).",
        "",
    ]
    ranks = ", ".join(f"{NAMES[m]} {r:.2f}" for m, r in result.mean_ranks.items())
    detail = [
        f"Balanced accuracy (the secondary endpoint of `benchmark_plan.py`): Friedman χ² = "
        f"{result.statistic:.1f}, p = {result.p_value:.2g}; mean ranks {ranks}.",
        "",
        f"| contrast | mean (points) | Wilcoxon p (Holm) | P(worse) | P(within ±{MARGIN_PP:g}) | P(better) | "
        f"verdict (P > {DECISION_PROBABILITY:g}) |",
        "|:--|--:|--:|--:|--:|--:|:--|",
        *(
            f"| {NAMES[c.treatment]} − {NAMES[c.baseline]} | {c.mean_pp:+.2f} | {c.holm_p:.3g} | "
            f"{c.p_worse:.3f} | {c.p_equivalent:.3f} | {c.p_better:.3f} | {c.verdict} |"
            for c in found
        ),
        "",
    ]
    return main, detail


def df21_lines(records: pd.DataFrame, df21: pd.DataFrame) -> tuple[list[str], list[str]] | None:
    """DF21 beside a regime's six methods, on the tables where it completed every repetition; None until
    df21.csv has a row (ok or a status) for every table and repetition of the regime (no interim look)."""
    repetitions = int(records["repetition"].nunique())
    covered = df21.groupby("dataset")["repetition"].nunique().reindex(records["dataset"].unique())
    if not covered.eq(repetitions).all():
        return None
    joined, failed = with_df21(dataset_accuracies(records), df21, repetitions)
    if joined.empty:
        return [f"**DF21** failed on every table: {failed.iloc[0]}.", ""], []
    result = ranking(joined)
    gap, wilcoxon = df21_against_gcforest(joined)
    ranks = ", ".join(f"{NAMES[m]} {r:.2f}" for m, r in result.mean_ranks.items())
    status = "; ".join(f"{t.removeprefix('keel_')}: {s}" for t, s in failed.items())
    version = ", ".join(sorted(df21["library_version"].dropna().astype(str).unique()))
    return [
        f"**DF21** ({version}) on {len(joined)} tables: DF21 − gcF {gap:+.2f} points (Wilcoxon "
        f"p = {wilcoxon:.2g}), rank {result.mean_ranks['df21']:.2f} of {len(result.mean_ranks)}"
        + (f"; failed on: {status}." if status else "."),
        "",
    ], [
        f"**DF21 beside these methods** (outside the declared tests): mean ranks {ranks}; Friedman "
        f"p = {result.p_value:.2g}.",
        "",
    ]


def benchmark_section(
    regimes: dict[str, tuple[Regime, pd.DataFrame]],
    traits: pd.DataFrame,
    df21: dict[str, pd.DataFrame],
    tuned: str = "",
) -> tuple[list[str], list[str], dict]:
    """REPORT.md's lines, APPENDIX.md's lines and the figures of every regime run; ``df21``: DF21's rows
    (df21.csv) per regime's experiment, where they exist."""
    main = [
        "## Beyond the paper's datasets",
        "",
        "KEEL's 43 balanced tables; protocols and tests declared before the records; unit: the table; "
        f"Bayesian equivalence region ±{MARGIN_PP:g} point; DF21 added later.",
        "",
    ]
    detail = [f"## {DETAIL_TITLE}", ""]
    figures: dict = {}
    reported: set[str] = set()
    for name, (regime, all_records) in regimes.items():
        records = complete_tables(all_records, regime)
        if records is None:
            continue
        reported.add(name)
        more, behind, drawn = regime_lines(regime, records, traits)
        main += more
        detail += behind
        figures |= drawn
        found = df21_lines(records, df21[name]) if name in df21 else None
        if found is not None:
            reported.add(f"df21 {name}")
            main += found[0]
            detail += found[1]
    if tuned:
        main += [tuned, ""]
    missing = [regime.title for regime in REGIMES if regime.experiment not in reported]
    missing += [f"DF21 in {r.label}" for r in REGIMES if f"df21 {r.experiment}" not in reported]
    if missing:  # absent or still running: the same words, so a clean checkout renders the same section
        main += [f"Not complete yet (reported when every table is done): {'; '.join(missing)}.", ""]
    return main, detail, figures


def _inputs(context: ReportContext):
    """REPORT.md's and APPENDIX.md's lines and the figures, computed once for both sections."""
    return context.once("benchmark", lambda: _analyse(context))


def _analyse(context: ReportContext):
    regimes = {}
    for regime in REGIMES:
        records, _ = context.records(regime.experiment)
        if not records.empty:
            regimes[regime.experiment] = (regime, records)
    if not regimes or not TABLE.is_file():
        return None
    traits = pd.read_csv(TABLE).assign(dataset=lambda frame: "keel_" + frame["dataset"])
    files = {name: context.root / "results" / name / "df21.csv" for name in regimes}
    df21 = {name: pd.read_csv(file) for name, file in files.items() if file.is_file()}
    return benchmark_section(regimes, traits, df21, tuned_answer(context))


def tuned_answer(context: ReportContext) -> str:
    """The tuned headline's answer in one sentence, when its records exist."""
    tuned, _ = context.records("headline_tuned")
    if tuned.empty:
        return ""
    headline, _ = context.records("paper")
    decided = decisions(split_differences(headline, tuned), pd.read_csv(PAPER_TABLES))
    rows = decided[decided["contrast"] == "disdf_tuned - gcforest"]
    claimed = rows[rows["paper"] > 0]
    better = int(claimed["verdict"].str.startswith(BETTER).sum())
    counts = ", ".join(f"{count} {verdict}" for verdict, count in rows["verdict"].value_counts().items())
    return (
        f"**Tuned DisDF on the paper's datasets** ({int(rows['splits'].min())} splits per cell): better "
        f"than gcF at {better} of the {len(claimed)} (dataset, N) where the paper has DisDF ahead; "
        f"overall {counts}."
    )


def render(context: ReportContext) -> Rendered | None:
    """REPORT.md's section; None without the benchmark's records."""
    found = _inputs(context)
    return None if found is None else Rendered("\n".join(found[0]), figures=found[2])


def render_detail(context: ReportContext) -> Rendered | None:
    """APPENDIX.md's section; None without the benchmark's records."""
    found = _inputs(context)
    return None if found is None else Rendered("\n".join(found[1]))


READS = "the records of experiment=benchmark, benchmark_cv and headline_tuned, datasets.csv and df21.csv"
SECTION = Section("benchmark", READS, render)
DETAIL = Section("benchmark_detail", READS, render_detail)
