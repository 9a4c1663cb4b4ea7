"""How the reports write numbers, once: effects in percentage points, probabilities."""

from __future__ import annotations

import math


def pp_ci(mean: float, half: float) -> str:
    """An effect and its CI half-width in percentage points: "+1.2 ± 0.8"."""
    return f"{mean:+.1f} ± {half:.1f}"


def probability(value: float) -> str:
    """A probability (a P or a p-value): two decimals down to 0.01, then one significant digit (2e-03);
    "–" where there is none (NaN)."""
    if not math.isfinite(value):
        return "–"
    return f"{value:.2f}" if value >= 0.01 else f"{value:.0e}"
