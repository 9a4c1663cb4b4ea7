"""REPORT.md's opening: the verdict (a conclusion of at most 200 words), the effect-size table and the
summary figure, a forest plot of every cell's DisDF − gcF with the paper's values.

    python -m experiments.reporting.report --section verdict     # after make reproduce, audit, baselines

The effect of a dataset is DisDF − gcF in points averaged over its 16 cells: per split the mean over
the T (they share the split), then over the independent N
(:func:`experiments.analysis.paper_claims.contrast`). Its equivalence verdict is a TOST at
:data:`EQUIVALENCE_MARGIN`, declared in :mod:`experiments.analysis.paper_claims` on 2026-11-22, after
the first headline records had been read (the claims section dates it). The conclusion and the table
also go to ``report/summary.md``, which :mod:`experiments.reporting.report` copies into README.md's
generated block.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.analysis.cells import DATASET_NAMES, PAPER_TABLES, paired_tests
from experiments.analysis.claim_qualifiers import difference_at_audit_t
from experiments.analysis.paper_claims import (
    ALPHA,
    CONFIRMED,
    EQUIVALENCE_MARGIN,
    cells_of,
    contrast,
    counts_text,
    is_method_sentence,
    paper_contrast,
    paper_differences,
    split_differences,
    verdict_counts,
)
from experiments.analysis.paper_statistics import repetitions_consistent, sign_pattern, spread_across_T
from experiments.analysis.statistics import contrast_below_p, contrast_equivalent, mean_ci, one_sample_t
from experiments.reporting.section import Rendered, ReportContext, Section
from experiments.reporting.sections.audit import mechanism_records
from experiments.reporting.sections.baselines import against_baseline
from experiments.reporting.sections.claims import decisions_of

FIGURE = "figures/difference_forest.png"
SUMMARY = "report/summary.md"
#: The most words the conclusion may have.
MAX_WORDS = 200


def effect_rows(records: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """Per dataset: the pooled DisDF − gcF with its CI, the paper's, the TOST and minimum-effect verdicts."""
    differences, paper_diff = split_differences(records), paper_differences(paper)
    tests = paired_tests(records)
    rows = []
    for dataset in sorted(differences.index.get_level_values(0).unique()):
        table = differences.loc[dataset]
        cells = cells_of(table, None, None)
        weights = {cell: 1.0 / len(cells) for cell in cells}
        result = contrast(table, weights)
        theirs = paper_contrast(paper_diff.loc[dataset], weights) if dataset in paper_diff.index else np.nan
        mine = tests[tests["dataset"] == dataset]
        rows.append(
            {
                "dataset": dataset,
                "mean": result["mean"],
                "ci_low": result["ci_low"],
                "ci_high": result["ci_high"],
                "paper": theirs,
                "equivalent": contrast_equivalent(result, EQUIVALENCE_MARGIN, ALPHA),
                "significant": result["p"] < ALPHA,
                "below_paper": bool(contrast_below_p(result, theirs) < ALPHA)
                if np.isfinite(theirs)
                else False,
                "better": int((mine["verdict"] == "DisDF better").sum()),
                "worse": int((mine["verdict"] == "DisDF worse").sum()),
                "cells": len(mine),
            }
        )
    return pd.DataFrame(rows)


def _reading(row) -> str:
    if row.equivalent:
        return f"equivalent to 0 (TOST ±{EQUIVALENCE_MARGIN:g})"
    side = "DisDF better" if row.mean > 0 else "DisDF worse"
    return f"{side}, not equivalent" if row.significant else "not decided"


def effect_table(rows: pd.DataFrame) -> str:
    """The effect-size table in Markdown."""
    table = pd.DataFrame(
        {
            "dataset": [DATASET_NAMES.get(d, d) for d in rows["dataset"]],
            "DisDF − gcF (pp) [95% CI]": [
                f"{r.mean:+.2f} [{r.ci_low:+.2f}, {r.ci_high:+.2f}]" for r in rows.itertuples()
            ],
            "paper (pp)": [f"{p:+.2f}" for p in rows["paper"]],
            f"verdict at ±{EQUIVALENCE_MARGIN:g} pp": [_reading(r) for r in rows.itertuples()],
            "smaller than the paper's": ["yes" if b else "no" for b in rows["below_paper"]],
            "cells better / worse": [f"{r.better} / {r.worse} of {r.cells}" for r in rows.itertuples()],
        }
    )
    return table.to_markdown(index=False, disable_numparse=True)


