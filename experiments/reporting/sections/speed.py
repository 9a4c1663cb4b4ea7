"""REPORT.md section "Speed": the protocol, one split, one tree and full MNIST, before and after.

    python -m experiments.reporting.sections.speed      # after the benchmarks (make bench) and runs it reads

Everything comes from files that commands write (none is typed in):

* results/runs.jsonl: wall time of every complete headline run (`make reproduce`/`regenerate`);
* results/bench/protocol_sample.csv (scripts/bench/bench_protocol.py): a sample of the protocol, end
  to end, per code version, and whether its records equal the headline's;
* results/bench/protocol_parts_ab*.csv (scripts/bench/bench_protocol_parts_ab.py): the protocol's
  core-minutes of two commits, run in alternation, and the non-inferiority test on them (a file per
  comparison);
* results/bench/split_breakdown.csv (scripts/bench/bench_split_breakdown.py): one split's seconds by part;
* results/bench/split_solves.csv (scripts/bench/bench_split_solves.py): one split's weight solves, old and
  new solver;
* results/bench/tree_floor.csv (scripts/bench/bench_tree_floor.py): per-tree time against scikit-learn
  and against the floor of the tree's operation count;
* results/mnist_full_history.csv (scripts/tools/mnist_full.py): every full-MNIST run, with its commit;
* results/bench/mnist_full_ab.csv (scripts/bench/bench_mnist_full_ab.py): full MNIST at two commits, one
  sitting;
* results/bench/df21_mnist.csv (scripts/bench/bench_df21.py, in DF21's own venv): DF21 on MNIST.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pandas as pd

from experiments.analysis.cells import LABELS
from experiments.analysis.timing_comparison import parts_ab_verdict
from experiments.paths import ROOT
from experiments.reporting.section import Rendered, ReportContext, Section
from experiments.safety.provenance import read_measurements

log = logging.getLogger(__name__)
RESULTS = ROOT / "results"
BENCH = RESULTS / "bench"
HEADLINE_UNITS = 12_800


def _read(path: Path) -> pd.DataFrame | None:
    return read_measurements(path) if path.exists() else None


def headline_runs(runs_file: Path) -> pd.DataFrame:
    """Complete headline runs (every unit run by one process): date, engine, n_jobs, wall minutes."""
    rows = []
    if runs_file.exists():
        for line in runs_file.read_text().splitlines():
            run = json.loads(line)
            if run.get("experiment") == "paper" and run.get("units_run") == HEADLINE_UNITS:
                rows.append(
                    {
                        "started": run["started"][:16].replace("T", " "),
                        "commit": run.get("start_commit", run.get("commit", "not recorded")),
                        "config": run["config_hash"],
                        "engine": run["engine"],
                        "n_jobs": run["n_jobs"],
                        "wall (min)": f"{run['wall_seconds'] / 60:.1f}",
                    }
                )
    return pd.DataFrame(rows)


def split_table(breakdown: pd.DataFrame) -> pd.DataFrame:
    """Seconds of one split by part, per dataset and code version (label)."""
    parts = [
        "seconds_per_split",
        "trees_seconds",
        "probabilities_seconds",
        "weights_seconds",
        "other_seconds",
    ]
    table = breakdown[["label", "dataset", *parts]].copy()
    table.columns = ["version", "dataset", "split (s)", "trees", "probabilities", "weights", "other"]
    return table.sort_values(["dataset", "version"], ascending=[True, False]).round(2)


PROTOCOL_PARTS = ("trees", "probabilities", "weights", "other")


def core_minutes_by_part(parts: pd.DataFrame) -> dict[str, float]:
    """The protocol's core-minutes by part: seconds per split x repetitions, summed over the cells
    (a CSV of scripts/bench/bench_protocol_parts.py)."""
    repetitions = parts["protocol_repetitions"]
    return {name: float((parts[f"{name}_seconds"] * repetitions).sum() / 60) for name in PROTOCOL_PARTS}


def protocol_parts_table(parts: pd.DataFrame, cores: int = 2) -> pd.DataFrame:
    """The protocol's core-minutes by part (:func:`core_minutes_by_part`), and its wall minutes on
    ``cores`` fully used cores as it is and with each part at zero cost."""
    minutes = core_minutes_by_part(parts)
    total = sum(minutes.values())
    rows = [
        {
            "part": name,
            "core-minutes": f"{minutes[name]:.1f}",
            "share": f"{minutes[name] / total:.0%}",
            f"wall on {cores} cores without it (min)": f"{(total - minutes[name]) / cores:.1f}",
        }
        for name in PROTOCOL_PARTS
    ]
    rows.append(
        {
            "part": "all",
            "core-minutes": f"{total:.1f}",
            "share": "100%",
            f"wall on {cores} cores without it (min)": f"{total / cores:.1f} (as it is)",
        }
    )
    return pd.DataFrame(rows)


def tree_table(floor: pd.DataFrame) -> pd.DataFrame:
    table = floor[
        ["dataset", "n", "kind", "fast_us_per_tree", "sklearn_us_per_tree", "floor_us_per_tree"]
    ].copy()
    table["fast / floor"] = floor["fast_over_floor"].map("{:.1f}".format)
    table["scikit-learn / fast"] = floor["sklearn_over_fast"].map("{:.1f}".format)
    table.columns = [
        "dataset",
        "n",
        "forest",
        "fast (µs)",
        "scikit-learn (µs)",
        "floor (µs)",
        *table.columns[6:],
    ]
    return table.round(1)


def mnist_table(history: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "commit": history["commit"],
            "date": history["date"],
            "engine": history["engine"],
            "weights": history.get("weight_fitting", pd.Series("", index=history.index)).fillna(""),
            "method": history["method"].map(LABELS),
            "levels": history["n_levels"],
            "fit (min)": (history["fit_seconds"] / 60).map("{:.1f}".format),
            "test accuracy [95% CI]": [
                f"{a:.4f} [{lo:.4f}, {hi:.4f}]"
                for a, lo, hi in zip(
                    history["test_accuracy"],
                    history["accuracy_ci_low"],
                    history["accuracy_ci_high"],
                    strict=True,
                )
            ],
            "peak memory (GiB)": history["peak_memory_gb"].map("{:.2f}".format),
        }
    )


def mnist_ab_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Per method: each version's full-MNIST fit minutes (every run, in order), accuracy and peak, and
    the candidate's mean fit time over the baseline's."""
    rows = []
    for method, by_method in runs.groupby("method", sort=False):
        means = by_method.groupby("version")["fit_seconds"].mean()
        row = {"method": LABELS.get(method, method)}
        for version in ("baseline", "candidate"):
            runs_of = by_method[by_method["version"] == version]
            label = f"{version} ({runs_of['version_commit'].iloc[0]})"
            row[f"{label}: fit (min)"] = ", ".join(f"{value / 60:.1f}" for value in runs_of["fit_seconds"])
            measures = zip(runs_of["test_accuracy"], runs_of["peak_memory_gb"], strict=True)
            row[f"{label}: accuracy / peak GiB"] = ", ".join(f"{a:.4f} / {m:.2f}" for a, m in measures)
        row["candidate / baseline"] = f"{means['candidate'] / means['baseline']:.3f}"
        rows.append(row)
    return pd.DataFrame(rows)


