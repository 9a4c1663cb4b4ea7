"""Tables in the paper's layout and the generated REPORT.md, from the raw records.

    python -m experiments.reporting.tables experiment=paper

Each cell: our mean accuracy ± the 95% CI half-width over repetitions, the
paper's value in brackets, and the number of repetitions. DisDF cells carry
the verdict of a paired Wilcoxon signed-rank test of DisDF against gcForest
over the repetitions, Holm-corrected across the table's cells.
"""

from __future__ import annotations

import logging
from pathlib import Path

import hydra
import numpy as np
import pandas as pd
from omegaconf import DictConfig

from disdf.atomic_files import remove_leftovers, write_text_atomically
from experiments.reporting.optimism import split_mean_ci, with_optimism
from experiments.reporting.report import put_section
from experiments.reporting.statistics import holm, mean_ci, paired_wilcoxon
from experiments.running import config as _config  # noqa: F401 - registers the schema
from experiments.running.composition import CONFIG_PATH, compose_config, record_grid
from experiments.running.config import ROOT
from experiments.running.records import RecordGrid, RecordStore
from experiments.running.unit import TIMING_FIELDS
from experiments.safety.durable import read_json_lines
from experiments.safety.folder_lock import FolderInUseError, exclusive_folder
from experiments.safety.generation import new_generation, records_digest
from experiments.safety.guards import check_headline_folder
from experiments.safety.interrupts import run_interruptible

PAPER_TABLES = ROOT / "results" / "paper" / "paper_tables.csv"
ALPHA = 0.05
LABELS = {"gcforest": "gcF", "disdf": "DisDF"}
#: Cell columns that measure time: in REPORT.md, not in the tables, which are the same on every rerun.
TIMING_COLUMNS = ("seconds",)
log = logging.getLogger(__name__)


def load_records(output_dir: Path, grid: RecordGrid) -> pd.DataFrame:
    """The counted records of ``grid``'s config under ``output_dir/raw`` (checked against the grid)."""
    return pd.DataFrame(RecordStore(output_dir / "raw").read_config(sorted(grid.datasets), grid))


def experiment_records(
    experiment: str, *overrides: str, folder: str = "", root: Path = ROOT
) -> tuple[pd.DataFrame, DictConfig]:
    """The records of an experiment as committed (its config hash, its output folder, or the
    sub-folder ``folder`` of a multirun job) and its config."""
    cfg = compose_config(f"experiment={experiment}", *overrides)
    output_dir = root / cfg.runtime.output_dir / folder
    return load_records(output_dir, record_grid(cfg)), cfg


