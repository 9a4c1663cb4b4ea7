"""APPENDIX.md's section on the run itself: units, wall time, machine and version, the optimism of the
out-of-fold scores, time per unit and per split, and the cells farthest from the paper's values.

The section of every output folder, like the protocol section: it reads that folder's records of the
run's config. Durations are written in the unit that suits them (seconds, minutes or hours), and a
run with one method gets no paired columns.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from experiments.analysis.cells import DATASET_NAMES, LABELS, PAPER_TABLES, cell_table
from experiments.analysis.statistics import split_mean_ci, with_optimism
from experiments.reporting.section import Rendered, ReportContext, Section
from experiments.reporting.sections.protocol import repetitions
from experiments.running.plan import RunPlan
from experiments.safety.durable import read_json_lines
from experiments.safety.guards import writes_headline


def duration(seconds: float) -> str:
    """A duration in the unit that suits it: "42 s", "3.5 min", "1.80 h"."""
    if seconds < 60:
        return f"{seconds:.1f} s" if seconds < 10 else f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.2f} h"


def split_times(records: pd.DataFrame, repetitions: int) -> tuple[pd.DataFrame, float]:
    """Mean seconds of one complete split (every T, both methods) per (dataset, N), and the
    core-hours the whole protocol needs at those rates."""
    complete = records.groupby(["dataset", "N", "repetition"]).filter(
        lambda group: len(group) == group["split_units"].iloc[0] if "split_units" in group else False
    )
    if complete.empty:
        return pd.DataFrame(), float("nan")
    per_split = (
        complete.assign(seconds=complete["fit_seconds"] + complete["predict_seconds"])
        .groupby(["dataset", "N", "repetition"])["seconds"]
        .sum()
        .groupby(["dataset", "N"])
        .agg(["count", "mean"])
        .rename(columns={"count": "splits timed", "mean": "seconds per split"})
    )
    return per_split, float(per_split["seconds per split"].sum() * repetitions / 3600)


def run_section(cells: pd.DataFrame, plan: RunPlan, output_dir: Path, digest: str) -> list[str]:
    """How the records were made: units, wall time, machine, n_jobs, engine, version (from runs.jsonl)."""
    logged = [r for r in read_json_lines(output_dir / "runs.jsonl") if r.get("config_hash") == digest]
    runs = [r for r in logged if not r.get("lost_summary")]
    unlogged_units = sum(r["units_run"] for r in logged if r.get("lost_summary"))
    wall = sum(r["wall_seconds"] or 0 for r in runs)
    unit_seconds = float((cells["seconds"] * cells["n"]).sum())
    machines = sorted({r["machine"] for r in runs})
    engines = sorted({r.get("engine", plan.model["engine"]) for r in runs}) or [plan.model["engine"]]
    return [
        "## Run",
        "",
        f"- Experiment `{plan.experiment_name}`, config `{digest}`. Units recorded: "
        f"{len(cells) and int(cells['n'].sum())}; repetitions per cell: {repetitions(cells['n'])} "
        f"(the protocol asks for {plan.protocol.repetitions}).",
        f"- Wall time of the runs logged in `runs.jsonl` for this config: {duration(wall)} over "
        f"{len(runs)} run(s) ({sum(r['units_run'] for r in runs)} units) on "
        f"{', '.join(machines) or 'unknown'} with n_jobs = "
        f"{', '.join(str(n) for n in sorted({r['n_jobs'] for r in runs})) or 'n/a'}; forest engine "
        f"{', '.join(f'`{e}`' for e in engines)}."
        + (
            f" {unlogged_units} units were recorded by runs that logged no summary (killed outright): "
            "their wall time is not in this figure."
            if unlogged_units
            else ""
        ),
        f"- Fit + predict time summed over every recorded unit: {duration(unit_seconds)} "
        "(units run in parallel, one per worker).",
        f"- Package version(s): {', '.join(sorted({r['version'] for r in runs})) or 'n/a'}.",
        "",
    ]


def optimism_section(records: pd.DataFrame, weight_fitting: str, headline: bool) -> list[str]:
    """How much the out-of-fold score that chose the depth overstates test accuracy, per method."""
    rows = []
    for (dataset, method), group in with_optimism(records).groupby(["dataset", "method"]):
        mean, half = split_mean_ci(group, "optimism")
        rows.append(
            {
                "dataset": DATASET_NAMES.get(dataset, dataset),
                "method": LABELS.get(method, method),
                "optimism (pp) ± 95% CI": f"{mean:.1f} ± {half:.1f}",
                "levels kept": round(float(group["n_levels"].mean()), 2),
                "out-of-fold score of the kept level": round(float(group["kept_score"].mean()), 3),
            }
        )
    return [
        "## Optimism of the out-of-fold scores",
        "",
        "Optimism: the out-of-fold accuracy of the kept level (which chose the depth) minus the test "
        "accuracy (mean over the units of a split, then over splits, with a 95% CI over splits). "
        "DisDF's weights are fitted on the pairs of each fold model's held-out examples; "
        f"these records use `weight_fitting={weight_fitting}`"
        + (
            " (the default): each example's out-of-fold vector uses weights fitted on the other parts "
            "of its fold's held-out set, never on its label. "
            if weight_fitting == "cross_fit"
            else ": the same examples' out-of-fold vectors use weights that saw their labels. "
        )
        + ('REPORT.md\'s "Honest DisDF" compares both fittings side by side.' if headline else ""),
        "",
        pd.DataFrame(rows).to_markdown(index=False),
        "",
    ]


def timing_sections(cells: pd.DataFrame, plan: RunPlan, records: pd.DataFrame) -> list[str]:
    """Seconds per unit at the largest N and T, and per split (with the protocol's core-hours)."""
    largest = cells[(cells["N"] == cells["N"].max()) & (cells["T"] == cells["T"].max())]
    timing = largest.pivot_table(index="dataset", columns="method", values=["seconds", "n_levels"])
    names = {"seconds": "seconds", "n_levels": "levels kept"}
    timing.columns = [f"{names[value]} {LABELS.get(method, method)}" for value, method in timing.columns]
    timing.index = pd.Index([DATASET_NAMES.get(d, d) for d in timing.index], name="dataset")
    lines = [
        f"## Time per unit at N = {cells['N'].max()}, T = {cells['T'].max()}",
        "",
        "Mean fit + predict seconds of one unit (one method on one split) and mean levels kept; "
        "a split's shared level 1 is charged evenly to its units; units ran in parallel, so the "
        "seconds include contention for the cores.",
        "",
        timing.to_markdown(floatfmt=".2f"),
        "",
    ]
    per_split, core_hours = split_times(records, plan.protocol.repetitions)
    if not per_split.empty:
        table = per_split.reset_index().pivot_table(index="dataset", columns="N", values="seconds per split")
        table.index = pd.Index([DATASET_NAMES.get(d, d) for d in table.index], name="dataset")
        table.columns = [f"N = {N}" for N in table.columns]
        lines += [
            "## Time per split",
            "",
            "Mean fit + predict seconds of one split (all its T and both methods, level 1 grown once), "
            f"over the splits whose units all ran in one job. At these rates the protocol's "
            f"{plan.protocol.repetitions} repetitions take {duration(core_hours * 3600)} of one core, i.e. "
            f"about {duration(core_hours * 1800)} of wall time on 2 cores.",
            "",
            table.to_markdown(floatfmt=".2f"),
            "",
        ]
    return lines


def disagreement_section(cells: pd.DataFrame) -> list[str]:
    """The ten cells farthest from the paper's values."""
    gaps = cells.dropna(subset=["paper"]).assign(gap=lambda f: f["mean"] - f["paper"])
    if gaps.empty:
        return []
    worst = gaps.reindex(gaps["gap"].abs().sort_values(ascending=False).index).head(10)
    table = pd.DataFrame(
        {
            "dataset": [DATASET_NAMES.get(d, d) for d in worst["dataset"]],
            "N": worst["N"],
            "T": worst["T"],
            "method": [LABELS.get(m, m) for m in worst["method"]],
            "repetitions": worst["n"],
            "our mean": worst["mean"],
            "95% CI ±": worst["ci_half"],
            "paper": worst["paper"],
            "ours − paper": worst["gap"],
        }
    )
    return [
        "## Largest disagreements with the paper",
        "",
        table.to_markdown(index=False, floatfmt=".3f"),
        "",
    ]


def run_details_markdown(cells, plan, folder: Path, digest: str, records) -> str:
    sections = [
        run_section(cells, plan, folder, digest),
        optimism_section(records, plan.model["weight_fitting"], writes_headline(folder)),
        timing_sections(cells, plan, records),
        disagreement_section(cells),
    ]
    return "\n".join(line for section in sections for line in section)


def render(context: ReportContext) -> Rendered | None:
    """The run's details from ``context.folder``'s records of ``context.plan``; None without any."""
    if context.plan is None:
        raise ValueError("the run details section reads a run's plan; the report was given none")
    grid = context.plan.grid
    records = context.folder_records(context.folder, grid)
    if records.empty:
        return None
    cells = cell_table(records, pd.read_csv(PAPER_TABLES))
    return Rendered(run_details_markdown(cells, context.plan, context.folder, grid.config_hash, records))


SECTION = Section("run_details", "the folder's raw records of the run's config and its runs.jsonl", render)