def mnist_ab_sentence(runs: pd.DataFrame) -> str:
    baseline = runs.loc[runs["version"] == "baseline", "version_commit"].iloc[0]
    pairs = runs["pair"].nunique()
    versions = runs.drop_duplicates("position").sort_values("position")["version"]
    letters = "".join("A" if version == "baseline" else "B" for version in versions)
    order = " ".join(letters[i : i + 2] for i in range(0, len(letters), 2))
    return (
        f"Full MNIST before and after, in one sitting (`python scripts/bench/bench_mnist_full_ab.py "
        f"--baseline {baseline} --record`: each commit's own `mnist_full.py experiment=mnist_full` from a "
        f"git worktree, after a warm-up of each, {pairs} pair{'s' if pairs > 1 else ''} in the order "
        f"{order}; results/bench/mnist_full_ab.csv). One sitting, because this VM's "
        "full-MNIST times wander by 2× between days (the history above); with one pair there is no "
        "interval, only the ratio:"
    )


def df21_table(df21: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "DF21 mode": df21["mode"],
            "version": df21["library_version"],
            "n_train": df21["n_train"],
            "trees per forest": df21["n_trees"],
            "n_jobs": df21["n_jobs"],
            "layers kept": df21["n_layers_built"],
            "fit (min)": (df21["fit_seconds"] / 60).map("{:.1f}".format),
            "test accuracy": df21["test_accuracy"].map("{:.4f}".format),
            "peak memory (GiB)": df21["peak_memory_gb"].map("{:.2f}".format),
            "date": df21["date"],
        }
    )