def _names(datasets) -> str:
    names = [DATASET_NAMES.get(d, d) for d in datasets]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _change(headline: pd.DataFrame, mechanism: pd.DataFrame, dataset: str) -> str:
    """DisDF − gcF under a mechanism at T = 100 and its change against ours (the claim qualifiers')."""
    ours = difference_at_audit_t(headline[headline["dataset"] == dataset])
    under = difference_at_audit_t(mechanism[mechanism["dataset"] == dataset])
    mine, base = under.align(ours, join="inner")
    change = one_sample_t((mine - base).to_numpy())
    interval = f"[{change['ci_low']:+.2f}, {change['ci_high']:+.2f}]"
    return f"{mine.mean():+.2f} pp, a change of {change['mean']:+.2f} {interval}"


def conclusion(facts: dict) -> str:
    """The verdict paragraph from computed facts (see ``gather_facts``); at most MAX_WORDS words."""
    rows = facts["effects"]
    same = rows[rows["equivalent"]]
    other = rows[~rows["equivalent"]]
    parts = [
        "**DisDF does not improve on gcForest by an amount a user would notice.** Over each dataset's "
        f"16 cells ({facts['repetitions']} honest splits each), DisDF − gcF is equivalent to zero within "
        f"±{EQUIVALENCE_MARGIN:g} point on {_names(same['dataset'])}"
        if len(same)
        else "**DisDF's advantage over gcForest is not settled.**"
    ]
    for r in other.itertuples():
        parts.append(
            f"; on {DATASET_NAMES.get(r.dataset, r.dataset)} it is "
            f"{r.mean:+.2f} [{r.ci_low:+.2f}, {r.ci_high:+.2f}] "
            f"points against the paper's {r.paper:+.1f}"
        )
        if r.dataset in facts["mechanisms"]:
            parts.append(f" ({facts['mechanisms'][r.dataset]})")
    parts.append(". ")
    parts.append(
        f"The paper's differences (up to {facts['paper_max']:+.0f} points) are not reproduced: its values "
        "move "
        f"across T as single splits of ours do (about {facts['n_hat']} repetitions per cell, not 100, "
        "unless its runs varied between T), it chose λ on test data, and its DisDF beats gcF in "
        f"{facts['paper_signs']} of cells where our single splits do in {facts['our_signs']}. "
        f"Of its section-6 sentences: {facts['claims']}. "
        "**Take from it:** expect gcForest's accuracy from DisDF; on these small samples a plain forest of "
        f"extremely randomised trees was more accurate than both cascades in {facts['baselines']}."
    )
    return "".join(parts)


def gather_facts(context: ReportContext, headline: pd.DataFrame, paper: pd.DataFrame) -> dict:
    """Every number the conclusion states, from the records (the audit's and baselines' when present)."""
    effects = effect_rows(headline, paper)
    mechanisms = {}
    for dataset in effects[~effects["equivalent"]]["dataset"]:
        said = []
        for name, words in (
            ("refit", "the paper's base code's refit test vectors"),
            ("subject_groups", "subject-disjoint splits"),
        ):
            records = mechanism_records(name, context)
            if not records.empty and dataset in set(records["dataset"]):
                said.append(f"with {words} {_change(headline, records, dataset)}")
        if said:
            mechanisms[dataset] = "at T = 100: " + "; ".join(said)
    pooled = repetitions_consistent(spread_across_T(headline, paper)).set_index("dataset").loc["all"]
    signs = sign_pattern(headline, paper)
    paper_pct = signs["paper: DisDF > gcF"].str.rstrip("%").astype(float)
    our_pct = signs["our splits: DisDF > gcF"].str.rstrip("%").astype(float)
    decisions = decisions_of(context, headline, paper)
    methods = [d for d in decisions if is_method_sentence(d.sentence)]
    return {
        "effects": effects,
        "mechanisms": mechanisms,
        "repetitions": int(headline.groupby(["dataset", "N", "T"])["repetition"].nunique().min()),
        "paper_max": float(paper_differences(paper).max().max()),
        "n_hat": f"{pooled['n_hat']:.1f} [{pooled['ci_low']:.1f}, {pooled['ci_high']:.1f}]",
        "paper_signs": f"{paper_pct.min():.0f}–{paper_pct.max():.0f} %",
        "our_signs": f"{our_pct.min():.0f}–{our_pct.max():.0f} %",
        "claims": f"{counts_text(verdict_counts(decisions))} of {len(decisions)} (of the {len(methods)} "
        f"on DisDF against gcF, {verdict_counts(methods)[CONFIRMED]} confirmed)",
        "baselines": baseline_phrase(context, headline),
    }


