"""REPORT.md section "Honest DisDF": cross-fitted against same-example weights, on the same splits.

    python -m experiments.reporting.sections.weight_fitting     # after make reproduce and make ablation

Reads the headline (``experiment=paper``: gcF and DisDF with ``weight_fitting=cross_fit``) and the
ablation (``experiment=ablation_same_examples``: gcF and DisDF with the paper's leaking fitting) on
the ablation's cells. Both runs draw the same splits and grow the same trees, so their gcF records
must agree unit by unit: the section says in how many they do. Per dataset and variant it gives the
optimism of the out-of-fold score, the levels kept, the test accuracy, DisDF − gcF with a CI over
splits, and the cells where a paired Wilcoxon test (Holm within the dataset) finds DisDF better or
worse; and the paired effect of the leak on DisDF's test accuracy (cross_fit − same_examples).
"""

from __future__ import annotations

import logging

import pandas as pd

from experiments.analysis.cells import DATASET_NAMES, paired_tests
from experiments.analysis.statistics import split_mean_ci, with_optimism
from experiments.analysis.weight_fitting import UNIT, VARIANTS, gcf_agreement, leak_effects, variants
from experiments.reporting.formatting import pp_ci
from experiments.reporting.section import Rendered, ReportContext, Section

HEADLINE, ABLATION = "paper", "ablation_same_examples"
log = logging.getLogger(__name__)


def variant_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """Per dataset and variant: optimism, levels, accuracy, DisDF − gcF and its per-cell verdicts."""
    frame = with_optimism(frame)
    gcf = frame[frame["variant"] == "gcF"].set_index(UNIT)["accuracy"]
    rows = []
    frame["variant"] = pd.Categorical(frame["variant"], categories=VARIANTS, ordered=True)
    for (dataset, variant), group in frame.groupby(["dataset", "variant"], sort=True, observed=True):
        optimism = split_mean_ci(group, "optimism")
        row = {
            "dataset": DATASET_NAMES.get(dataset, dataset),
            "variant": variant,
            "optimism (pp)": pp_ci(*optimism),
            "levels kept": round(float(group["n_levels"].mean()), 2),
            "test accuracy": round(float(group["accuracy"].mean()), 3),
            "DisDF − gcF (pp)": "",
            "cells DisDF better / worse (Holm)": "",
        }
        if variant != "gcF":
            paired = group.set_index(UNIT)["accuracy"].sub(gcf).dropna().mul(100).reset_index(name="d")
            row["DisDF − gcF (pp)"] = pp_ci(*split_mean_ci(paired, "d"))
            baseline = frame[(frame["variant"] == "gcF") & (frame["dataset"] == dataset)]
            tests = paired_tests(
                pd.concat([group.assign(method="disdf"), baseline.assign(method="gcforest")])
            )
            better = int((tests["verdict"] == "DisDF better").sum())
            worse = int((tests["verdict"] == "DisDF worse").sum())
            row["cells DisDF better / worse (Holm)"] = f"{better} / {worse} of {len(tests)}"
        rows.append(row)
    return pd.DataFrame(rows)


def leak_effect_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """Per dataset: DisDF's test accuracy with cross_fit − with same_examples, paired by unit."""
    effects = leak_effects(frame)
    return pd.DataFrame(
        {
            "dataset": [DATASET_NAMES.get(d, d) for d in effects["dataset"]],
            "splits": effects["splits"],
            "cross_fit − same_examples (pp)": [
                pp_ci(m, h) for m, h in zip(effects["mean"], effects["half"], strict=True)
            ],
            "Wilcoxon p (splits)": effects["p"].map(lambda p: f"{p:.2g}"),
        }
    )


def weight_fitting_section(headline: pd.DataFrame, ablation: pd.DataFrame) -> list[str]:
    frame = variants(headline, ablation)
    equal, shared = gcf_agreement(headline, ablation)
    cells = frame[["N", "T"]].drop_duplicates()
    return [
        "## Honest DisDF: cross-fitted against same-example weights",
        "",
        "DisDF fits each fold model's tree weights, eq. (70)-(72), on the pairs of that model's held-out "
        "examples. With `weight_fitting=same_examples` (the paper's code) those same examples' out-of-fold "
        "vectors use the weights, so their labels leak into the score that chooses the depth and into the "
        "next level's training vectors. `cross_fit` (the headline) weighs each example with weights fitted "
        "on the other parts of its held-out set. Same splits and trees in both runs: gcF agrees in "
        f"{equal} of {shared} shared units. Cells: N ∈ {sorted(cells['N'].unique().tolist())}, "
        f"T ∈ {sorted(cells['T'].unique().tolist())}, {frame['repetition'].nunique()} repetitions "
        "(`make ablation`). Optimism = out-of-fold score of the kept level − test accuracy; ± are 95 % CIs "
        "over splits (the T of a split averaged first). Verdicts: paired Wilcoxon per cell, Holm within "
        "the dataset.",
        "",
        variant_rows(frame).to_markdown(index=False),
        "",
        "The leak's effect on DisDF's test accuracy (paired by unit):",
        "",
        leak_effect_rows(frame).to_markdown(index=False),
        "",
    ]


def render(context: ReportContext) -> Rendered | None:
    """The section; None without the headline's or the ablation's records."""
    headline, _ = context.records(HEADLINE)
    ablation, _ = context.records(ABLATION)
    if headline.empty or ablation.empty:
        return None
    return Rendered("\n".join(weight_fitting_section(headline, ablation)))


SECTION = Section("weight_fitting", f"the records of experiment={HEADLINE} and experiment={ABLATION}", render)
