"""How the reports write numbers, once: effects in percentage points."""

from __future__ import annotations


def pp_ci(mean: float, half: float) -> str:
    """An effect and its CI half-width in percentage points: "+1.2 ± 0.8"."""
    return f"{mean:+.1f} ± {half:.1f}"