def df21_ratio_table(df21: pd.DataFrame, ours: pd.DataFrame) -> pd.DataFrame:
    """DF21's fit time over ours, per training size, for runs of the same date (this VM's speed
    changes by the day, so only a same-day pair is a ratio); the latest such date per size."""
    rows = []
    for (n_train, date), theirs in df21.groupby(["n_train", "date"], sort=True):
        same = ours[ours["n_train"].eq(n_train) & ours["date"].eq(date)]
        by_method = same.drop_duplicates("method", keep="last").set_index("method")
        if not {"gcforest", "disdf"} <= set(by_method.index):
            continue
        df21_fit = theirs["fit_seconds"].iloc[-1]
        row = {"n_train": n_train, "date": date, "DF21 fit (min)": f"{df21_fit / 60:.1f}"}
        for method, name in (("gcforest", "gcF"), ("disdf", "DisDF")):
            ours_fit = by_method.loc[method, "fit_seconds"]
            row[f"{name} fit (min)"] = f"{ours_fit / 60:.1f}"
            row[f"DF21 / {name}"] = f"{df21_fit / ours_fit:.1f}×"
        row["test accuracy DF21 / gcF / DisDF"] = " / ".join(
            f"{a:.4f}"
            for a in (
                theirs["test_accuracy"].iloc[-1],
                by_method.loc["gcforest", "test_accuracy"],
                by_method.loc["disdf", "test_accuracy"],
            )
        )
        rows.append(row)
    return pd.DataFrame(rows).drop_duplicates("n_train", keep="last") if rows else pd.DataFrame()


def _block(text: str, table: pd.DataFrame | None = None, heading: str | None = None) -> list[str]:
    """Lines of one part of the section: an optional heading, a paragraph, an optional table."""
    lines = [f"### {heading}", ""] if heading else []
    lines += [text, ""]
    if table is not None:
        lines += [table.to_markdown(index=False, disable_numparse=True) if len(table) else "(none)", ""]
    return lines


def _if_read(frame: pd.DataFrame | None, text: str, table, heading: str | None = None) -> list[str]:
    """A block with ``table(frame)`` under ``text``, or nothing when the CSV is not there."""
    return [] if frame is None else _block(text, table(frame), heading=heading)


def binned_sentence(binned: pd.DataFrame) -> str:
    is_summary = binned["slice"].astype(str).str.startswith("TOST")
    tost = binned[is_summary].iloc[0]
    slices = binned[binned["method"].eq("disdf") & ~is_summary]
    verdict = "equivalent." if bool(tost["equivalent"]) else "not shown equivalent."
    return (
        f"`engine=binned` against `fast` (`python scripts/evidence/compare_binned.py`): DisDF on "
        f"{len(slices)} random slices of {int(tost['n_train']):,} MNIST images, binned − fast test accuracy "
        f"{tost['mean']:+.3f} pp, 90 % CI [{tost['ci_low']:+.3f}, {tost['ci_high']:+.3f}], TOST p = "
        f"{tost['p_tost']:.2g} against the declared ±{tost['margin_pp']:g} pp: {verdict}"
    )


def kernel_table(kernel: pd.DataFrame) -> pd.DataFrame:
    wide = kernel.pivot_table(
        index=["kind", "n_examples", "n_trees"], columns="version", values="median_seconds"
    )
    wide["new / old"] = (wide["new"] / wide["old"]).map("{:.2f}".format)
    return wide.reset_index().round(4)


def _before_walls(sample: pd.DataFrame) -> str:
    """Wall seconds of the sample's 'before' rows per date: '2026-11-22: 145 s; 2026-11-23: 231–289 s'."""
    parts = []
    for date, walls in sample[sample["label"] == "before"].groupby("date")["wall_seconds"]:
        low, high = walls.min(), walls.max()
        parts.append(f"{date}: {low:.0f} s" if low == high else f"{date}: {low:.0f}–{high:.0f} s")
    return "; ".join(parts)


def speed_section(results: Path = RESULTS) -> str:
    """The section: the protocol's time, one split's and one tree's, then full MNIST beside DF21."""
    lines = ["## Speed", "", *protocol_blocks(results), *tree_blocks(results / "bench")]
    return "\n".join([*lines, *mnist_blocks(results)])


