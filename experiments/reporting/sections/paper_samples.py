"""The paper's values as samples of ours (:mod:`experiments.analysis.paper_as_samples`): REPORT.md's
compact section "What the paper's tables can tell" (n̂ per dataset and the predictive check in one
table) and APPENDIX.md's full one (every P, the check with each T its own splits, the scope of our
intervals).

    python -m experiments.reporting.report --section paper_samples --section paper_samples_detail
"""

from __future__ import annotations

import pandas as pd

from experiments.analysis.cells import DATASET_NAMES, PAPER_TABLES
from experiments.analysis.paper_as_samples import PaperSampleCheck, paper_sample_check
from experiments.reporting.formatting import probability
from experiments.reporting.paper_samples_text import paper_as_samples_section
from experiments.reporting.section import Rendered, ReportContext, Section
from experiments.reporting.sections.audit import GRID, mechanism_records

DETAIL_TITLE = "The paper's values as samples of ours"
FIXED, CHOSEN = "λ = τ = 1", "λ best per split"


def compact_lines(shared: PaperSampleCheck) -> list[str]:
    """One table: n̂ per dataset and the joint P of the paper's table at n = 1 and n̂, λ fixed or chosen."""
    estimates, test, repetitions, check = shared.estimates, shared.test, shared.repetitions, shared.check
    rows = []
    for estimate in estimates.itertuples(index=False):
        mine = check[check["dataset"] == estimate.dataset]
        first = mine.iloc[0]

        def joint(selection: str, mine: pd.DataFrame = mine) -> str:
            found = mine[mine["selection"] == selection].sort_values("n")
            return " / ".join(probability(p) for p in found["p_joint"])

        rows.append(
            {
                "dataset": DATASET_NAMES.get(estimate.dataset, estimate.dataset),
                "n̂ [95 % CI]": f"{estimate.n_hat:.1f} [{estimate.ci_low:.1f}, {estimate.ci_high:.1f}]"
                + (" (< 1)" if estimate.below_one else ""),
                "n drawn": " / ".join(str(n) for n in repetitions[estimate.dataset]),
                "paper: mean; cells DisDF > gcF": f"{first['paper_mean']:+.2f}; "
                f"{first['paper_count']}/{first['cells']}",
                "P, λ = τ = 1": joint(FIXED),
                "P, λ chosen on test": joint(CHOSEN),
            }
        )
    pooled = "rejected: no pooled n̂" if test["pooled"] is None else "not rejected"
    return [
        "## What the paper's tables can tell",
        "",
        "A paper value is a few splits: its spread across T gives n̂, the splits a paper cell behaves like "
        f"(one n for all datasets: {pooled}, χ²({test['groups'] - 1}) = {test['statistic']:.1f}, "
        f"p = {test['p']:.2g}). P: the chance that means of n of our splits per cell show the paper's mean "
        "DisDF − gcF and count of cells with DisDF ahead, λ = τ = 1 or chosen on test data as the paper "
        "did (MNIST: assumed; per split, an upper bound).",
        "",
        pd.DataFrame(rows).to_markdown(index=False, disable_numparse=True),
        "",
    ]


def _inputs(context: ReportContext) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame | None] | None:
    headline, _ = context.records("paper")
    if headline.empty:
        return None
    grid = mechanism_records(GRID, context)
    return headline, pd.read_csv(PAPER_TABLES), None if grid.empty else grid


def shared_check(context: ReportContext) -> PaperSampleCheck | None:
    """:func:`~experiments.analysis.paper_as_samples.paper_sample_check` of the headline and the audit's
    grid, once per build for its three readers (the verdict, this section, APPENDIX.md's); None without
    the headline's records."""
    found = _inputs(context)
    return None if found is None else context.once("paper_sample_check", lambda: paper_sample_check(*found))


def render(context: ReportContext) -> Rendered | None:
    """REPORT.md's compact section; None without the headline's records."""
    shared = shared_check(context)
    return None if shared is None else Rendered("\n".join(compact_lines(shared)))


def render_detail(context: ReportContext) -> Rendered | None:
    """APPENDIX.md's full section; None without the headline's records."""
    found = _inputs(context)
    if found is None:
        return None
    shared = shared_check(context)
    assert shared is not None  # the same records were found
    lines = paper_as_samples_section(found[0], found[1], shared)
    return Rendered("\n".join([f"## {DETAIL_TITLE}", *lines[1:]]))


SECTION = Section("paper_samples", "the records of experiment=paper and of the audit's λ/τ grid", render)
DETAIL = Section(
    "paper_samples_detail", "the records of experiment=paper and of the audit's λ/τ grid", render_detail
)
