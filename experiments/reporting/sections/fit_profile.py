"""PERFORMANCE.md section "Where a large fit's time goes": a HIGGS-shaped fit of each cascade by part
(growing trees, routing the held-out rows, DisDF's weights...), per commit measured, so that a change to
the engine is shown before and after.

    python -m experiments.reporting.report --section fit_profile   # after make bench-profile

Everything comes from results/bench/fit_profile.csv (scripts/bench/bench_fit_profile.py): one row per
(fit, part), the fit's wall and CPU seconds, peak memory and accuracy repeated on each of its rows.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from experiments.analysis.cells import LABELS
from experiments.reporting.section import Rendered, ReportContext, Section
from experiments.reporting.sections.scale import METHOD_NAMES, PROBLEM_NAMES
from experiments.safety.provenance import read_measurements

PROFILE_CSV = Path("results/bench/fit_profile.csv")
#: Parts under this share of every commit's thread-seconds are summed into one row.
MINOR_SHARE = 0.005


def render(context: ReportContext) -> Rendered | None:
    """The section; None before ``make bench-profile`` has written its CSV."""
    path = context.root / PROFILE_CSV
    if not path.is_file():
        return None
    return Rendered(section_markdown(read_measurements(path)))


def fit_label(fit: pd.Series) -> str:
    """ "commit (date)": how a fit's column is headed (``fit``: one of its rows)."""
    return f"{fit['commit']} ({fit['date']})"


def part_table(rows: pd.DataFrame) -> pd.DataFrame:
    """One method's parts (rows) by commit (columns): thread-seconds and share; then the fit's wall
    seconds, CPU seconds, peak memory, levels and test accuracy."""
    major = rows.groupby("part", sort=False)["share_of_parts"].max() >= MINOR_SHARE
    table: dict[str, dict[str, str]] = {}
    for _, fit in rows.groupby("commit", sort=False):
        column: dict[str, str] = {}
        by_part = fit.set_index("part")
        for part in major.index:
            if major[part] and part in by_part.index:
                row = by_part.loc[part]
                column[part] = f"{row['seconds']:,.0f} ({100 * row['share_of_parts']:.0f} %)"
        minor = by_part.loc[[p for p in by_part.index if not major.get(p, False)], "seconds"].sum()
        column["the other parts"] = f"{minor:,.1f}"
        first = fit.iloc[0]
        wall, cpu = first["wall_seconds_fit"], first["cpu_seconds_fit"]
        column["fit: wall / CPU seconds"] = f"{wall:,.0f} / {cpu:,.0f}"
        column["peak memory (GiB)"] = f"{first['peak_memory_gib']:.2f}"
        column["levels kept / grown"] = f"{first['n_levels']} / {first['levels_grown']}"
        column["test accuracy"] = f"{first['test_accuracy']:.4f}"
        table[fit_label(first)] = column
    return pd.DataFrame(table).rename_axis("part (thread-seconds)").reset_index()


def section_markdown(profile: pd.DataFrame) -> str:
    """The section's text: how it was measured, then a table per (problem, size, method)."""
    lines = [
        "## Where a large fit's time goes",
        "",
        "Each cascade fitted once in a fresh process, after a small warm-up fit, with timers around the "
        f"library's functions that carry each part (`make bench-profile` → `{PROFILE_CSV}`, "
        "scripts/bench/bench_fit_profile.py says which function each part wraps). A part's seconds are "
        "exclusive (a timed call inside another is charged once) and summed over the threads, so they add "
        "up to at most the jobs times the wall time; growing trees includes the presorting and binning done "
        "inside the compiled call. A column per commit measured: a change to the engine is shown "
        "beside the fit before it. At 10⁶ rows (`make bench-profile-large`) the fits stop after their "
        "first two levels, as a whole fit takes 30–45 minutes.",
        "",
    ]
    if "max_levels" not in profile:
        profile = profile.assign(max_levels=float("nan"))
    keys = ["problem", "n_train", "method", "max_levels"]
    for (problem, n_train, method, max_levels), rows in profile.groupby(keys, sort=False, dropna=False):
        name = METHOD_NAMES.get(method, LABELS.get(method, method))
        data = PROBLEM_NAMES.get(problem, problem)
        levels = "" if pd.isna(max_levels) else f", its first {int(max_levels)} levels only"
        lines += [
            f"{name}, {data}, n = {int(n_train):,}, T = {int(rows['n_trees'].iloc[0])}, "
            f"{int(rows['n_jobs'].iloc[0])} jobs{levels}:",
            "",
            part_table(rows).to_markdown(index=False, disable_numparse=True),
            "",
        ]
    return "\n".join(lines)


SECTION = Section("fit_profile", str(PROFILE_CSV), render)
