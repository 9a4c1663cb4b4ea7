"""REPORT.md section "Regression" (one paragraph in the part beyond the paper) and APPENDIX.md's detail:
the regression benchmark declared in :mod:`experiments.analysis.regression_plan`, analysed by
:mod:`experiments.analysis.regression_benchmark`; this module only renders.

    make regression                                              # the records (results/regression/)
    python -m experiments.reporting.report --section regression regression_detail
"""

from __future__ import annotations

import pandas as pd

from experiments.analysis.benchmark import critical_difference
from experiments.analysis.plan import ALPHA, DECISION_PROBABILITY, ROPE_R2
from experiments.analysis.regression_benchmark import (
    RECORDS,
    AddedMethods,
    RegressionAnalysis,
    RegressionContrast,
    analyse,
    analyse_added,
)
from experiments.analysis.regression_plan import MAX_ROWS, N_TREES, SPEED_GOAL
from experiments.reporting.section import Rendered, ReportContext, Section
from experiments.reporting.sections.benchmark import draw_ranks
from experiments.running.regression_datasets import REGRESSION_DATASETS

NAMES = {
    "disdf": "disdf (defaults)",
    "disdf_df21_level": "disdf, DF21's level",
    "df21": "DF21",
    "random_forest": f"RF ({4 * N_TREES})",
    "extra_trees": f"ET ({4 * N_TREES})",
    "hist_gradient_boosting": "HGB",
    "disdf_out_of_bag": "disdf out of bag",
}
RANK_FIGURE = "figures/regression_ranks.png"


def _records(context: ReportContext) -> pd.DataFrame | None:
    """The benchmark's records, read once per report build for the declared and the added analysis."""
    path = context.root / RECORDS
    return context.once("regression_records", lambda: pd.read_csv(path)) if path.is_file() else None


def _analysis(context: ReportContext) -> RegressionAnalysis | None:
    records = _records(context)
    if records is None:
        return None
    return context.once("regression", lambda: analyse(records, len(REGRESSION_DATASETS)))


def _added(context: ReportContext) -> AddedMethods | None:
    records = _records(context)
    return None if records is None else context.once("regression_added", lambda: analyse_added(records))


def _contrast_rows(contrasts: list[RegressionContrast]) -> list[str]:
    rows = [
        f"| contrast | mean ΔR² | P(worse) | P(within ±{ROPE_R2:g}) | P(better) | verdict (P > "
        f"{DECISION_PROBABILITY:g}) |",
        "|:--|--:|--:|--:|--:|:--|",
    ]
    for c in contrasts:
        rows.append(
            f"| {NAMES[c.treatment]} − {NAMES[c.baseline]} | {c.mean_difference:+.4f} | {c.p_worse:.3f} | "
            f"{c.p_equivalent:.3f} | {c.p_better:.3f} | {c.verdict} |"
        )
    return rows


def _speed(found: RegressionAnalysis | AddedMethods, method: str) -> str:
    ratio = found.speedups[method]
    return f"{ratio.geometric_mean:.1f}× (per table {ratio.low:.1f}–{ratio.high:.1f}×)"


def render(context: ReportContext) -> Rendered | None:
    """REPORT.md's paragraph (the main part's 2,000 words: the tables are APPENDIX.md's); None before two
    tables are complete."""
    found = _analysis(context)
    if found is None:
        return None
    level, default = found.contrasts  # the plan's order: DF21's level first, the defaults second
    if level.verdict == default.verdict:
        verdicts = f"both {level.verdict} (P ≥ {min(_probability(level), _probability(default)):.2f})"
    else:
        verdicts = f"{level.verdict} and {default.verdict}"
    text = [
        "### Regression",
        "",
        f"`CascadeForestRegressor` against DF21 on {found.n_datasets} of {found.n_declared} public tables "
        "(5 × 2 CV, declared first; `make regression`; Bayesian signed-rank, ROPE "
        f"±{ROPE_R2}): ΔR² {level.mean_difference:+.3f} with DF21's level, {default.mean_difference:+.3f} "
        f"with its defaults, {verdicts}; fit "
        f"{found.speedups['disdf_df21_level'].geometric_mean:.1f}× and "
        f"{found.speedups['disdf'].geometric_mean:.1f}× faster (goal {SPEED_GOAL:.0f}×).",
    ]
    added = _added(context)
    if added is not None:
        (bagged,) = added.contrasts
        text[-1] += (
            " Post hoc, out of bag as DF21's layers (`out_of_bag=True`): ΔR² "
            f"{bagged.mean_difference:+.3f}, {bagged.verdict}, "
            f"{added.speedups[bagged.treatment].geometric_mean:.1f}× faster."
        )
    text[-1] += " Ranks and tables: APPENDIX.md."
    return Rendered("\n".join(text))


