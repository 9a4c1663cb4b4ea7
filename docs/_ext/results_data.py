"""Numbers in the docs are read from ``results/`` by the build, never typed by hand.

``.. results:: NAME [ARGUMENT]`` inserts the reStructuredText that generator NAME
writes from the committed results files (a table, a list or a sentence). A missing
or unreadable file is a build warning, so with ``-W`` a page never shows a number
its file no longer holds. Each page that uses a file is rebuilt when the file changes.
"""

from __future__ import annotations

import csv
import json
import re
import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "results"
DATASETS = ("parkinsons", "ecoli", "ionosphere", "mnist")
NAMES = {"parkinsons": "Parkinsons", "ecoli": "Ecoli", "ionosphere": "Ionosphere", "mnist": "MNIST"}
Generator = Callable[[str, Callable[[Path], None]], list[str]]
GENERATORS: dict[str, Generator] = {}


def generator(name: str) -> Callable[[Generator], Generator]:
    def register(function: Generator) -> Generator:
        GENERATORS[name] = function
        return function

    return register


def read_csv(path: Path, used: Callable[[Path], None]) -> list[dict[str, str]]:
    used(path)
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def read_jsonl(path: Path, used: Callable[[Path], None]) -> list[dict]:
    used(path)
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def list_table(header: Sequence[str], rows: Iterable[Sequence[object]], widths: str = "auto") -> list[str]:
    lines = [".. list-table::", "   :header-rows: 1", f"   :widths: {widths}", "   :class: results-table", ""]
    for row in [header, *rows]:
        cells = [str(cell) if str(cell) else "\\-" for cell in row]
        lines.append(f"   * - {cells[0]}")
        lines.extend(f"     - {cell}" for cell in cells[1:])
    return [*lines, ""]


def span(values: Sequence[float], fmt: str) -> str:
    low, high = min(values), max(values)
    return format(low, fmt) if format(low, fmt) == format(high, fmt) else f"{low:{fmt}}–{high:{fmt}}"


def pp(value: float) -> str:
    """Percentage points with a sign, the minus a typographic one."""
    return f"{value:+.2f}".replace("-", "−")


# --------------------------------------------------------------------------------------- generators
@generator("runs")
def runs(argument: str, used) -> list[str]:
    """Wall time of every committed run, per experiment folder (its runs.jsonl)."""
    rows = []
    for path in sorted(RESULTS.rglob("runs.jsonl")):
        for run in read_jsonl(path, used):
            if not run.get("wall_seconds"):
                continue
            folder = path.parent.relative_to(ROOT).as_posix()
            rows.append(
                (
                    f"``{folder}/``",
                    run.get("experiment", ""),
                    f"{run.get('units_run', 0):,}",
                    run.get("n_jobs", ""),
                    f"{run['wall_seconds'] / 60:.1f}",
                )
            )
    return list_table(("folder", "experiment", "units", "n_jobs", "wall time (min)"), rows, "40 25 10 10 15")


@generator("headline-verdicts")
def headline_verdicts(argument: str, used) -> list[str]:
    """Per dataset: cells where DisDF is significantly better / worse than gcF, our mean difference and the
    paper's (results/tables/<dataset>.csv, results/paper/paper_tables.csv)."""
    paper = defaultdict(dict)
    for r in read_csv(RESULTS / "paper" / "paper_tables.csv", used):
        paper[(r["dataset"], r["N"], r["T"])][r["method"]] = float(r["accuracy"])
    rows = []
    for name in DATASETS:
        table = [r for r in read_csv(RESULTS / "tables" / f"{name}.csv", used) if r["method"] == "disdf"]
        verdicts = [r["verdict"] for r in table]
        better, worse = sum("better" in v for v in verdicts), sum("worse" in v for v in verdicts)
        differences = [100 * float(r["difference"]) for r in table]
        theirs = [100 * (v["disdf"] - v["gcforest"]) for (d, _, _), v in paper.items() if d == name]
        rows.append(
            (
                NAMES[name],
                f"{better} / {worse} of {len(table)}",
                pp(statistics.mean(differences)),
                f"{pp(min(differences))} to {pp(max(differences))}",
                pp(statistics.mean(theirs)),
                f"{sum(t > 0 for t in theirs)} of {len(theirs)}",
            )
        )
    header = (
        "dataset",
        "cells: DisDF better / worse",
        "ours: mean DisDF − gcF (pp)",
        "ours: range over cells (pp)",
        "paper: mean DisDF − gcF (pp)",
        "paper: cells with DisDF ahead",
    )
    return list_table(header, rows)


