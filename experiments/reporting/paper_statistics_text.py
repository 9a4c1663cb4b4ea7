"""What the paper's tables can tell, as REPORT.md prints it (the analysis:
:mod:`experiments.analysis.paper_statistics`): n̂ per dataset and method, the methods' correlation, the
paper's values against our single splits, the sign pattern, and our tests' power."""

from __future__ import annotations

import pandas as pd

from experiments.analysis.cells import DATASET_NAMES
from experiments.analysis.paper_statistics import (
    averaged_methods,
    heterogeneity,
    method_correlation,
    power_of_our_tests,
    power_summary,
    repetitions_consistent,
    sign_pattern,
    single_split_coverage,
    spread_across_T,
    spread_summary,
)
from experiments.analysis.plan import ALPHA, MARGIN_PP


def markdown_lines(frame: pd.DataFrame, floatfmt: str = ".2f") -> list[str]:
    """A frame as markdown table lines."""
    return frame.to_markdown(index=False, floatfmt=floatfmt).splitlines()


def _interval(row: pd.Series) -> str:
    return f"{row['n_hat']:.1f} [{row['ci_low']:.1f}, {row['ci_high']:.1f}]"


#: The pooled rows of :func:`repetitions_consistent`, not shown: the heterogeneity test rejects one n.
POOLED = ("all", "all but ionosphere")


def paper_table_rows(records: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """Per dataset (and pooled rows): repetitions n̂ per method's rows and with the methods averaged,
    the correlation of the methods' deviations, the paper's values inside our single splits' central
    95 %, and the sign pattern (no pooled rows: the datasets disagree)."""
    per_method = repetitions_consistent(spread_across_T(records, paper)).set_index("dataset")
    averaged = repetitions_consistent(averaged_methods(records, paper)).set_index("dataset")
    correlation = method_correlation(paper).set_index("dataset")["r"]
    single = single_split_coverage(records, paper).set_index("dataset")["inside single-split 95 %"]
    signs = sign_pattern(records, paper).set_index("dataset")
    rows = []
    for dataset in per_method.index:
        if dataset in POOLED:  # the datasets disagree (the heterogeneity test): no pooled n̂
            continue
        row = {
            "dataset": {"all": "all datasets", "all but ionosphere": "all but Ionosphere"}.get(
                dataset, DATASET_NAMES.get(dataset, dataset)
            ),
            "n̂ [95% CI]": _interval(per_method.loc[dataset]),
            "n̂, methods averaged": _interval(averaged.loc[dataset]) if dataset in averaged.index else "",
            "r(gcF, DisDF)": f"{correlation[dataset]:.2f}" if dataset in correlation else "",
            "inside our single splits' 95 %": single.get(dataset, ""),
        }
        if dataset in signs.index:
            row["DisDF > gcF: paper's cells"] = signs.loc[dataset, "paper: DisDF > gcF"]
            s = signs.loc[dataset]
            row["our splits (> / = / <)"] = (
                f"{s['our splits: DisDF > gcF']} / {s['ties']} / {s['DisDF < gcF']}"
            )
        rows.append(row)
    return pd.DataFrame(rows).fillna("")


def paper_statistics_section(records: pd.DataFrame, paper: pd.DataFrame) -> list[str]:
    """Markdown lines of the REPORT.md subsection "What the paper's tables can tell"."""
    spread = spread_across_T(records, paper)
    test = heterogeneity(spread)
    power = power_summary(power_of_our_tests(records, paper))
    n = int(spread["n_repetitions"].min())
    return [
        "### What the paper's tables can tell",
        "",
        "**How many repetitions is a paper cell?** If the paper's values were means of n independent "
        "repetitions with our per-split SD σ and no T effect (ours: our means move across T by "
        f"{spread_summary(spread)['our SD across T'].median():.2f} points), a row's SD s across its 4 T "
        "would give 3·s²·n/σ² ~ χ²(3); n̂ pools the rows (95 % CI from χ²). Extra variation between T "
        "(a real T effect, rounding, changes between runs) biases n̂ low; cells sharing splits bias it "
        f"high. The datasets disagree (likelihood-ratio test of one n for all: χ²({test['groups'] - 1}) = "
        f"{test['statistic']:.1f}, p = {test['p']:.1g}), and the paper's gcF and DisDF values move "
        "together across T (r below), so its two rows per N are not independent: the 'methods averaged' "
        "column counts them once; no pooled n̂ is given. The paper's values are set against the central "
        "95 % of our single splits (not our CI of a mean: a paper cell is one or a few splits), and the "
        "share of cells where DisDF beats gcF in the paper against the share of our single splits:",
        "",
        *markdown_lines(paper_table_rows(records, paper)),
        "",
        f"Our tests are not too weak to see the paper's differences: on our {n} splits a paired t-test "
        f"detects the paper's δ (in the cells where δ ≥ {MARGIN_PP:g} point) with median power "
        + ", ".join(
            f"{DATASET_NAMES.get(d, d)} {v:.2f}"
            for d, v in zip(power["dataset"], power["median power"], strict=True)
        )
        + f" (α = {ALPHA:g}).",
        "",
    ]
