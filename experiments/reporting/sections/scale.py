"""APPENDIX.md section "Growing data": fit time and peak memory against n for both cascades beside DF21
and scikit-learn's forests, their log-log slopes, where each curve stops and why, and a figure.

    python -m experiments.reporting.report --section scale   # after make bench-scale

Everything comes from what ``make bench-scale`` (scripts/bench/bench_scale.py) writes:
results/bench/scale.csv (one row per problem, method and size: measured, or why it was skipped) and
results/bench/scale_slopes.csv (per curve: the slopes of log time and log memory against log n).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pandas as pd

from experiments.analysis.cells import LABELS
from experiments.reporting.section import Rendered, ReportContext, Section
from experiments.safety.provenance import read_measurements

SCALE_CSV, SLOPES_CSV = Path("results/bench/scale.csv"), Path("results/bench/scale_slopes.csv")
#: DF21 on MNIST by ``make bench-df21`` (the same script and mode as the df21 curve, run on its own).
DF21_MNIST_CSV = Path("results/bench/df21_mnist.csv")
FIGURE = "figures/scale.png"
#: The methods in the tables' and the figure's order, with their names there.
METHOD_NAMES = {
    "gcforest": LABELS["gcforest"],
    "disdf": LABELS["disdf"],
    "df21": "DF21",
    "random_forest": "RandomForest",
    "extra_trees": "ExtraTrees",
}
PROBLEM_NAMES = {"mnist": "MNIST", "higgs_like": "HIGGS-shaped"}


def render(context: ReportContext) -> Rendered | None:
    """The section and its figure; None before ``make bench-scale`` has written both CSVs."""
    scale_path, slopes_path = context.root / SCALE_CSV, context.root / SLOPES_CSV
    if not (scale_path.is_file() and slopes_path.is_file()):
        return None
    scale, slopes = read_measurements(scale_path), read_measurements(slopes_path)
    measured = scale[scale["status"] == "ok"]
    markdown = section_markdown(scale, slopes)
    if (context.root / DF21_MNIST_CSV).is_file():
        markdown += df21_beyond_the_curve(measured, pd.read_csv(context.root / DF21_MNIST_CSV))
    return Rendered(markdown, figures={FIGURE: partial(draw_figure, measured)})


def measured_when(scale: pd.DataFrame) -> str:
    """ " on DATE, commit C", or every date and commit when the rows were measured in several runs."""
    if "date" not in scale or scale["date"].isna().all():
        return ""
    stamped = scale.dropna(subset=["date"])
    dates, commits = stamped["date"].unique(), stamped["commit"].unique()
    if len(commits) == 1:
        return f" on {', '.join(dates)}, commit {commits[0]}"
    return f" on {', '.join(dates)}, commits {', '.join(commits)}: each row's in the CSV"


def section_markdown(scale: pd.DataFrame, slopes: pd.DataFrame) -> str:
    """The section's text: how it was measured, one table per problem, the slopes and the stops."""
    when = measured_when(scale)
    lines = [
        "## Growing data",
        "",
        *reading(scale),
        "Fit time and peak resident memory (fit and prediction, the data included) against the number of "
        "training rows n, every method with 2 jobs on this 2-core machine, each fit in its own process "
        f"after a small warm-up fit (`make bench-scale`{when} → `{SCALE_CSV}`). The cascades use the "
        "full-MNIST settings (binned engine, T = 100; DisDF with the pair-sampling solver and its λ, τ "
        "grid); DF21 runs in its own venv, native mode (4 forests of 100 trees per layer); "
        "scikit-learn's forests have 100 trees. MNIST: the first n training images, scored on the "
        "10,000 test images; HIGGS-shaped: `make_classification` with 28 features and 2 classes, "
        "scored on 10,000 more rows. A curve goes up the sizes while its next fit, predicted from its "
        "own growth, fits in the time left of one fit's cap and the run's budget. A cell reads fit "
        "seconds / peak GiB / test accuracy; — is a size not run (the slopes table says why).",
        "",
        f"![Fit time and peak memory against n, log-log]({FIGURE})",
        "",
    ]
    for problem, rows in scale.groupby("problem", sort=False):
        lines += [
            f"{PROBLEM_NAMES.get(problem, problem)}:",
            "",
            size_table(rows).to_markdown(index=False, disable_numparse=True),
            "",
        ]
    lines += [
        f"Slopes of log time and log memory against log n (`numpy.polyfit`; `{SLOPES_CSV}`) and where "
        "each curve stops:",
        "",
        slopes_table(slopes).to_markdown(index=False, disable_numparse=True),
    ]
    return "\n".join(lines)


