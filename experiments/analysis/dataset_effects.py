"""DisDF − gcF per dataset of the paper, decided: the pooled difference over the dataset's 16 cells with
its (1 − 2α) interval, the paper's own, the TOST and minimum-effect readings at the plan's margin, and
the cells' paired tests; and the difference under an audit mechanism at the audit's T. REPORT.md's
verdict renders them (``experiments.reporting.sections.verdict``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.analysis.cells import paired_tests
from experiments.analysis.claim_qualifiers import difference_at_audit_t
from experiments.analysis.paper_claims import (
    cells_of,
    contrast,
    paper_contrast,
    paper_differences,
    split_differences,
)
from experiments.analysis.plan import ALPHA, BETTER, INTERVAL_LEVEL, WORSE
from experiments.analysis.statistics import contrast_below_p, one_sample_t


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
                "equivalent": result["p_margin"]["tost"] < ALPHA,
                "above": result["p_margin"]["above_plus"] < ALPHA,
                "below": result["p_margin"]["below_minus"] < ALPHA,
                # one-sided at α each way, as every decision: the (1 − 2α) interval excludes 0
                "significant": bool(result["ci_low"] > 0 or result["ci_high"] < 0),
                "below_paper": bool(contrast_below_p(result, theirs) < ALPHA)
                if np.isfinite(theirs)
                else False,
                "better": int((mine["verdict"] == f"DisDF {BETTER}").sum()),
                "worse": int((mine["verdict"] == f"DisDF {WORSE}").sum()),
                "cells": len(mine),
            }
        )
    return pd.DataFrame(rows)


def change_under(mechanism: pd.DataFrame, dataset: str) -> dict:
    """DisDF − gcF under an audit mechanism at the audit's T on ``dataset``: the mean over splits and
    its (1 − 2α) interval (``mean``, ``ci_low``, ``ci_high``)."""
    under = difference_at_audit_t(mechanism[mechanism["dataset"] == dataset])
    return one_sample_t(under.to_numpy(), INTERVAL_LEVEL)