@generator("headline-table")
def headline_table(argument: str, used) -> list[str]:
    """One dataset's table in the paper's layout (results/tables/<dataset>.md, from ``make tables``)."""
    path = RESULTS / "tables" / f"{argument}.md"
    used(path)
    header, *rows = markdown_tables(path.read_text())[0]
    return list_table(header, rows)


def markdown_tables(text: str) -> list[list[list[str]]]:
    """The pipe tables of a Markdown text, each a list of rows of cells (the separator row dropped)."""
    tables, current = [], []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if not all(re.fullmatch(r":?-+:?", cell) for cell in cells):
                current.append(cells)
        elif current:
            tables.append(current)
            current = []
    return tables


def tost_columns(r: dict) -> tuple[str, ...]:
    """A TOST row's cells (scripts/evidence/two_run_equivalence.py's columns): paired splits, margin,
    mean difference, its 90 % interval, the TOST p-value and the verdict."""
    return (
        r["pairs"],
        f"±{float(r['margin_pp']):g}",
        pp(float(r["difference_pp"])),
        f"[{float(r['ci90_low_pp']):+.2f}, {float(r['ci90_high_pp']):+.2f}]",
        f"{float(r['p_tost']):.1e}",
        "equivalent" if r["equivalent"] == "True" else "not shown equivalent",
    )


@generator("engine-equivalence")
def engine_equivalence(argument: str, used) -> list[str]:
    """fast − sklearn per cell and pooled, with the TOST (results/bench/engine_equivalence.csv)."""
    rows = []
    for r in read_csv(RESULTS / "bench" / "engine_equivalence.csv", used):
        cell = (
            "pooled (per split)"
            if r["dataset"] == "all"
            else f"{NAMES[r['dataset']]}, N = {r['N']}, {r['method']}"
        )
        rows.append((cell, *tost_columns(r)))
    header = ("cell", "paired splits", "margin (pp)", "fast − sklearn (pp)", "90 % CI", "TOST p", "verdict")
    return list_table(header, rows)


@generator("pair-draws")
def pair_draws(argument: str, used) -> list[str]:
    """drawn − every pair per cell and pooled per part, with the TOST (results/bench/pair_draws.csv)."""
    rows = []
    for r in read_csv(RESULTS / "bench" / "pair_draws.csv", used):
        where = "pooled (per split)" if r["dataset"] == "all" else f"{NAMES[r['dataset']]}, N = {r['N']}"
        rows.append((f"{r['part']}: {where}", r["max_pairs"], *tost_columns(r)))
    header = (
        "part: cell", "max_pairs", "paired splits", "margin (pp)", "drawn − every pair (pp)", "90 % CI",
        "TOST p", "verdict",
    )  # fmt: skip
    return list_table(header, rows)


def estimate_spans(rows: list[dict[str, str]], key: Sequence[str], ratios: Sequence[str]) -> list[tuple]:
    """Rows of a memory-estimate CSV grouped by the ``key`` columns: each group's key, then the span of
    its n, its peaks and each of its ``ratios`` columns."""
    groups: dict[tuple[str, ...], list[dict[str, str]]] = {}
    for r in rows:
        groups.setdefault(tuple(r[column] for column in key), []).append(r)
    return [
        (
            *setting,
            span([int(r["n_train"]) for r in group], ","),
            span([float(r["peak_gib"]) for r in group], ".2f"),
            *(span([float(r[ratio]) for r in group], ".2f") for ratio in ratios),
        )
        for setting, group in groups.items()
    ]


@generator("memory-estimate")
def memory_estimate(argument: str, used) -> list[str]:
    """The memory check's estimate over the measured peak, per setting across n and n_jobs
    (results/bench/memory_estimate.csv): at the depth the fit grew, and before it (max_levels)."""
    rows = estimate_spans(
        read_csv(RESULTS / "bench" / "memory_estimate.csv", used),
        ("method", "solver", "max_pairs", "keep_fitted_levels"),
        ("ratio_at_depth", "ratio"),
    )
    header = (
        "method", "solver", "max_pairs", "levels kept", "n", "peak (GiB)",
        "estimate / peak at the depth grown", "before the fit (max_levels)",
    )  # fmt: skip
    return list_table(header, rows)