def reading(scale: pd.DataFrame) -> list[str]:
    """Per problem, at the largest n both cascades reached: their time and memory against
    scikit-learn's RandomForest at that n (a paragraph, or nothing)."""
    done = scale[scale["status"] == "ok"]
    parts = []
    for problem in dict.fromkeys(scale["problem"]):
        sizes = [
            set(done.loc[(done["problem"] == problem) & (done["method"] == method), "n_train"])
            for method in ("gcforest", "disdf", "random_forest")
        ]
        common = set.intersection(*sizes)
        if not common:
            continue
        n = max(common)
        at_n = done[(done["problem"] == problem) & (done["n_train"] == n)].set_index("method")
        rows = {method: at_n.loc[method] for method in ("gcforest", "disdf", "random_forest")}
        forest = rows["random_forest"]
        cascades = ", ".join(
            f"{LABELS[method]} {row['fit_seconds'] / 60:.1f} min and {row['peak_memory_gib']:.2f} GiB "
            f"({row['fit_seconds'] / forest['fit_seconds']:.0f}× and "
            f"{row['peak_memory_gib'] / forest['peak_memory_gib']:.1f}× RandomForest's)"
            for method, row in rows.items()
            if method != "random_forest"
        )
        parts.append(f"{PROBLEM_NAMES.get(problem, problem)} at n = {n:,}: {cascades}")
    return [f"**At the largest size both cascades reached:** {'; '.join(parts)}.", ""] if parts else []


def size_table(rows: pd.DataFrame) -> pd.DataFrame:
    """One problem's sizes (rows) by method (columns): 'seconds / GiB / accuracy', or — if not run."""
    sizes = sorted(rows["n_train"].unique())
    table = {"n": [f"{n:,}" for n in sizes]}
    for method in [method for method in METHOD_NAMES if method in set(rows["method"])]:
        cells = rows[rows["method"] == method].set_index("n_train")
        table[METHOD_NAMES[method]] = [_cell(cells, n) for n in sizes]
    return pd.DataFrame(table)


def _cell(cells: pd.DataFrame, n: int) -> str:
    if n not in cells.index or cells.loc[n, "status"] != "ok":
        return "—"
    row = cells.loc[n]
    return f"{row['fit_seconds']:,.0f} s / {row['peak_memory_gib']:.2f} GiB / {row['test_accuracy']:.3f}"


def slopes_table(slopes: pd.DataFrame) -> pd.DataFrame:
    """Per curve: the sizes it measured, its time and memory slopes, and why it stops where it does."""
    return pd.DataFrame(
        {
            "problem": slopes["problem"].map(lambda problem: PROBLEM_NAMES.get(problem, problem)),
            "method": slopes["method"].map(lambda method: METHOD_NAMES.get(method, method)),
            "sizes": [
                f"{row.n_points}: {row.n_min:,.0f} – {row.n_max:,.0f}" if row.n_points else "none"
                for row in slopes.itertuples()
            ],
            "time slope": slopes["time_slope"].map(_slope),
            "memory slope": slopes["memory_slope"].map(_slope),
            "stops": slopes["stops"],
        }
    )


def df21_beyond_the_curve(measured: pd.DataFrame, df21: pd.DataFrame) -> str:
    """DF21's MNIST sizes that ``make bench-df21`` measured and its curve here did not reach (a sentence,
    or nothing): the same script and mode, 2 jobs, on another day."""
    reached = set(measured.loc[(measured["problem"] == "mnist") & (measured["method"] == "df21"), "n_train"])
    rows = df21[
        (df21["mode"] == "native") & (df21["n_jobs"] == 2) & (df21["n_train"] > max(reached, default=0))
    ]
    if rows.empty:
        return ""
    sizes = "; ".join(
        f"{row.n_train:,} images: {row.fit_seconds:,.0f} s / {row.peak_memory_gb:.2f} GiB / "
        f"{row.test_accuracy:.3f} ({row.date})"
        for row in rows.itertuples()
    )
    return (
        f"\n\nDF21 on MNIST beyond its curve here, from `make bench-df21` (`{DF21_MNIST_CSV}`: the same "
        f"script, native mode and 2 jobs, another day): {sizes}."
    )


def _slope(value: float) -> str:
    return "—" if pd.isna(value) else f"{value:.2f}"


def draw_figure(measured: pd.DataFrame, path: Path) -> None:
    """Log-log fit time (top) and peak memory (bottom) against n, one panel per problem, a line per method."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    problems = list(dict.fromkeys(measured["problem"]))
    fig, axes = plt.subplots(2, len(problems), figsize=(5.0 * len(problems), 6.4), squeeze=False)
    for column, problem in enumerate(problems):
        rows = measured[measured["problem"] == problem]
        for method, name in METHOD_NAMES.items():
            curve = rows[rows["method"] == method].sort_values("n_train")
            if curve.empty:
                continue
            for row, measure in enumerate(("fit_seconds", "peak_memory_gib")):
                axes[row][column].plot(curve["n_train"], curve[measure], marker="o", label=name)
        axes[0][column].set_title(PROBLEM_NAMES.get(problem, problem))
        axes[0][column].set_ylabel("fit seconds")
        axes[1][column].set_ylabel("peak memory (GiB)")
        axes[1][column].set_xlabel("training rows n")
        for ax in axes[:, column]:
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.grid(alpha=0.3, which="both")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


SECTION = Section("scale", f"{SCALE_CSV} and {SLOPES_CSV}", render)