def _probability(contrast) -> float:
    """The posterior probability of the contrast's verdict (of equivalence when not decided)."""
    return {"better": contrast.p_better, "worse": contrast.p_worse}.get(
        contrast.verdict, contrast.p_equivalent
    )


def render_detail(context: ReportContext) -> Rendered | None:
    """APPENDIX.md's tables and the rank figure; None before two tables are complete."""
    found = _analysis(context)
    if found is None:
        return None
    ranks = found.ranking.mean_ranks
    cd = critical_difference(len(ranks), found.n_datasets)
    table = found.r2.rename(columns=NAMES).round(3)
    table.insert(0, "rows", [min(REGRESSION_DATASETS[d].rows, MAX_ROWS) for d in table.index])
    relative = found.relative_rmse
    text = [
        "## Regression: contrasts, per table, ranks and fit times",
        "",
        f"The regression benchmark ({found.n_datasets} of the {found.n_declared} declared tables complete; "
        f"≤ {MAX_ROWS:,} rows, 5 × 2 CV, {N_TREES} trees per forest). Against DF21, the Bayesian signed-rank "
        f"test over tables, region of equivalence ±{ROPE_R2} R²; a verdict needs a posterior probability "
        f"above {DECISION_PROBABILITY}:",
        "",
        *_contrast_rows(found.contrasts),
        "",
        f"Friedman χ² = {found.ranking.statistic:.1f}, p = {found.ranking.p_value:.2g}. Fit CPU time, DF21's "
        f"over disdf's: {_speed(found, 'disdf_df21_level')} with DF21's level, {_speed(found, 'disdf')} with "
        f"the defaults. Mean test R² over the 10 halves (`{RECORDS}`):",
        "",
        table.to_markdown(),
        "",
        "Mean ranks (1 = best): "
        + ", ".join(f"{NAMES[m]} {r:.2f}" for m, r in ranks.items())
        + f"; critical difference {cd:.2f} (Nemenyi, α = {ALPHA:g}).",
        "",
        "RMSE relative to DF21's (geometric mean over tables, range): "
        + ", ".join(
            f"{NAMES[m]} {relative[m].geometric_mean:.3f} ({relative[m].low:.2f}–{relative[m].high:.2f})"
            for m in found.rmse.columns
            if m != "df21"
        )
        + ".",
        "",
        "Median fit CPU seconds per table (one job each):",
        "",
        found.fit_seconds.rename(columns=NAMES).round(2).to_markdown(),
        "",
        f"![Mean ranks]({RANK_FIGURE})",
        *_added_detail(context),
    ]
    figure = draw_ranks(found.ranking, found.n_datasets, NAMES, "tables")
    return Rendered("\n".join(text), figures={RANK_FIGURE: figure})


def _added_detail(context: ReportContext) -> list[str]:
    """APPENDIX.md's lines on the methods added after the records were seen (none before they have two
    complete tables)."""
    added = _added(context)
    if added is None:
        return []
    per_table = pd.concat(
        [
            added.r2.rename(columns=NAMES).add_prefix("R², ").round(3),
            added.fit_seconds.rename(columns=NAMES).add_prefix("fit CPU s, ").round(2),
            added.levels.rename(columns=NAMES).add_prefix("levels, ").round(1),
        ],
        axis=1,
    )
    return [
        "",
        "### Added after the records were seen: DF21's cascade in disdf",
        "",
        "Declared on 2026-11-29 after the records above were seen (`ADDED_METHODS` in "
        "`experiments/analysis/regression_plan.py` says why): DF21's level and binning as `disdf, DF21's "
        "level`, and each level's held-out outputs out of bag (`out_of_bag=True`), as DF21's layers make "
        "them. Post hoc, so its verdict is a lead, not a test of a declared rule. On "
        f"{added.n_datasets} tables:",
        "",
        *_contrast_rows(added.contrasts),
        "",
        f"Fit CPU time, DF21's over it: {_speed(added, 'disdf_out_of_bag')}. Mean test R², median fit "
        "CPU seconds and mean levels kept, beside DF21's:",
        "",
        per_table.to_markdown(),
    ]


READS = f"{RECORDS} (make regression)"
SECTION = Section("regression", READS, render)
DETAIL = Section("regression_detail", READS, render_detail)