@generator("memory-estimate-holdout")
def memory_estimate_holdout(argument: str, used) -> list[str]:
    """The revised model on fits it never saw: the scale benchmark's cascades, per problem, settings
    and levels kept (results/bench/memory_estimate_holdout.csv)."""
    rows = estimate_spans(
        read_csv(RESULTS / "bench" / "memory_estimate_holdout.csv", used),
        ("problem", "method", "keep_fitted_levels"),
        ("ratio_at_depth",),
    )
    header = ("problem", "settings", "levels kept", "n", "peak (GiB)", "estimate / peak at the depth grown")
    return list_table(header, rows)


@generator("solvers")
def solvers(argument: str, used) -> list[str]:
    """Each solver on the benchmark's problems: time, objective reached against qp's, status."""
    by_solver = defaultdict(list)
    for r in read_csv(RESULTS / "bench" / "solvers.csv", used):
        by_solver[r["solver"]].append(r)
    rows = []
    for solver, entries in by_solver.items():
        excess = [float(r["excess"]) for r in entries]
        statuses = sorted({r["status"] for r in entries})
        rows.append(
            (
                f"``{solver}``",
                len(entries),
                span([1000 * float(r["seconds"]) for r in entries], ".3g"),
                f"{statistics.median(excess):.1e}",
                f"{max(excess):.1e}",
                ", ".join(statuses),
            )
        )
    header = (
        "solver (setting)",
        "problems",
        "time (ms)",
        "median excess (J − J*)/J*",
        "largest excess",
        "status",
    )
    return list_table(header, rows)


@generator("stochastic-fw")
def stochastic_fw(argument: str, used) -> list[str]:
    """stochastic_frank_wolfe's excess over the exact optimum by iterations and batch size."""
    groups = defaultdict(list)
    for r in read_csv(RESULTS / "bench" / "stochastic_fw.csv", used):
        groups[(int(r["max_iter"]), int(r["batch_size"]))].append(r)
    rows = [
        (
            k,
            b,
            span([100 * float(r["mean_excess"]) for r in entries], ".2g"),
            span([float(r["seconds"]) for r in entries], ".2g"),
            span([float(r["batch_mb"]) for r in entries], ".2g"),
            span([float(r["all_pairs_mb"]) for r in entries], ".3g"),
        )
        for (k, b), entries in sorted(groups.items())
    ]
    header = ("iterations K", "batch B", "mean excess (%)", "time (s)", "batch memory (MB)", "all pairs (MB)")
    return list_table(header, rows)


@generator("binned-equivalence")
def binned_equivalence(argument: str, used) -> list[str]:
    """The TOST of engine='binned' against 'fast' (results/bench/binned_equivalence.csv), one sentence."""
    rows = read_csv(RESULTS / "bench" / "binned_equivalence.csv", used)
    test = next(r for r in rows if r["p_tost"])
    slices = sum(1 for r in rows if not r["p_tost"] and r["method"] == test["method"])
    return [
        f"On {slices} MNIST slices of {int(test['n_train']):,} training images, paired on the seeds, "
        f"DisDF's binned − fast accuracy is {pp(float(test['mean']))} pp (90 % CI "
        f"{float(test['ci_low']):+.2f} to {float(test['ci_high']):+.2f}): equivalent within the "
        f"±{float(test['margin_pp']):g} pp declared first (TOST p = {float(test['p_tost']):.1g}).",
        "",
    ]