def cell_table(records: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """One row per (dataset, N, T, method): n, mean, CI, the paper's value, and the paired test."""
    rows = []
    for (dataset, N, T, method), group in records.groupby(["dataset", "N", "T", "method"]):
        mean, half = mean_ci(group["accuracy"].to_numpy())
        rows.append(
            {
                "dataset": dataset,
                "N": N,
                "T": T,
                "method": method,
                "n": group["repetition"].nunique(),  # distinct repetitions (records are one per key)
                "mean": mean,
                "ci_half": half,
                "n_test": int(group["n_test"].min()),
                "seconds": float((group["fit_seconds"] + group["predict_seconds"]).mean()),
                "n_levels": float(group["n_levels"].mean()),
            }
        )
    cells = pd.DataFrame(rows)
    cells = cells.merge(
        paper.rename(columns={"accuracy": "paper"}), on=["dataset", "N", "T", "method"], how="left"
    )
    inside = (cells["paper"] - cells["mean"]).abs() <= cells["ci_half"]
    cells["paper_in_ci"] = inside.where(cells["paper"].notna())
    tests = paired_tests(records)
    return cells.merge(tests, on=["dataset", "N", "T"], how="left")


def paired_tests(records: pd.DataFrame, treatment: str = "disdf", baseline: str = "gcforest") -> pd.DataFrame:
    """treatment - baseline (DisDF - gcForest unless told) per (dataset, N, T), paired by repetition;
    Holm within each dataset. Empty unless the records hold exactly those two methods."""
    columns = ["dataset", "N", "T", "n_pairs", "difference", "p_value", "p_holm", "verdict"]
    if set(records["method"]) != {treatment, baseline}:
        return pd.DataFrame(columns=columns)
    wide = records.pivot_table(index=["dataset", "N", "T", "repetition"], columns="method", values="accuracy")
    wide = wide.dropna().reset_index()
    rows = []
    for (dataset, N, T), group in wide.groupby(["dataset", "N", "T"]):
        rows.append(
            {
                "dataset": dataset,
                "N": N,
                "T": T,
                "n_pairs": len(group),
                "difference": float((group[treatment] - group[baseline]).mean()),
                "p_value": paired_wilcoxon(group[treatment].to_numpy(), group[baseline].to_numpy()),
            }
        )
    tests = pd.DataFrame(rows, columns=columns[:6])
    tests["p_holm"] = np.nan
    for index in tests.groupby("dataset").groups.values():
        tests.loc[index, "p_holm"] = holm(tests.loc[index, "p_value"].to_numpy())
    tests["verdict"] = np.select(
        [
            (tests["p_holm"] < ALPHA) & (tests["difference"] > 0),
            (tests["p_holm"] < ALPHA) & (tests["difference"] < 0),
        ],
        [f"{LABELS.get(treatment, treatment)} better", f"{LABELS.get(treatment, treatment)} worse"],
        "no significant difference",
    )
    return tests


def _cell_text(row: pd.Series, tex: bool = False) -> str:
    pm = r"$\pm$" if tex else "±"
    ci = "n/a" if np.isnan(row["ci_half"]) else f"{row['ci_half']:.3f}"
    paper = "–" if np.isnan(row["paper"]) else f"{row['paper']:.3f}".rstrip("0").rstrip(".")
    mark = ""
    if row["method"] == "disdf" and isinstance(row.get("verdict"), str):
        mark = {"DisDF better": " ▲", "DisDF worse": " ▼"}.get(row["verdict"], "")
        if tex:
            mark = {" ▲": r" $\blacktriangle$", " ▼": r" $\blacktriangledown$"}.get(mark, "")
    return f"{row['mean']:.3f} {pm} {ci} [{paper}] ({row['n']}){mark}"


def layout(cells: pd.DataFrame, tex: bool = False) -> pd.DataFrame:
    """Rows N, columns T x method, as in the paper."""
    frame = cells.assign(text=[_cell_text(row, tex) for _, row in cells.iterrows()])
    label = {m: LABELS.get(m, m) for m in frame["method"].unique()}
    frame["column"] = [f"T={t} {label[m]}" for t, m in zip(frame["T"], frame["method"], strict=True)]
    # the paper's two methods first, in its order; any other method (e.g. an audit grid) after them
    methods = [m for m in LABELS if m in label] + sorted(set(label) - set(LABELS))
    order = [f"T={t} {label[m]}" for t in sorted(frame["T"].unique()) for m in methods]
    table = frame.pivot(index="N", columns="column", values="text")[order]
    table.columns.name = None
    return table


def write_tables(cells: pd.DataFrame, tables_dir: Path) -> list[Path]:
    """Each dataset's table as CSV, Markdown and LaTeX; returns the files written."""
    tables_dir.mkdir(parents=True, exist_ok=True)
    written = []
    legend = (
        "Cell: our mean accuracy ± 95% CI half-width [the paper's value] (repetitions). "
        f"▲/▼: DisDF significantly better/worse than gcF (paired Wilcoxon signed-rank, Holm-corrected "
        f"across this table's cells, α = {ALPHA})."
    )
    for dataset, group in cells.groupby("dataset"):
        ordered = group.sort_values(["N", "T", "method"]).drop(columns=list(TIMING_COLUMNS))
        write_text_atomically(tables_dir / f"{dataset}.csv", ordered.to_csv(index=False))
        table = layout(group)
        write_text_atomically(
            tables_dir / f"{dataset}.md", f"# {dataset}\n\n{legend}\n\n{table.to_markdown()}\n"
        )
        tex_table = layout(group, tex=True)
        write_text_atomically(
            tables_dir / f"{dataset}.tex", f"% {legend}\n" + tex_table.to_latex(escape=False)
        )
        written += [tables_dir / f"{dataset}.{kind}" for kind in ("csv", "md", "tex")]
    return written


def capped_test_note(cells: pd.DataFrame, cfg: DictConfig) -> list[str]:
    """Cells whose test set is smaller than round(test_fraction N) because the dataset is too small."""
    expected = (cells["N"] * cfg.protocol.test_fraction).round().astype(int)
    capped = cells[cells["n_test"] < expected].drop_duplicates(["dataset", "N"])
    return [
        f"- {row.dataset}, N = {row.N}: only {row.n_test} test examples (not {want}): the dataset cannot "
        "hold both sets, so the test set takes every remaining example."
        for row, want in zip(capped.itertuples(), expected[capped.index], strict=True)
    ]


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


def write_report(
    cells: pd.DataFrame, cfg: DictConfig, output_dir: Path, digest: str, records: pd.DataFrame
) -> None:
    """The protocol's section of REPORT.md: run, method, summary, timing, disagreements, tables."""
    sections = [
        run_section(cells, cfg, output_dir, digest),
        method_section(cells, cfg),
        summary_section(cells),
        optimism_section(records, cfg.model.weight_fitting),
        timing_sections(cells, cfg, records),
        disagreement_section(cells),
        tables_section(cells),
    ]
    put_section(output_dir, "protocol", "\n".join(line for section in sections for line in section))


def run_section(cells: pd.DataFrame, cfg: DictConfig, output_dir: Path, digest: str) -> list[str]:
    """How the records were made: units, wall time, machine, n_jobs, engine, version (from runs.jsonl)."""
    logged = [r for r in read_json_lines(output_dir / "runs.jsonl") if r.get("config_hash") == digest]
    runs = [r for r in logged if not r.get("lost_summary")]
    unlogged_units = sum(r["units_run"] for r in logged if r.get("lost_summary"))
    wall = sum(r["wall_seconds"] or 0 for r in runs)
    unit_hours = float((cells["seconds"] * cells["n"]).sum()) / 3600
    machines = sorted({r["machine"] for r in runs})
    engines = sorted({r.get("engine", cfg.model.engine) for r in runs}) or [cfg.model.engine]
    return [
        "# Reproduction report",
        "",
        f"Generated by `python -m experiments.reporting.tables experiment={cfg.experiment_name}` from the "
        f"records in `raw/` beside this file (config `{digest}`). Do not edit: regenerate it.",
        "",
        "## Run",
        "",
        f"- Units recorded: {len(cells) and int(cells['n'].sum())}; repetitions per cell: "
        f"{int(cells['n'].min())}–{int(cells['n'].max())} "
        f"(the protocol asks for {cfg.protocol.repetitions}).",
        f"- Wall time of the runs logged in `runs.jsonl` for this config: {wall / 60:.1f} min over "
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
        f"- Fit + predict time summed over every recorded unit: {unit_hours:.2f} h "
        "(units run in parallel, one per worker).",
        f"- Package version(s): {', '.join(sorted({r['version'] for r in runs})) or 'n/a'}.",
        "",
    ]


def method_section(cells: pd.DataFrame, cfg: DictConfig) -> list[str]:
    """The protocol, λ and τ, the solver and the forests, as configured."""
    return [
        "## Method",
        "",
        f"- Protocol: N ∈ {list(cfg.protocol.Ns)}, T ∈ {list(cfg.protocol.Ts)}, test size "
        f"round({cfg.protocol.test_fraction:.4g}·N), a split per (dataset, N, repetition) shared by every T "
        "and both methods; MNIST draws its test examples from its test split.",
        *capped_test_note(cells, cfg),
        "- DisDF λ and τ: "
        + (
            f"chosen per level by out-of-fold accuracy on the training examples (tune=True) from "
            f"λ ∈ {list(cfg.model.tune_lambdas)}, τ ∈ {list(cfg.model.tune_taus)}; test data is never used."
            if cfg.model.tune
            else f"fixed, λ = {cfg.model.lambda_}, τ = {cfg.model.tau} (tune=False). Per-level out-of-fold "
            "selection (tune=True) was measured against these fixed values on datasets outside the paper "
            "(`scripts/compare_tuning.py` → `results/bench/tuning.csv`) and was no better, so the fixed "
            "values are used."
        ),
        f"- Weight solver: `{cfg.solver.name}` with {dict(cfg.solver.options)}.",
        f"- Forests: engine `{cfg.model.engine}` "
        + (
            "(compiled, `disdf/fast_forest/`), equivalent to scikit-learn's forests by a paired TOST, pooled "
            "(margin ±0.5 pp) and in every cell tested (±1.5 pp): `scripts/compare_engines.py` → "
            "`results/bench/engine_equivalence.csv`."
            if cfg.model.engine == "fast"
            else "(scikit-learn's forests)."
        )
        + " Level 1 of a split is grown once for every T and both methods (exact: the first T trees of a "
        "forest are the T-tree forest with the same seed).",
        "- The paper chose λ by the best (test) results; its values are printed beside ours, not used.",
        "",
    ]


def summary_section(cells: pd.DataFrame) -> list[str]:
    """Per dataset: DisDF against gcF (paired tests), and how many paper values lie inside our CIs."""
    summary_rows = []
    for dataset, group in cells.groupby("dataset"):
        disdf_cells = group[group["method"] == "disdf"]
        verdicts = disdf_cells["verdict"].value_counts() if "verdict" in disdf_cells else pd.Series(dtype=int)
        with_paper = group.dropna(subset=["paper"])
        inside = int(with_paper["paper_in_ci"].fillna(False).sum())
        summary_rows.append(
            {
                "dataset": dataset,
                "cells": len(disdf_cells),
                "DisDF better": int(verdicts.get("DisDF better", 0)),
                "DisDF worse": int(verdicts.get("DisDF worse", 0)),
                "no significant difference": int(verdicts.get("no significant difference", 0)),
                "paper values inside our 95% CI": f"{inside}/{len(with_paper)}",
                "mean accuracy gcF / DisDF": " / ".join(
                    f"{group[group['method'] == m]['mean'].mean():.3f}" for m in ("gcforest", "disdf")
                ),
            }
        )
    return ["## Summary", "", pd.DataFrame(summary_rows).to_markdown(index=False), ""]


def optimism_section(records: pd.DataFrame, weight_fitting: str) -> list[str]:
    """How much the out-of-fold score that chose the depth overstates test accuracy, per method."""
    rows = []
    for (dataset, method), group in with_optimism(records).groupby(["dataset", "method"]):
        mean, half = split_mean_ci(group, "optimism")
        rows.append(
            {
                "dataset": dataset,
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
        + 'See "Honest DisDF" below for both fittings side by side.',
        "",
        pd.DataFrame(rows).to_markdown(index=False),
        "",
    ]


def timing_sections(cells: pd.DataFrame, cfg: DictConfig, records: pd.DataFrame) -> list[str]:
    """Seconds per unit at the largest N and T, and per split (with the protocol's core-hours)."""
    largest = cells[(cells["N"] == cells["N"].max()) & (cells["T"] == cells["T"].max())]
    timing = largest.pivot_table(index="dataset", columns="method", values=["seconds", "n_levels"])
    timing.columns = [f"{value} {LABELS.get(method, method)}" for value, method in timing.columns]
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
    per_split, core_hours = split_times(records, cfg.protocol.repetitions)
    if not per_split.empty:
        lines += [
            "## Time per split",
            "",
            "Mean fit + predict seconds of one split (all its T and both methods, level 1 grown once), "
            f"over the splits whose units all ran in one job. At these rates the protocol's "
            f"{cfg.protocol.repetitions} repetitions take {core_hours:.2f} core-hours, i.e. about "
            f"{core_hours / 2:.2f} h of wall time on 2 cores.",
            "",
            per_split.reset_index()
            .pivot_table(index="dataset", columns="N", values="seconds per split")
            .to_markdown(floatfmt=".2f"),
            "",
        ]
    return lines


def disagreement_section(cells: pd.DataFrame) -> list[str]:
    """The ten cells farthest from the paper's values."""
    gaps = cells.dropna(subset=["paper"]).assign(gap=lambda f: f["mean"] - f["paper"])
    worst = gaps.reindex(gaps["gap"].abs().sort_values(ascending=False).index).head(10)
    return [
        "## Largest disagreements with the paper",
        "",
        worst[["dataset", "N", "T", "method", "n", "mean", "ci_half", "paper", "gap"]].to_markdown(
            index=False, floatfmt=".3f"
        ),
        "",
    ]


def tables_section(cells: pd.DataFrame) -> list[str]:
    """Every dataset's table in the paper's layout."""
    lines = ["## Tables", ""]
    for dataset in sorted(cells["dataset"].unique()):
        lines += [f"### {dataset}", "", layout(cells[cells["dataset"] == dataset]).to_markdown(), ""]
    return lines


def write_outputs(cfg: DictConfig) -> pd.DataFrame | None:
    """Tables and REPORT.md for this config's records; None if there are none yet."""
    check_headline_folder(cfg)
    output_dir = Path(cfg.runtime.output_dir)
    with exclusive_folder(output_dir):
        remove_leftovers(output_dir)
        return _write_outputs_holding_the_folder(cfg, output_dir)


def _write_outputs_holding_the_folder(cfg: DictConfig, output_dir: Path) -> pd.DataFrame | None:
    grid = record_grid(cfg)
    digest = grid.config_hash
    records = load_records(output_dir, grid)
    if records.empty:
        log.warning(f"No records for config {digest} under {output_dir / 'raw'}: nothing to tabulate.")
        return None
    cells = cell_table(records, pd.read_csv(PAPER_TABLES))
    source = {
        "config_hash": digest,
        "experiment": cfg.experiment_name,
        "records": len(records),
        "records_digest": records_digest(records.to_dict("records"), TIMING_FIELDS),
    }
    with new_generation(output_dir, source) as written:
        remove_other_tables(output_dir / "tables", set(cells["dataset"]), digest)
        written += write_tables(cells, output_dir / "tables")
        write_report(cells, cfg, output_dir, digest, records)
    log.info(f"Wrote {output_dir / 'tables'} and {output_dir / 'REPORT.md'}")
    return cells


def remove_other_tables(tables_dir: Path, datasets: set[str], digest: str) -> None:
    """Remove tables of datasets this config's records do not hold: they are another run's, and the
    folder's tables must all come from one set of records. Said in the log, never silent."""
    others = sorted(p for p in tables_dir.glob("[!.]*") if p.is_file() and p.stem not in datasets)
    for path in others:
        path.unlink()
    if others:
        log.warning(
            f"Removed {len(others)} table file(s) of other runs from {tables_dir} "
            f"({', '.join(sorted({p.stem for p in others}))}): not made from config {digest}'s records; "
            "rerun their config to tabulate them again"
        )


@hydra.main(version_base=None, config_path=CONFIG_PATH, config_name="config")
def main(cfg: DictConfig) -> None:
    try:
        run_interruptible(lambda: write_outputs(cfg), "the tables and REPORT.md")
    except (ValueError, FolderInUseError) as error:
        log.error(f"Nothing was written. {type(error).__name__}: {error}")
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