def protocol_blocks(results: Path) -> list[str]:
    """Whole runs, protocol samples and the protocol's time by part."""
    bench = results / "bench"
    lines = _block(
        "Complete headline runs (`make reproduce`, formerly `make regenerate`, 12,800 units; "
        "results/runs.jsonl):",
        headline_runs(results / "runs.jsonl"),
        heading="The protocol",
    )
    sample = _read(bench / "protocol_sample.csv")
    if sample is not None:
        lines += _block(
            "A sample of the protocol per code version, end to end (`python scripts/bench/bench_protocol.py "
            "--label L`: every cell's first R repetitions, as `make reproduce` runs them; projected = "
            "wall × 100 / R), and its records against the headline's, every result field. Compare rows "
            "of one date only, before and after alternating: this machine's speed changes from day to "
            f"day and within a day (the 'before' rows, by date: {_before_walls(sample)}). The CSV "
            "also names each row's library builds (column `libraries`, recorded since 2026-11-25).",
            sample.drop(columns="libraries", errors="ignore"),
        )
    parts = _read(bench / "protocol_parts.csv")
    if parts is not None:
        lines += _block(
            "Where the whole protocol's time goes (`python scripts/bench/bench_protocol_parts.py`: every "
            f"cell's split job on {parts['splits'].iloc[0]} headline splits, one core and one BLAS "
            f"thread, commit {parts['commit'].iloc[0]}, {parts['date'].iloc[0]}; core-minutes = "
            "seconds per split × repetitions, summed over the 16 cells). The last column is the wall "
            "time with that part free and the rest as it is: a lower bound for speeding up the rest.",
            protocol_parts_table(parts),
        )
    for path in sorted(bench.glob("protocol_parts_ab*.csv")):  # one comparison per file
        runs = _read(path)
        if runs is not None:
            lines += _block(parts_ab_sentence(runs, path.name), parts_ab_table(runs))
    return lines


def parts_ab_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Every run of scripts/bench/bench_protocol_parts_ab.py in its order: version, core-minutes by
    part, and the run's system CPU seconds."""
    table = runs[["position", "version", "version_commit", "core_minutes"]].copy()
    for part in PROTOCOL_PARTS:
        table[part] = runs[f"{part}_core_minutes"]
    table["system CPU (s)"] = runs["system_cpu_seconds"].map("{:.1f}".format)
    table["position"] += 1
    table.columns = ["run", "version", "commit", "core-minutes", *PROTOCOL_PARTS, "system CPU (s)"]
    return table.round(1)


def parts_ab_sentence(runs: pd.DataFrame, file_name: str = "protocol_parts_ab.csv") -> str:
    """The comparison's reason when its rows give one (``why``), its command, verdict and margin;
    ``file_name``: its file in results/bench/ (the command names it unless it is the script's default)."""
    verdict = parts_ab_verdict(runs)
    output = "" if file_name == "protocol_parts_ab.csv" else f" --output results/bench/{file_name}"
    commits = runs.groupby("version")["version_commit"].first()
    conclusion = "not worse." if verdict["not_worse"] else "not shown to be not worse."
    why = runs["why"].dropna().iloc[0] if "why" in runs and runs["why"].notna().any() else ""
    return (
        (f"{why.rstrip('.')}. " if why else "")
        + f"The protocol's core-minutes, {commits['candidate']} against {commits['baseline']}, each run by "
        "its own checkout's parts benchmark in alternation (`python scripts/bench/bench_protocol_parts_ab.py "
        f"--baseline {commits['baseline']} --pairs {verdict['pairs']}{output}`; AB BA ... so that a steady "
        f"drift of the machine charges both alike; {runs['date'].iloc[0]}): candidate / baseline "
        f"{verdict['ratio']:.3f}, 90 % CI [{verdict['ci_low']:.3f}, {verdict['ci_high']:.3f}] over "
        f"{verdict['pairs']} pairs; against the margin declared before measuring (+{verdict['margin']:.0%}), "
        f"non-inferiority p = {verdict['p']:.2g}: {conclusion}"
    )


