"""APPENDIX.md section "Tuned DisDF on the paper's datasets": DisDF with λ and τ chosen out of fold,
on the headline's first 30 splits of every cell, against gcF and DisDF with λ = τ = 1 of the same
splits, decided at the split (:mod:`experiments.analysis.tuned_headline`).

    python -m experiments.reporting.report --section tuned_headline     # after make headline-tuned
"""

from __future__ import annotations

import pandas as pd

from experiments.analysis.cells import DATASET_NAMES, PAPER_TABLES
from experiments.analysis.plan import BETTER, MARGIN_PP
from experiments.analysis.tuned_headline import decisions, split_differences, tuned_choices
from experiments.reporting.section import Rendered, ReportContext, Section

TUNED, FIXED = "disdf_tuned - gcforest", "disdf - gcforest"


def interval(row: pd.Series) -> str:
    return f"{row['mean']:+.2f} [{row['ci_low']:+.2f}, {row['ci_high']:+.2f}] {row['verdict']}"


def tuned_headline_section(headline: pd.DataFrame, tuned: pd.DataFrame, paper: pd.DataFrame) -> list[str]:
    decided = decisions(split_differences(headline, tuned), paper)
    wide = decided.pivot_table(index=["dataset", "N"], columns="contrast", values="paper", aggfunc="first")
    rows = []
    for (dataset, N), paper_gap in wide[TUNED].items():
        pick = decided[(decided.dataset == dataset) & (decided.N == N)].set_index("contrast")
        rows.append(
            {
                "dataset": DATASET_NAMES.get(dataset, dataset),
                "N": N,
                "splits": int(pick.loc[TUNED, "splits"]),
                "paper DisDF − gcF": f"{paper_gap:+.1f}",
                "DisDF tuned − gcF": interval(pick.loc[TUNED]),
                "DisDF (λ = τ = 1) − gcF": interval(pick.loc[FIXED]),
            }
        )
    tuned_rows = decided[decided.contrast == TUNED]
    claimed = tuned_rows[tuned_rows.paper > 0]
    beats = claimed.verdict.str.startswith(BETTER).sum()
    counts = tuned_rows.verdict.value_counts()
    choices = tuned_choices(tuned)
    top = ", ".join(
        f"λ = {lam:g}, τ = {tau:g} {100 * share:.0f} %" for (lam, tau), share in choices.head(3).items()
    )
    return [
        "## Tuned DisDF on the paper's datasets",
        "",
        "DisDF with λ and τ chosen per level by the out-of-fold accuracy over the estimator's grid (test "
        "data never involved; `make headline-tuned`, declared in `configs/experiment/headline_tuned.yaml` "
        "before its first record), on the headline's first 30 splits of every cell, beside gcF and DisDF "
        "with λ = τ = 1 of the same splits. Per N: the split's difference averaged over its four T "
        "(points), 95 % CI over splits; verdict by one-sided paired t-tests (Holm across the dataset's "
        f"four N) and TOST at ±{MARGIN_PP:g} point; the paper's difference averaged over T.",
        "",
        pd.DataFrame(rows).to_markdown(index=False, disable_numparse=True),
        "",
        f"Where the paper has DisDF above gcF ({len(claimed)} of {len(tuned_rows)} (dataset, N)), tuned "
        f"DisDF is significantly better in {beats}. Its verdicts over all: "
        + ", ".join(f"{verdict} {count}" for verdict, count in counts.items())
        + f". The grid points chosen most often (share of kept levels): {top}.",
    ]


def render(context: ReportContext) -> Rendered | None:
    """The section; None without the tuned headline's records."""
    tuned, _ = context.records("headline_tuned")
    if tuned.empty:
        return None
    headline, _ = context.records("paper")
    return Rendered("\n".join(tuned_headline_section(headline, tuned, pd.read_csv(PAPER_TABLES))))


SECTION = Section(
    "tuned_headline", "the records of experiment=headline_tuned beside the headline's (results/raw)", render
)
