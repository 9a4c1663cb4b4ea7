"""Timing A/B comparisons decided by a declared margin: is a candidate's CPU not worse than a
baseline's (``scripts/bench/bench_protocol_parts_ab.py``)? PERFORMANCE.md's speed section renders the
verdict."""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.analysis.plan import ALPHA
from experiments.analysis.statistics import minimum_effect_p, one_sample_t


def parts_ab_verdict(runs: pd.DataFrame, alpha: float = ALPHA) -> dict:
    """Non-inferiority of the candidate's core-minutes: the pairs' ratios candidate / baseline, their
    geometric mean and its 1 - 2 alpha CI, and the one-sided p of H0 "the candidate is at least the
    declared margin slower" (a t-test of the log ratios)."""
    pairs = runs.pivot(index="pair", columns="version", values="core_minutes")
    log_ratios = np.log(pairs["candidate"] / pairs["baseline"]).to_numpy()
    margin = float(runs["margin"].iloc[0])
    result = one_sample_t(log_ratios, level=1 - 2 * alpha)
    p = minimum_effect_p(log_ratios, np.log1p(margin))
    return {
        "pairs": len(log_ratios),
        "ratio": float(np.exp(result["mean"])),
        "ci_low": float(np.exp(result["ci_low"])),
        "ci_high": float(np.exp(result["ci_high"])),
        "margin": margin,
        "p": p,
        "not_worse": bool(p < alpha),
    }