def tree_blocks(bench: Path) -> list[str]:
    """One split by part, its weight solves, one tree against its floor, the tree kernel."""
    lines: list[str] = []
    breakdown = _read(bench / "split_breakdown.csv")
    lines += _if_read(
        None if breakdown is None or "label" not in breakdown else breakdown,
        "Seconds of one split at N = 120 (every T, both methods, level 1 shared), by part, one "
        "core and one BLAS thread (`python scripts/bench/bench_split_breakdown.py --label L`):",
        split_table,
        "One split",
    )
    solves = _read(bench / "split_solves.csv")
    if solves is not None:
        lines += _block(
            "DisDF's weight solves of one protocol split per dataset (N = 120, every T, both methods), "
            "replayed under each Frank-Wolfe setting in turn, one core (`python scripts/bench/"
            "bench_split_solves.py`; median of 3 rounds): `newton_adds_trees`, the default since "
            "2026-11-23, against `support_newton`, the solver before it. Both stop at the same duality "
            "gap; the last columns are the largest differences of weights and of J between them:",
            solves,
        )
    floor = _read(bench / "tree_floor.csv")
    if floor is not None:
        lines += _block(
            "Fit time per tree, one core (`python scripts/bench/bench_tree_floor.py`). The floor is the "
            "tree's element visits (every candidate feature's value of every example of every internal "
            "node, read once, plus the partition) times the time of one such visit in a compiled loop "
            "that does nothing else; the fast engine's distance to it is what sorting, threshold "
            "search and bookkeeping cost. The scikit-learn column, the same code in every run, shows "
            "how fast the machine was that day"
            + (
                f" (commit {floor['commit'].iloc[0]}, {floor['date'].iloc[0]})." if "commit" in floor else "."
            ),
            tree_table(floor),
            heading="One tree",
        )
    lines += _if_read(
        _read(bench / "grow_tree.csv"),
        "The tree kernel, old against new in one run, alternating "
        "(`python scripts/bench/bench_grow_tree.py --old-ref REV`; median seconds of `grow_forest` "
        "on MNIST images; `--check` compares every array of 242 forests):",
        kernel_table,
    )
    return lines


def mnist_blocks(results: Path) -> list[str]:
    """Every full-MNIST run, the binned engine's equivalence, and DF21 beside ours."""
    bench = results / "bench"
    lines: list[str] = []
    lines += _if_read(
        _read(results / "mnist_full_history.csv"),
        "Every run of `python scripts/tools/mnist_full.py experiment=mnist_full` (60,000 training "
        "images, T = 100, 2 cores; results/mnist_full_history.csv):",
        mnist_table,
        "Full MNIST",
    )
    paired = _read(bench / "mnist_full_ab.csv")
    if paired is not None:
        lines += _block(mnist_ab_sentence(paired), mnist_ab_table(paired))
    binned = _read(bench / "binned_equivalence.csv")
    if binned is not None:
        lines += _block(binned_sentence(binned))
    df21 = _read(bench / "df21_mnist.csv")
    if df21 is not None:
        lines += _block(
            "DF21 (`deep-forest-py310`) and ours on the same machine, the same first n training images "
            "and all 10,000 test images, 2 + 2 forests of 100 trees per layer, 2 jobs (`make bench-df21`; "
            "DF21 in a venv of its own: it pins scikit-learn < 1.6 and numpy < 2.4, so it cannot be an "
            "extra of this package). DF21's class vectors are out-of-bag estimates (ours: 3-fold), its "
            "extra trees draw √d features (ours: 1) and it bins every feature:",
            df21_table(df21),
        )
        ours = [_read(path) for path in sorted(bench.glob("ours_vs_df21_*.csv"))]
        if ours:
            ours_frame = pd.concat(ours, ignore_index=True).sort_values(["n_train", "date"], kind="stable")
            table = mnist_table(ours_frame.reset_index(drop=True))
            table.insert(0, "n_train", ours_frame["n_train"].to_numpy())
            lines += _block("Ours on the same images:", table)
            lines += _block(
                "Fit time, DF21 over ours (runs of one date; this VM's speed changes by the day):",
                df21_ratio_table(df21, ours_frame),
            )
    return lines


def render(context: ReportContext) -> Rendered | None:
    """The section, from the benchmark CSVs under ``results/bench`` and the headline's runs."""
    return Rendered(speed_section(context.root / "results"))


SECTION = Section(
    "speed", "results/bench/*.csv, results/runs.jsonl and results/mnist_full_history.csv", render
)