@generator("predictor-comparison")
def predictor_comparison(argument: str, used) -> list[str]:
    """gcF with a predictor on top against none on KEEL tables (results/bench/predictor.csv, written by
    scripts/evidence/compare_predictor.py): a table of the mean differences over tables and the tables
    whose own interval excludes 0."""
    rows = read_csv(RESULTS / "bench" / "predictor.csv", used)
    splits = [r for r in rows if not r["contrast"]]
    summary = [r for r in rows if r["contrast"]]
    tables = sorted({r["table"] for r in splits})
    table_rows = []
    for overall in (r for r in summary if r["table"] == "mean over tables"):
        own = [r for r in summary if r["contrast"] == overall["contrast"] and r is not overall]
        apart = [
            f"{r['table']} ({pp(float(r['mean_pp']))})"
            for r in own
            if float(r["ci_low_pp"]) > 0 or float(r["ci_high_pp"]) < 0
        ]
        table_rows.append(
            [
                f"``{overall['predictor']}``",
                f"{pp(float(overall['mean_pp']))} ({pp(float(overall['ci_low_pp']))} to "
                f"{pp(float(overall['ci_high_pp']))})",
                ", ".join(apart) or "none",
            ]
        )
    fits = [r for r in splits if r["predictor"] == "logistic"]
    stopped = sum(int(r["convergence_warnings"]) > 0 for r in fits)
    return [
        f"gcF with T = {splits[0]['n_trees']} on {len({r['split'] for r in splits})} stratified 70/30 splits "
        f"of each of {len(tables)} KEEL tables ({', '.join(tables)}), the same cascade under every top; "
        "test accuracy minus ``predictor=None``'s, percentage points, with its 95 % interval over the "
        "tables, and the tables whose own (Nadeau-Bengio corrected) interval excludes 0. The unscaled "
        f"logistic regression stopped at ``max_iter`` in {stopped} of its {len(fits)} fits.",
        "",
        *list_table(["predictor", "over tables (95 % CI)", "tables apart from 0"], table_rows, "25 35 40"),
    ]


@generator("extra-trees")
def extra_trees(argument: str, used) -> list[str]:
    """The fast engine's extremely randomised trees against scikit-learn's (one sentence)."""
    pooled = next(
        r for r in read_csv(RESULTS / "bench" / "extra_trees_engines.csv", used) if r["dataset"] == "pooled"
    )
    return [
        f"Pooled over {pooled['splits']} headline splits, fast − sklearn is "
        f"{pp(float(pooled['fast_minus_sklearn_pp']))} ± {float(pooled['ci95_half_pp']):.2f} pp "
        f"(margin ±{float(pooled['tost_margin_pp']):g} pp, "
        f"{'equivalent' if pooled['equivalent'] == 'True' else 'not shown equivalent'}).",
        "",
    ]


@generator("mnist-full")
def mnist_full(argument: str, used) -> list[str]:
    """gcF and DisDF on all of MNIST (results/mnist_full.csv) and the fit times of every run of the same
    settings (results/mnist_full_history.csv)."""
    history = read_csv(RESULTS / "mnist_full_history.csv", used)
    rows = []
    for r in read_csv(RESULTS / "mnist_full.csv", used):
        same = ("method", "n_train", "engine", "weight_fitting", "solver")
        fits = [float(h["fit_seconds"]) / 60 for h in history if all(h.get(k) == r[k] for k in same)]
        rows.append(
            (
                r["method"],
                f"{int(r['n_train']):,}",
                r["n_levels"],
                f"{float(r['test_accuracy']):.4f} [{float(r['accuracy_ci_low']):.4f}, "
                f"{float(r['accuracy_ci_high']):.4f}]",
                f"{float(r['fit_seconds']) / 60:.1f}",
                f"{span(fits, '.1f')} ({len(fits)} runs)" if fits else "",
                f"{float(r['peak_memory_gb']):.2f}",
                f"``{r['engine']}``, ``{r['solver']}``",
            )
        )
    header = (
        "method",
        "training images",
        "levels kept",
        "test accuracy [95 % CI]",
        "fit (min)",
        "fit, every run (min)",
        "peak GiB",
        "engine, solver",
    )
    return list_table(header, rows)


@generator("mnist-mcnemar")
def mnist_mcnemar(argument: str, used) -> list[str]:
    """The exact McNemar test of DisDF against gcF on the same test images (one sentence)."""
    row = next(r for r in read_csv(RESULTS / "mnist_full.csv", used) if r["mcnemar_p"])
    return [
        f"On the same test images DisDF alone is right on {row['only_disdf_right']}, gcF alone on "
        f"{row['only_gcforest_right']} (exact McNemar p = {float(row['mcnemar_p']):.2f}).",
        "",
    ]


