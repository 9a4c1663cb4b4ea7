"""The tuned headline's decision at the split: T averaged within a split, Holm across N, TOST at ±1."""

import numpy as np
import pandas as pd
import pytest

from experiments.analysis.tuned_headline import decisions, split_differences, verdict


def records(method: str, shift: float, seed_offset: int = 0, reps: int = 30) -> pd.DataFrame:
    rng, noise_rng = np.random.default_rng(1), np.random.default_rng(len(method))
    rows = []
    for N in (50, 100):
        for repetition in range(reps):
            base = 0.8 + 0.05 * rng.standard_normal()
            for T in (100, 1000):
                noise = 0.003 * noise_rng.standard_normal() if method != "gcforest" else 0.0
                rows.append(
                    {"dataset": "ecoli", "N": N, "T": T, "repetition": repetition, "method": method,
                     "seed": 1000 * N + repetition + seed_offset, "accuracy": base + shift + noise}
                )  # fmt: skip
    return pd.DataFrame(rows)


def paper() -> pd.DataFrame:
    return pd.DataFrame(
        [{"dataset": "ecoli", "N": N, "T": T, "method": m, "accuracy": 0.8 + (0.03 if m == "disdf" else 0)}
         for N in (50, 100) for T in (100, 1000) for m in ("gcforest", "disdf")]
    )  # fmt: skip


def test_a_clear_gain_is_better_and_no_gain_is_equivalent():
    gcf = records("gcforest", 0.0)
    headline = pd.concat([gcf, records("disdf", 0.0)])
    decided = decisions(split_differences(headline, records("disdf_tuned", 0.03)), paper())
    tuned = decided[decided.contrast == "disdf_tuned - gcforest"]
    fixed = decided[decided.contrast == "disdf - gcforest"]
    assert (tuned.verdict == "better").all() and tuned["mean"].round(0).eq(3).all()
    assert (fixed.verdict == "equivalent").all()
    assert (decided.paper.round(6) == 3.0).all() and (decided.splits == 30).all()


def test_splits_with_other_seeds_are_refused():
    headline = pd.concat([records("gcforest", 0.0), records("disdf", 0.0)])
    with pytest.raises(ValueError, match="split seeds"):
        split_differences(headline, records("disdf_tuned", 0.0, seed_offset=7))


def test_the_verdicts_are_symmetric():
    assert verdict(True, False, False) == "better" and verdict(False, True, False) == "worse"
    assert verdict(True, False, True) == "better, within ±1" and verdict(False, False, True) == "equivalent"
    assert verdict(False, False, False) == "not decided"
