"""Honest DisDF, analysed: the headline's cross-fitted weights against the ablation's same-example
weights (``experiment=ablation_same_examples``) on the units both ran, the check that their gcF
records agree (same splits, same trees), and the leak's paired effect on DisDF's test accuracy.
``experiments.reporting.sections.weight_fitting`` renders them."""

from __future__ import annotations

import pandas as pd

from experiments.analysis.statistics import paired_wilcoxon, split_mean_ci

VARIANTS = ("gcF", "DisDF cross_fit", "DisDF same_examples")


UNIT = ["dataset", "N", "T", "repetition"]


def variants(headline: pd.DataFrame, ablation: pd.DataFrame) -> pd.DataFrame:
    """One frame with a ``variant`` column (gcF, DisDF cross_fit, DisDF same_examples) on the units
    both runs have: the ablation's cells, each split run by both."""
    cells = ablation[["dataset", "N", "T"]].drop_duplicates()
    headline = headline.merge(cells, on=["dataset", "N", "T"])
    shared = headline[UNIT].drop_duplicates().merge(ablation[UNIT].drop_duplicates())
    headline, ablation = headline.merge(shared), ablation.merge(shared)
    name = {"gcforest": "gcF", "disdf": "DisDF cross_fit"}
    return pd.concat(
        [
            headline.assign(variant=headline["method"].map(name)),
            ablation[ablation["method"] == "disdf"].assign(variant="DisDF same_examples"),
        ],
        ignore_index=True,
    )


def gcf_agreement(headline: pd.DataFrame, ablation: pd.DataFrame) -> tuple[int, int]:
    """(units where both runs' gcF accuracy and levels are equal, units both ran): the check that
    the two runs share their splits and trees, so that only DisDF's weight fitting differs."""
    both = headline[headline["method"] == "gcforest"].merge(
        ablation[ablation["method"] == "gcforest"], on=UNIT, suffixes=("_h", "_a")
    )
    equal = (both["accuracy_h"] == both["accuracy_a"]) & (both["n_levels_h"] == both["n_levels_a"])
    return int(equal.sum()), len(both)


def leak_effects(frame: pd.DataFrame) -> pd.DataFrame:
    """Per dataset: DisDF's test accuracy with cross_fit − with same_examples in points, paired by unit:
    ``splits``, the mean over splits with its 95 % CI ``half``, and Wilcoxon's ``p`` over the splits."""
    wide = frame[frame["variant"] != "gcF"].pivot_table(index=UNIT, columns="variant", values="accuracy")
    wide = wide.dropna().reset_index()
    rows = []
    wide["d"] = 100 * (wide["DisDF cross_fit"] - wide["DisDF same_examples"])
    for dataset, group in wide.groupby("dataset"):
        per_split = group.groupby(["N", "repetition"])["d"].mean().to_numpy()
        mean, half = split_mean_ci(group, "d")
        p = paired_wilcoxon(per_split, 0 * per_split)
        rows.append({"dataset": dataset, "splits": len(per_split), "mean": mean, "half": half, "p": p})
    return pd.DataFrame(rows)
