"""REPORT.md section "Baselines": does the cascade beat a plain forest, or kNN, on the same splits?

    python -m experiments.reporting.sections.baselines     # after make reproduce and make baselines

The baselines (``experiment=baselines``) ran on the headline's splits: the same split seed per
(dataset, N, repetition), so each is paired with gcF and DisDF by (dataset, N, T, repetition).
Per dataset the best baseline is the one with the highest mean accuracy over the dataset's 16
cells (a choice that can only favour the baselines); gcF and DisDF are tested against it per
cell, paired Wilcoxon, Holm within the dataset, as in the paper-layout tables.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from experiments.analysis.cells import DATASET_NAMES, LABELS, paired_tests
from experiments.reporting.section import Rendered, ReportContext, Section

log = logging.getLogger(__name__)
BASELINES = {
    "level1": "level 1 alone",
    "random_forest": "RF (4T trees)",
    "extra_trees": "ET (4T trees)",
    "knn": "5-NN",
}
UNIT = ["dataset", "N", "T", "repetition"]


def best_baselines(baselines: pd.DataFrame) -> pd.Series:
    """Per dataset, the baseline with the highest mean accuracy over its cells."""
    means = baselines.groupby(["dataset", "method"])["accuracy"].mean()
    return means.groupby(level="dataset").idxmax().map(lambda key: key[1])


def against_baseline(cascade: pd.DataFrame, baseline: pd.DataFrame) -> pd.DataFrame:
    """Per cell: the cascade − baseline difference ``d`` (points) and whether the cascade is
    significantly ``better`` or ``worse`` (tables.paired_tests: paired Wilcoxon, Holm within each
    dataset)."""
    treatment, reference = cascade["method"].iloc[0], baseline["method"].iloc[0]
    tests = paired_tests(pd.concat([cascade, baseline]), treatment=treatment, baseline=reference)
    label = LABELS.get(treatment, treatment)
    return tests.assign(
        d=100 * tests["difference"],
        better=tests["verdict"] == f"{label} better",
        worse=tests["verdict"] == f"{label} worse",
    )


def baseline_rows(headline: pd.DataFrame, baselines: pd.DataFrame) -> pd.DataFrame:
    """Per dataset: every method's mean accuracy, the best baseline, and gcF's and DisDF's cells
    significantly better / worse than it."""
    best = best_baselines(baselines)
    means = pd.concat([headline, baselines]).groupby(["dataset", "method"])["accuracy"].mean()
    rows = []
    for dataset in sorted(best.index):
        row = {"dataset": DATASET_NAMES.get(dataset, dataset)}
        for method, label in {**LABELS, **BASELINES}.items():
            row[label] = round(float(means.get((dataset, method), np.nan)), 3)
        row["best baseline"] = BASELINES[best[dataset]]
        reference = baselines[(baselines["dataset"] == dataset) & (baselines["method"] == best[dataset])]
        for method, label in LABELS.items():
            tests = against_baseline(
                headline[(headline["dataset"] == dataset) & (headline["method"] == method)], reference
            )
            row[f"{label} − best (pp)"] = f"{tests['d'].mean():+.1f}"
            row[f"{label} better / worse (cells)"] = (
                f"{int(tests['better'].sum())} / {int(tests['worse'].sum())} of {len(tests)}"
            )
        rows.append(row)
    return pd.DataFrame(rows)


def level_one_agreement(headline: pd.DataFrame, baselines: pd.DataFrame) -> tuple[int, int]:
    """(units where gcF kept 1 level and the level-1 baseline has its accuracy, such units): the
    check that both runs grew the same level 1 on the same splits."""
    one = headline[(headline["method"] == "gcforest") & (headline["n_levels"] == 1)]
    both = one.merge(baselines[baselines["method"] == "level1"], on=UNIT, suffixes=("", "_l1"))
    return int((both["accuracy"] == both["accuracy_l1"]).sum()), len(both)


def baselines_section(headline: pd.DataFrame, baselines: pd.DataFrame) -> list[str]:
    equal, shared = level_one_agreement(headline, baselines)
    return [
        "## Baselines: the cascade against a plain forest and kNN",
        "",
        "Same splits as the headline (`make baselines`, every cell, "
        f"{baselines['repetition'].nunique()} repetitions): the cascade's level 1 alone, one random "
        "forest and one forest of extremely randomised trees with 4T trees each (one cascade level's trees, "
        '`max_features="sqrt"`, grown on all training examples by the fast engine), and 5-NN on '
        "standardised features. Mean accuracy over the dataset's 16 cells; the best baseline is the one "
        "with the highest mean (a choice that favours the baselines); cells where gcF or DisDF is "
        "significantly better / worse than it: paired Wilcoxon per cell, Holm within the dataset. Where "
        f"gcF kept one level, the level-1 baseline has its accuracy in {equal} of {shared} units.",
        "",
        baseline_rows(headline, baselines).to_markdown(index=False),
        "",
    ]


def render(context: ReportContext) -> Rendered | None:
    """The section; None without the headline's or the baselines' records."""
    headline, _ = context.records("paper")
    baselines, _ = context.records("baselines")
    if headline.empty or baselines.empty:
        return None
    return Rendered("\n".join(baselines_section(headline, baselines)))


SECTION = Section("baselines", "the records of experiment=paper and experiment=baselines", render)
