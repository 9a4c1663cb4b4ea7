"""The paper's values as samples of ours, as the reports print them (the analysis:
:mod:`experiments.analysis.paper_as_samples`): n̂ per dataset and the pooling test, the predictive
check's table, and the two intervals of each dataset's effect."""

from __future__ import annotations

import pandas as pd

from experiments.analysis.cells import DATASET_NAMES
from experiments.analysis.paper_as_samples import (
    GRID_T,
    SELECTIONS,
    PaperSampleCheck,
    predictive_check,
    scope_intervals,
)
from experiments.analysis.plan import ALPHA, INTERVAL_LEVEL
from experiments.reporting.formatting import probability


def _name(dataset: str) -> str:
    return DATASET_NAMES.get(dataset, dataset)


def _n_interval(estimate: dict | pd.Series) -> str:
    return f"{estimate['n_hat']:.1f} [{estimate['ci_low']:.1f}, {estimate['ci_high']:.1f}]"


def _interval(low: float, high: float) -> str:
    return f"[{low:+.2f}, {high:+.2f}]"


def repetitions_lines(estimates: pd.DataFrame, test: dict, alpha: float = ALPHA) -> list[str]:
    """Item 2's table (n̂ per dataset) and its sentence on pooling."""
    table = pd.DataFrame(
        {
            "dataset": [_name(d) for d in estimates["dataset"]],
            "n̂ [95% CI], methods averaged": [_n_interval(r) for _, r in estimates.iterrows()],
            "n drawn below": [str(int(n)) for n in estimates["n_check"]],
            "note": ["n̂ < 1: impossible under the model" if b else "" for b in estimates["below_one"]],
        }
    )
    if test["pooled"] is not None:
        pooled = f"it does not reject, and the pooled n̂ = {_n_interval(test['pooled'])}"
    else:
        pooled = f"it rejects at α = {alpha:g}, so no pooled n̂ is given"
    return [
        *table.to_markdown(index=False, disable_numparse=True).splitlines(),
        "",
        f"One n for every dataset? Likelihood-ratio test: χ²({test['groups'] - 1}) = "
        f"{test['statistic']:.1f}, p = {test['p']:.2g}; {pooled}.",
    ]


def predictive_lines(check: pd.DataFrame) -> list[str]:
    """Item 1's table: one row per (dataset, n), the three P under each selection."""
    rows = []
    for (dataset, n), group in check.groupby(["dataset", "n"], sort=False):
        first = group.iloc[0]
        row = {
            "dataset": _name(dataset),
            "n": str(int(n)),
            "paper: mean (pp); cells DisDF > gcF": (
                f"{first['paper_mean']:+.2f}; {first['paper_count']}/{first['cells']}"
            ),
        }
        for selection in SELECTIONS:
            found = group[group["selection"] == selection].iloc[0]
            row[f"{selection}: P mean / cells / joint"] = " / ".join(
                probability(found[c]) for c in ("p_mean", "p_count", "p_joint")
            )
        rows.append(row)
    return pd.DataFrame(rows).to_markdown(index=False, disable_numparse=True).splitlines()


def _largest_joint(check: pd.DataFrame) -> str:
    """The largest joint P of a check, where it is."""
    row = check.loc[check["p_joint"].idxmax()]
    return f"{probability(row['p_joint'])} ({_name(row['dataset'])}, n = {row['n']}, {row['selection']})"


def scope_lines(scope: pd.DataFrame) -> list[str]:
    """The two intervals of each dataset's effect: given the file, and for new data."""
    level = f"{INTERVAL_LEVEL:.0%}"
    table = pd.DataFrame(
        {
            "dataset": [_name(d) for d in scope["dataset"]],
            "DisDF − gcF (pp)": [f"{m:+.2f}" for m in scope["mean"]],
            f"given the file ({level}, the report's)": [
                _interval(a, b) for a, b in zip(scope["cond_low"], scope["cond_high"], strict=True)
            ],
            f"new data: Nadeau–Bengio ({level})": [
                _interval(a, b) for a, b in zip(scope["nb_low"], scope["nb_high"], strict=True)
            ],
        }
    )
    return table.to_markdown(index=False, disable_numparse=True).splitlines()


def paper_as_samples_section(
    records: pd.DataFrame, paper: pd.DataFrame, shared: PaperSampleCheck
) -> list[str]:
    """Markdown lines of the subsection "The paper's values as samples of ours" (items 5-7 of #43),
    from :func:`paper_sample_check` of ``records`` and ``paper``."""
    estimates, test, repetitions, check = shared.estimates, shared.test, shared.repetitions, shared.check
    draws, seed = shared.draws, shared.seed
    apart = predictive_check(records, paper, repetitions, shared.grid, draws, seed, shared_T=False)
    scope = scope_intervals(records)
    splits = int(records.groupby(["dataset", "N", "T", "method"]).size().min())
    on_grid = check[check["selection"] != "λ = τ = 1"]
    grid_splits = int(on_grid["splits"].min()) if on_grid["p_mean"].notna().any() else 0
    return [
        "### The paper's values as samples of ours",
        "",
        "A paper value is not an exact constant: by its spread across T it is one or a few splits. "
        "**How many?** n̂ as above, per dataset, with the paper's gcF and DisDF rows averaged (they move "
        "together, so they count once); means of n ≥ 1 splits vary no more than single splits, so n̂ < 1 "
        "does not fit the model:",
        "",
        *repetitions_lines(estimates, test),
        "",
        "**Could a table like the paper's come from our splits?** Take each paper cell to be the mean of n "
        "of our splits (n = 1, and n̂ rounded up): a simulated table draws, per N, n of our splits with "
        "replacement and takes their four T values together (the T of an N share its split, as in our "
        f"protocol), the N independently; {draws:,} tables per row, seeded. P: the share of tables whose "
        "mean DisDF − gcF over the 16 cells, whose count of cells with DisDF > gcF, and whose both (joint) "
        "are at least the paper's; (1 + hits)/(1 + draws), at least "
        f"{1 / (draws + 1):.0e}. The paper chose λ on the test data; the last two columns emulate it "
        f"with the audit's λ/τ grid (7 points, run at T = {GRID_T} only): each drawn split's best point, "
        "the most the choice can add, or the point with the best mean over the cell's n splits, what a "
        f"table of means can choose on; the gain over λ = τ = 1 at T = {GRID_T} is added to the split's "
        f"DisDF − gcF at every T. They draw from the {grid_splits} splits per N the grid ran "
        f"({splits} for λ = τ = 1).",
        "",
        *predictive_lines(check),
        "",
        "Drawing each T its own splits instead (the paper's spread across T is that of separate splits) "
        "makes the simulated tables less variable: the largest joint P becomes "
        f"{_largest_joint(apart)}, against {_largest_joint(check)} above.",
        "",
        "**What do our intervals cover?** Our splits resample one small file per dataset, so our CIs are "
        "conditional on it: right for 'do we reproduce the paper's table', too narrow for 'what will a "
        "user see on new data of this kind'. For the latter, Nadeau and Bengio's corrected resampled t: "
        "per N, the mean of J splits (each split's DisDF − gcF averaged over its T) has variance "
        "s²·(1/J + n_test/n_train) instead of s²/J; the N combined as in the report (mean of the per-N "
        "means, variances summed, Welch–Satterthwaite df). The correction takes each split to be drawn "
        "from n_train + n_test examples; it is the standard interval, and the one the verdict shows. (A "
        "variant scaled by the share of the file a split uses, shown until 2026-11-28, was our own and "
        "never validated: dropped.)",
        "",
        *scope_lines(scope),
        "",
    ]