@generator("df21")
def df21(argument: str, used) -> list[str]:
    """DF21 (deep-forest-py310) and ours on the same MNIST images (results/bench/)."""
    rows = []
    for r in read_csv(RESULTS / "bench" / "df21_mnist.csv", used):
        n = int(r["n_train"])
        rows.append(
            (
                "DF21",
                f"{n:,}",
                f"{float(r['fit_seconds']) / 60:.1f}",
                r["test_accuracy"],
                f"{float(r['peak_memory_gb']):.2f}",
            )
        )
        ours = RESULTS / "bench" / f"ours_vs_df21_{n}.csv"
        if ours.exists():
            for o in read_csv(ours, used):
                rows.append(
                    (
                        f"ours, {o['method']}",
                        f"{n:,}",
                        f"{float(o['fit_seconds']) / 60:.1f}",
                        f"{float(o['test_accuracy']):.4f}",
                        f"{float(o['peak_memory_gb']):.2f}",
                    )
                )
    return list_table(("library", "training images", "fit (min)", "test accuracy", "peak GiB"), rows)


@generator("exact-pairs-memory")
def exact_pairs_memory(argument: str, used) -> list[str]:
    """What the exact solvers would need on a full-MNIST fold model's held-out set (computed)."""
    row = read_csv(RESULTS / "mnist_full.csv", used)[0]
    n, trees, classes, folds = int(row["n_train"]), int(row["n_trees"]), 10, 3
    held_out = n // folds
    pairs = (held_out**2 - classes * (held_out // classes) ** 2) // 2
    gigabytes = pairs * trees * 8 / 1e9
    return [
        f"A fold model of the full-MNIST run holds out {held_out:,} examples: with {classes} balanced "
        f"classes that is {pairs:.2g} different-class pairs, whose rows :math:`Q_{{ij}}` of {trees} "
        f"trees take {gigabytes:.0f} GB in float64.",
        "",
    ]


@generator("report-sections")
def report_sections(argument: str, used) -> list[str]:
    """The headings of results/REPORT.md, as the report code wrote them."""
    path = RESULTS / "REPORT.md"
    used(path)
    lines = []
    for heading in re.findall(r"^(##+) (.+)$", path.read_text(), flags=re.MULTILINE):
        depth, title = len(heading[0]) - 2, heading[1].replace("*", "\\*").replace("`", "``")
        lines.append(f"{'  ' * depth}- {title}")
    return [*lines, ""]


@generator("paper-cell")
def paper_cell(argument: str, used) -> list[str]:
    """One cell (dataset, N, T) of the headline table: our mean per method and the paper's value."""
    dataset, N, T = argument.split()
    rows = [
        (
            NAMES[dataset],
            r["N"],
            r["T"],
            r["method"],
            f"{float(r['mean']):.3f} ± {float(r['ci_half']):.3f}",
            r["n"],
            r["paper"],
        )
        for r in read_csv(RESULTS / "tables" / f"{dataset}.csv", used)
        if r["N"] == N and r["T"] == T
    ]
    return list_table(("dataset", "N", "T", "method", "our mean ± 95 % CI", "repetitions", "paper"), rows)


# ---------------------------------------------------------------------------------------- directive
class ResultsDirective(SphinxDirective):
    """``.. results:: NAME [ARGUMENT]``: the generator's reStructuredText, from the results files."""

    required_arguments = 1
    optional_arguments = 3
    final_argument_whitespace = True

    def run(self) -> list[nodes.Node]:
        name, argument = self.arguments[0], " ".join(self.arguments[1:])
        if name not in GENERATORS:
            raise self.error(f"results: unknown generator {name!r}; known: {sorted(GENERATORS)}")

        def used(path: Path) -> None:
            self.env.note_dependency(str(path))

        try:
            lines = GENERATORS[name](argument, used)
        except (OSError, KeyError, ValueError, StopIteration, IndexError) as error:
            raise self.error(
                f"results {name} {argument}: cannot read the results files ({error!r})"
            ) from error
        container = nodes.container(classes=["results-data"])
        self.state.nested_parse(StringList(lines, source=f"results:{name}"), self.content_offset, container)
        return [container]


def setup(app: Sphinx) -> dict[str, object]:
    app.add_directive("results", ResultsDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
