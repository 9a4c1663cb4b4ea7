"""REPORT.md's protocol section and the tables beside it: the method, the results (a summary and every
dataset's table). The run itself (units, wall time, timings, optimism, largest disagreements) is the
appendix's section :mod:`experiments.reporting.sections.run_details`.

The section of every output folder (the headline's and any other run's): it
reads that folder's records of the run's config and returns the tables as files
under ``tables/``; its records start a new generation of the folder's outputs
(:mod:`experiments.safety.generation`).
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pandas as pd

from experiments.analysis.cells import DATASET_NAMES, LABELS, PAPER_TABLES, cell_table
from experiments.analysis.plan import VARIANT_CELL_MARGIN_PP, VARIANT_MARGIN_PP
from experiments.reporting.section import Rendered, ReportContext, Section
from experiments.reporting.tables import layout, table_files, table_legend
from experiments.running.plan import RunPlan
from experiments.running.unit import TIMING_FIELDS
from experiments.safety.durable import read_json_lines
from experiments.safety.generation import records_digest
from experiments.safety.guards import writes_headline


def repetitions(counts: pd.Series) -> str:
    """ "100", or "2–3" when the cells differ."""
    low, high = int(counts.min()), int(counts.max())
    return f"{low}" if low == high else f"{low}–{high}"


def test_size_formula(fraction: float) -> str:
    """The test size as the protocol computes it: "round(2N/3)", "round(10N)", "round(0.37N)"."""
    exact = Fraction(fraction).limit_denominator(12)
    if abs(float(exact) - fraction) > 1e-12:
        return f"round({fraction:g}N)"
    if exact.denominator == 1:
        return f"round({exact.numerator}N)"
    return f"round({exact.numerator}N/{exact.denominator})"


def five_by_two_lines(cells: pd.DataFrame, plan: RunPlan) -> list[str]:
    """5 x 2-fold CV's protocol: the cap, the repeats and folds, and each table's rows and halves (from
    the records: each fold trains on one half of the rows used and tests on the other)."""
    cap = plan.protocol.Ns[0]
    halves = cells.groupby("dataset").agg(low=("n_test", "min"), high=("n_test_max", "max"))
    sizes = "; ".join(
        f"{DATASET_NAMES.get(d, d)} {r.low + r.high if r.low != r.high else 2 * r.low:,} ({r.low}/{r.high})"
        for d, r in halves.iterrows()
    )
    return [
        f"- Protocol: Dietterich's 5 × 2-fold cross-validation, T ∈ {list(plan.protocol.Ts)}. Each table is "
        f"cut to at most {cap:,} rows by a stratified subsample seeded by (dataset, cap, protocol.seed), "
        "then split 5 times into two stratified halves; each half trains once and tests once, so the 10 "
        "repetitions are the 10 folds (repetition r: repeat r // 2, fold r % 2), shared by every method.",
        f"- Rows used per table (its two halves: one trains while the other tests): {sizes}.",
    ]


def capped_test_note(cells: pd.DataFrame, plan: RunPlan) -> list[str]:
    """Cells whose test set is smaller than round(test_fraction N) because the dataset is too small."""
    expected = (cells["N"] * plan.protocol.test_fraction).round().astype(int)
    capped = cells[cells["n_test"] < expected].drop_duplicates(["dataset", "N"])
    return [
        f"- {DATASET_NAMES.get(row.dataset, row.dataset)}, N = {row.N}: only {row.n_test} test examples "
        f"(not {want}): the dataset cannot hold both sets, so the test set takes every remaining example."
        for row, want in zip(capped.itertuples(), expected[capped.index], strict=True)
    ]


def protocol_markdown(cells: pd.DataFrame, plan: RunPlan, digest: str, headline: bool = False) -> str:
    """The protocol's section: method, summary and tables; the headline's, the method and the accuracy
    against T (its tables are APPENDIX.md's section :mod:`~experiments.reporting.sections.cell_tables`)."""
    if headline:
        sections = [headline_method(cells, plan, digest), accuracy_figures(cells)]
    else:
        sections = [method_section(cells, plan, digest), summary_section(cells), tables_section(cells)]
    return "\n".join(line for section in sections for line in section)


#: Drawn by scripts/figures/plot_accuracy_vs_t.py (make figures) from the tables this section writes.
ACCURACY_FIGURE = "figures/accuracy_vs_T_{dataset}.png"


def accuracy_figures(cells: pd.DataFrame) -> list[str]:
    """The most direct comparison with the paper: each dataset's accuracy against T, both methods."""
    lines = [
        "## Results",
        "",
        "Accuracy against T, ours beside the paper's (the 16-cell tables: APPENDIX.md).",
        "",
    ]
    for dataset in sorted(cells["dataset"].unique()):
        name = DATASET_NAMES.get(dataset, dataset)
        lines += [f"![{name}: accuracy against T]({ACCURACY_FIGURE.format(dataset=dataset)})", ""]
    return lines


def code_lines(runs: list[dict]) -> list[str]:
    """Which code made the records, per run: the commit it started from (and whether the checkout had
    uncommitted changes then), the commit it ended at when the checkout moved; a run logged before the
    start was recorded gives only its end commit, and says so."""
    said = []
    for run in runs:
        when = run["started"][:16].replace("T", " ")
        if "start_commit" in run:
            state = "with uncommitted changes" if run["start_dirty"] else "clean"
            end = run.get("end_commit")
            moved = f"; the checkout was at `{end}` when it ended" if end else ""
            start = run["start_commit"]
            said.append(f"- Code of the run of {when}: started from `{start}` ({state}){moved}.")
        elif "commit" in run:
            said.append(
                f"- Code of the run of {when}: `{run['commit']}` at its end (its start commit was not "
                "recorded then; code committed during the run may not be the code that made its records)."
            )
        else:
            said.append(f"- Code of the run of {when}: not recorded (the run predates commit recording).")
    return said


def run_code_lines(folder, digest: str) -> list[str]:
    """Which code made this folder's records of config ``digest``: per run, its start commit and
    whether the checkout was dirty then (:func:`code_lines`)."""
    runs = [
        r
        for r in read_json_lines(Path(folder) / "runs.jsonl")
        if r.get("config_hash") == digest and not r.get("lost_summary")
    ]
    return code_lines(runs)


def method_section(cells: pd.DataFrame, plan: RunPlan, digest: str) -> list[str]:
    """The protocol, λ and τ, the solver and the forests, as configured."""
    model = plan.model
    return [
        "## Method",
        "",
        f"- Records: `raw/` beside this file, experiment `{plan.experiment_name}`, config `{digest}`; "
        f"{int(cells['n'].sum())} units, {repetitions(cells['n'])} repetitions per cell "
        f"(the protocol asks for {plan.protocol.repetitions}).",
        *(
            five_by_two_lines(cells, plan)
            if plan.protocol.split_scheme == "5x2cv"
            else [
                f"- Protocol: N ∈ {list(plan.protocol.Ns)}, T ∈ {list(plan.protocol.Ts)}, test size "
                f"{test_size_formula(plan.protocol.test_fraction)}, a split per (dataset, N, repetition) "
                "shared by every T and both methods; MNIST draws its test examples from its test split.",
                *capped_test_note(cells, plan),
            ]
        ),
        "- DisDF λ and τ: "
        + (
            f"chosen per level by out-of-fold accuracy on the training examples (tune=True) from "
            f"λ ∈ {list(model['tune_lambdas'])}, τ ∈ {list(model['tune_taus'])}; test data is never used."
            if model["tune"]
            else f"fixed, λ = {model['lambda_']}, τ = {model['tau']} (tune=False), chosen before any run. "
            "Out-of-fold tuning (tune=True) is measured on its own: on the first 30 splits of every cell "
            "(APPENDIX.md, “Tuned DisDF on the paper's datasets”) and on 43 other tables."
        ),
        f"- Weight solver: `{plan.solver['name']}` with {dict(plan.solver['options'])}.",
        f"- Forests: engine `{plan.model['engine']}` "
        + (
            "(compiled, `disdf/forests/_compiled/`), equivalent to scikit-learn's forests by a paired TOST, "
            f"pooled (margin ±{VARIANT_MARGIN_PP:g} pp) and in every cell tested "
            f"(±{VARIANT_CELL_MARGIN_PP:g} pp): "
            "`scripts/evidence/compare_engines.py` → `results/bench/engine_equivalence.csv`."
            if plan.model["engine"] == "fast"
            else "(scikit-learn's forests)."
        )
        + " Level 1 of a split is grown once for every T and both methods (exact: the first T trees of a "
        "forest are the T-tree forest with the same seed).",
        "- The paper chose λ by the best (test) results; its values are printed beside ours, not used.",
        *run_code_lines(plan.runtime.output_dir, digest),
        "",
    ]


#: What was fixed when, relative to the records (git history of results/raw and experiments/analysis).
HISTORY = (
    "The margin and every claim rule were set after the first 100-repetition records had been read "
    "(APPENDIX.md dates each step). Terms: [glossary](../docs/glossary.rst)."
)


def headline_method(cells: pd.DataFrame, plan: RunPlan, digest: str) -> list[str]:
    """The headline's method, compact: the protocol as configured, λ and τ, the engine, the history."""
    p = plan.protocol
    return [
        "## Method",
        "",
        f"gcF and DisDF on the paper's four datasets, every N ∈ {list(p.Ns)} and T ∈ {list(p.Ts)}, "
        f"{repetitions(cells['n'])} repetitions: each repetition draws a split of N training and "
        f"{test_size_formula(p.test_fraction)} test examples (MNIST: from its test split; Parkinsons at "
        "N = 120: every remaining example), seeded by (dataset, N, repetition) and shared by every T and "
        "both methods "
        f"(config `{digest}`). DisDF's λ = {plan.model['lambda_']:g} "
        f"and τ = {plan.model['tau']:g} were fixed before any run (the paper chose λ on test data); its "
        "out-of-fold vectors are cross-fitted, so no weight saw the label of the example it scores. "
        + HISTORY
        + " "
        + " ".join(line.removeprefix("- ") for line in run_code_lines(plan.runtime.output_dir, digest)),
        "",
    ]


def summary_section(cells: pd.DataFrame, headline: bool = False) -> list[str]:
    """Per dataset: DisDF against gcF (paired tests, when both ran), and the paper's values inside our CIs.
    The headline's REPORT.md has them in its verdict and claims sections: there only the heading."""
    if headline:
        return ["## Results", ""]
    paired = "verdict" in cells and cells["verdict"].notna().any()
    methods = [m for m in LABELS if m in set(cells["method"])]
    rows = []
    for dataset, group in cells.groupby("dataset"):
        with_paper = group.dropna(subset=["paper"])
        row = {
            "dataset": DATASET_NAMES.get(dataset, dataset),
            "cells": group[["N", "T"]].drop_duplicates().shape[0],
        }
        if paired:
            verdicts = group[group["method"] == "disdf"]["verdict"].value_counts()
            row["DisDF better / worse (Holm)"] = (
                f"{verdicts.get('DisDF better', 0)} / {verdicts.get('DisDF worse', 0)}"
            )
        row["paper's values inside our 95% CI"] = (
            f"{int(with_paper['paper_in_ci'].fillna(False).sum())}/{len(with_paper)}"
            if len(with_paper)
            else "–"
        )
        row[f"mean accuracy {' / '.join(LABELS[m] for m in methods)}"] = " / ".join(
            f"{group[group['method'] == m]['mean'].mean():.3f}" for m in methods
        )
        rows.append(row)
    return [
        "## Results",
        "",
        "Per dataset: cells where DisDF is significantly better / worse than gcF (paired Wilcoxon per cell, "
        "Holm within the dataset's cells), the paper's values inside the 95 % CI of our mean, and the mean "
        "accuracy over the cells."
        if paired
        else "Per dataset: the paper's values inside the 95 % CI of our "
        "mean, and the mean accuracy over the cells.",
        "",
        pd.DataFrame(rows).to_markdown(index=False),
        "",
    ]


def tables_section(cells: pd.DataFrame) -> list[str]:
    """Every dataset's table in the paper's layout (its name heads the first column), the legend first."""
    lines = [table_legend(cells), ""]
    for dataset in sorted(cells["dataset"].unique()):
        table = layout(cells[cells["dataset"] == dataset])
        table.index.name = f"{DATASET_NAMES.get(dataset, dataset)}: N"
        lines += [table.to_markdown(), ""]
    return lines


def tables_of_other_datasets(folder: Path, config_hash: str, datasets: set[str]) -> frozenset[str]:
    """The table files of datasets outside this run whose raw records in ``folder`` are of the same
    config: a run of this config on more datasets made them, and this run changed none of them."""
    kept = set()
    for path in sorted((folder / "tables").glob("[!.]*")):
        dataset = path.name.split(".")[0]
        raw = folder / "raw" / f"{dataset}.jsonl"
        if dataset in datasets or not path.is_file() or not raw.is_file():
            continue
        if any(isinstance(r, dict) and r.get("config_hash") == config_hash for r in read_json_lines(raw)):
            kept.add(path.relative_to(folder).as_posix())
    return frozenset(kept)


def render(context: ReportContext) -> Rendered | None:
    """The section and the tables of ``context.folder``'s records of ``context.plan``; None without any."""
    plan = context.plan
    if plan is None:
        raise ValueError("the protocol section reads a run's plan; the report was given none")
    grid = plan.grid
    records = context.folder_records(context.folder, grid)
    if records.empty:
        return None
    cells = cell_table(records, pd.read_csv(PAPER_TABLES), plan.protocol.split_scheme)
    source = {
        "config_hash": grid.config_hash,
        "experiment": plan.experiment_name,
        "records": len(records),
        "records_digest": records_digest(records.to_dict("records"), TIMING_FIELDS),
    }
    return Rendered(
        protocol_markdown(cells, plan, grid.config_hash, writes_headline(context.folder)),
        files=table_files(cells),
        source=source,
        replaces=("tables/",),
        keeps=tables_of_other_datasets(context.folder, grid.config_hash, set(cells["dataset"])),
        result=cells,
    )


SECTION = Section("protocol", "the folder's raw records of the run's config", render)