def baseline_phrase(context: ReportContext, headline: pd.DataFrame) -> str:
    """Where extra trees beat both cascades in every cell (Holm), with the per-cell range of the gap."""
    baselines, _ = context.records("baselines")
    if baselines.empty:
        return "our baseline runs (`make baselines`)"
    extra = baselines[baselines["method"] == "extra_trees"]
    won, gaps = [], []
    for dataset in sorted(set(extra["dataset"])):
        tests = [
            against_baseline(
                headline[(headline["dataset"] == dataset) & (headline["method"] == m)],
                extra[extra["dataset"] == dataset],
            )
            for m in ("gcforest", "disdf")
        ]
        if all(t["worse"].all() for t in tests):
            won.append(dataset)
            gaps += [-d for t in tests for d in t["d"]]
    if not won:
        return "no dataset's every cell"
    return f"every {_names(won)} cell (by {min(gaps):.1f}–{max(gaps):.1f} points)"


def draw_forest_plot(records: pd.DataFrame, paper: pd.DataFrame, effects: pd.DataFrame, path: Path) -> None:
    """Per dataset a panel: each cell's DisDF − gcF with its 95 % CI (ours) and the paper's value, the
    dataset's pooled effect at the bottom, the ±margin band shaded; one x scale for every panel."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    differences, paper_diff = split_differences(records), paper_differences(paper)
    datasets = list(effects["dataset"])
    figure, axes = plt.subplots(
        1,
        len(datasets),
        figsize=(2.6 * len(datasets) + 1.2, 6.2),
        sharex=True,
        sharey=True,
        squeeze=False,
        layout="constrained",
    )
    for ax, dataset in zip(axes[0], datasets, strict=True):
        table = differences.loc[dataset]
        cells = cells_of(table, None, None)
        y = np.arange(len(cells) + 1)[::-1]
        means, halves = zip(*(mean_ci(table.loc[N][T].dropna().to_numpy()) for N, T in cells), strict=True)
        ax.axvspan(
            -EQUIVALENCE_MARGIN,
            EQUIVALENCE_MARGIN,
            color="0.9",
            zorder=0,
            label=f"±{EQUIVALENCE_MARGIN:g} pp",
        )
        ax.axvline(0, color="0.4", lw=0.8)
        ax.errorbar(
            means, y[1:], xerr=halves, fmt="o", color="tab:blue", ms=3.5, capsize=2, label="ours, 95% CI"
        )
        theirs = [
            paper_diff.loc[(dataset, N), T] if dataset in paper_diff.index else np.nan for N, T in cells
        ]
        ax.plot(theirs, y[1:], "x", color="tab:red", ms=6, mew=1.5, label="paper")
        pooled = effects[effects["dataset"] == dataset].iloc[0]
        ax.errorbar(
            [pooled["mean"]],
            [y[0]],
            xerr=[[pooled["mean"] - pooled["ci_low"]], [pooled["ci_high"] - pooled["mean"]]],
            fmt="D",
            color="black",
            ms=5,
            capsize=3,
            label="ours, all 16 cells",
        )
        ax.plot([pooled["paper"]], [y[0]], "x", color="tab:red", ms=8, mew=2)
        ax.set_yticks(y, ["all cells", *(f"N={N}, T={T}" for N, T in cells)], fontsize=7)
        ax.set_title(DATASET_NAMES.get(dataset, dataset))
        ax.set_xlabel("DisDF − gcF test accuracy (pp)")
        ax.grid(alpha=0.3, axis="x")
    handles, labels = axes[0][0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="outside lower center", ncol=4, fontsize=8, frameon=False)
    figure.suptitle("DisDF − gcF per cell: ours (mean over splits, 95% CI) and the paper's")
    figure.savefig(path, dpi=120, format="png")
    plt.close(figure)


def render(context: ReportContext) -> Rendered | None:
    """The verdict, the effect-size table and the forest plot; None without headline records."""
    headline, _ = context.records("paper")
    if headline.empty:
        return None
    paper = pd.read_csv(PAPER_TABLES)
    facts = gather_facts(context, headline, paper)
    text = conclusion(facts)
    table = effect_table(facts["effects"])
    summary = "\n".join([text, "", table, ""])
    markdown = "\n".join(
        [
            "## Verdict",
            "",
            summary,
            "Per dataset: DisDF − gcF averaged over the 16 cells (per split over T, then over the "
            "independent N), "
            f"with its 95 % CI; the paper's same average; equivalence by TOST at ±{EQUIVALENCE_MARGIN:g} pp "
            "(the margin declared in `experiments/analysis/paper_claims.py` after the first records were "
            "read: see the claims' dates); "
            "'smaller than the paper's': a minimum-effect t-test at α = 0.05; cells: paired Wilcoxon, Holm.",
            "",
            f"![DisDF − gcF per cell, ours and the paper's]({FIGURE})",
            "",
        ]
    )
    return Rendered(
        markdown,
        figures={FIGURE: partial(draw_forest_plot, headline, paper, facts["effects"])},
        files={SUMMARY: summary},
    )


SECTION = Section(
    "verdict", "the records of experiment=paper (and the audit's and baselines' when present)", render
)
