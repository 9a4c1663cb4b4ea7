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
#: The most examples a tree of the capped cascades draws (their max_tree_samples), which
#: scripts/bench/bench_scale.py fits them with. Fixed before any capped fit: the training fold of a
#: 300,000-row fit (2 of its 3 folds), so that up to 300,000 rows their trees are the uncapped ones
#: and what the cap costs shows only above.
TREE_SAMPLE_CAP = 200_000
#: The largest n whose 3-fold training folds the cap leaves whole (n * 2/3 <= cap).
UNCAPPED_UP_TO = TREE_SAMPLE_CAP * 3 // 2
#: The methods in the tables' and the figure's order, with their names there.
METHOD_NAMES = {
    "gcforest": LABELS["gcforest"],
    "disdf": LABELS["disdf"],
    "gcforest_capped": f"{LABELS['gcforest']}, trees ≤ {TREE_SAMPLE_CAP // 1000}k rows",
    "disdf_capped": f"{LABELS['disdf']}, trees ≤ {TREE_SAMPLE_CAP // 1000}k rows",
    "gcforest_default": f"{LABELS['gcforest']}, estimator defaults",
    "disdf_default": f"{LABELS['disdf']}, estimator defaults",
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
    others = None
    if (context.root / DF21_MNIST_CSV).is_file():
        df21 = pd.read_csv(context.root / DF21_MNIST_CSV)
        markdown += df21_beyond_the_curve(measured, df21)
        others = other_timings(df21)
    return Rendered(markdown, figures={FIGURE: partial(draw_figure, measured, others)})


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
        *capped_reading(scale),
        "Fit time and peak resident memory (fit and prediction, the data included) against the number of "
        "training rows n, every method with 2 jobs on this 2-core machine, each fit in its own process "
        f"after a small warm-up fit (`make bench-scale`{when} → `{SCALE_CSV}`). The cascades use the "
        "full-MNIST settings (binned engine, T = 100; DisDF with the pair-sampling solver and its λ, τ "
        "grid); DF21 runs in its own venv, native mode (4 forests of 100 trees per layer); "
        "scikit-learn's forests have 100 trees. MNIST: the first n training images, scored on the "
        "10,000 test images; HIGGS-shaped: `make_classification` with 28 features and 2 classes, "
        "scored on 10,000 more rows. A curve goes up the sizes while its next fit, predicted from its "
        "own growth, fits in the time left of one fit's cap and the run's budget. A cell reads fit "
        'seconds / peak GiB / test accuracy, and "levels on disk" where the cascade kept its levels on '
        "disk (`--keep-fitted-levels disk`: the same trees, one level's in memory); — is a size not run "
        f"(the slopes table says why).{capped_note(scale)}{defaults_note(scale)}",
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


def capped_note(scale: pd.DataFrame) -> str:
    """What the capped curves are (a sentence), where the scale CSV has any."""
    if not scale["method"].str.endswith("_capped").any():
        return ""
    return (
        f" The capped cascades (dashed) grow every tree on at most {TREE_SAMPLE_CAP:,} of its fold's rows "
        f"(`max_tree_samples`, fixed before any capped fit): up to {UNCAPPED_UP_TO:,} rows their trees are "
        "the uncapped ones, so what the cap costs shows above."
    )


def defaults_note(scale: pd.DataFrame) -> str:
    """What the default curves are (a sentence), where the scale CSV has any."""
    if not scale["method"].str.endswith("_default").any():
        return ""
    return (
        " The cascades with the estimators' own defaults (`make bench-scale-defaults`: T = 100, the "
        '"fast" engine, DisDF\'s `frank_wolfe_away` on at most 5,000 drawn pairs per fold model) are '
        "the fits a user meets without settings."
    )


def capped_reading(scale: pd.DataFrame) -> list[str]:
    """Per capped cascade, at its largest n: its time, memory and accuracy beside the uncapped
    cascade's at that n where measured (a paragraph, or nothing)."""
    done = scale[scale["status"] == "ok"]
    parts = []
    for capped in [method for method in METHOD_NAMES if method.endswith("_capped")]:
        rows = done[done["method"] == capped]
        if rows.empty:
            continue
        row = rows.loc[rows["n_train"].idxmax()]
        uncapped = done[
            (done["method"] == capped.removesuffix("_capped"))
            & (done["problem"] == row["problem"])
            & (done["n_train"] == row["n_train"])
        ]
        beside = _measures(uncapped.iloc[0]) if len(uncapped) else "not measured"
        parts.append(
            f"{METHOD_NAMES[capped]} at n = {row['n_train']:,}: {_measures(row)} (without the cap: {beside})"
        )
    return [f"**Trees on at most {TREE_SAMPLE_CAP:,} rows:** {'; '.join(parts)}.", ""] if parts else []


def _measures(row: pd.Series) -> str:
    return (
        f"{row['fit_seconds'] / 60:.1f} min, {row['peak_memory_gib']:.2f} GiB, "
        f"accuracy {row['test_accuracy']:.3f}"
    )


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
    cell = f"{row['fit_seconds']:,.0f} s / {row['peak_memory_gib']:.2f} GiB / {row['test_accuracy']:.3f}"
    return cell + (" (levels on disk)" if row.get("keep_fitted_levels") == "disk" else "")


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


#: Each method's colour in the figure.
METHOD_COLORS = {
    "gcforest": "tab:blue",
    "disdf": "tab:red",
    "gcforest_capped": "tab:blue",
    "disdf_capped": "tab:red",
    "gcforest_default": "tab:cyan",
    "disdf_default": "tab:pink",
    "df21": "tab:green",
    "random_forest": "tab:purple",
    "extra_trees": "tab:orange",
}
MEASURES = {"fit_seconds": "fit time (s)", "peak_memory_gib": "peak memory (GiB)"}
#: Tick mantissas of the log axes: fit seconds span four decades, memory one or two.
TICK_SUBS = {"fit_seconds": (1.0, 3.0), "peak_memory_gib": (1.0, 2.0, 3.0, 5.0)}
OTHER_RUN = "DF21, another run (make bench-df21)"


def other_timings(df21: pd.DataFrame) -> pd.DataFrame:
    """DF21's MNIST timings from ``make bench-df21`` in the curve's mode (native, 2 jobs): the same
    script and setting measured on other days, in the curve's columns."""
    rows = df21[(df21["mode"] == "native") & (df21["n_jobs"] == 2)]
    return pd.DataFrame(
        {
            "problem": "mnist",
            "method": "df21",
            "n_train": rows["n_train"].astype(int),
            "fit_seconds": rows["fit_seconds"].astype(float),
            "peak_memory_gib": rows["peak_memory_gb"].astype(float),
            "date": rows["date"],
        }
    )


def repeated_spread(measured: pd.DataFrame, others: pd.DataFrame) -> pd.DataFrame:
    """Per (problem, method, n) timed more than once (the curve's and another run's): how many timings
    and the lowest and highest of each measure."""
    both = pd.concat([measured[others.columns.intersection(measured.columns)], others], ignore_index=True)
    grouped = both.groupby(["problem", "method", "n_train"])
    spread = grouped.agg(
        timings=("fit_seconds", "size"),
        fit_seconds_low=("fit_seconds", "min"),
        fit_seconds_high=("fit_seconds", "max"),
        peak_memory_gib_low=("peak_memory_gib", "min"),
        peak_memory_gib_high=("peak_memory_gib", "max"),
    ).reset_index()
    return spread[spread["timings"] > 1].reset_index(drop=True)


def plain_log_axis(axis, subs: tuple[float, ...] | None = None, ticks: list[float] | None = None) -> None:
    """A log axis read in plain numbers ("0.5", "300", "60,000"), never "2×10⁰": major ticks at
    ``ticks`` or at ``subs`` of each decade, no labelled minor ticks."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter

    axis.set_major_locator(FixedLocator(ticks) if ticks is not None else LogLocator(subs=subs))
    axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:,.0f}" if value >= 1 else f"{value:g}"))
    axis.set_minor_formatter(NullFormatter())


#: The legend's entry of the bars that join two timings of one point.
SPREAD_BAR = "two timings of one point (their range)"


def _measure_panel(
    ax, problem: str, measure: str, rows: pd.DataFrame, extra: pd.DataFrame, spread: pd.DataFrame, sizes: list
) -> None:
    """One problem's fit time or peak memory against n, log-log: a line per method, other runs'
    timings hollow, a point's spread as a pale bar."""
    label = MEASURES[measure]
    for method, name in METHOD_NAMES.items():
        curve = rows[rows["method"] == method].sort_values("n_train")
        color = METHOD_COLORS[method]
        if not curve.empty:
            style = "--" if method.endswith("_capped") else "-"
            ax.plot(curve["n_train"], curve[measure], style, marker="o", color=color, label=name)
        again = extra[extra["method"] == method]
        if not again.empty:
            ax.plot(again["n_train"], again[measure], "o", mfc="white", color=color, label=OTHER_RUN)
        if len(spread):
            bars = spread[(spread["problem"] == problem) & (spread["method"] == method)]
            ax.vlines(
                bars["n_train"],
                bars[f"{measure}_low"],
                bars[f"{measure}_high"],
                color=color,
                lw=9,
                alpha=0.4,
                zorder=1,
                label=SPREAD_BAR if len(bars) else None,
            )
    ax.set_xscale("log")
    ax.set_yscale("log")
    plain_log_axis(ax.xaxis, ticks=sizes)
    plain_log_axis(ax.yaxis, subs=TICK_SUBS[measure])
    ax.set_xlim(sizes[0] / 1.4, sizes[-1] * 1.4)
    ax.tick_params(axis="x", labelsize=8)
    ax.set_title(f"{PROBLEM_NAMES.get(problem, problem)}: {label.split(' (')[0]}", fontsize=10)
    ax.set_ylabel(label)
    ax.grid(alpha=0.3, which="major")


def scale_figure(measured: pd.DataFrame, others: pd.DataFrame | None = None):
    """Log-log fit time (top) and peak memory (bottom) against n, one panel per problem, a line per
    method; each point one timing, the other runs' timings of a point (``others``) hollow, joined to
    it by a bar (their spread). Every panel titled, plain tick labels, the legend below the panels."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    others = others if others is not None else measured.iloc[:0]
    spread = repeated_spread(measured, others) if len(others) else pd.DataFrame()
    problems = list(dict.fromkeys(measured["problem"]))
    fig, axes = plt.subplots(
        2, len(problems), figsize=(5.2 * len(problems), 7.4), squeeze=False, layout="constrained"
    )
    for column, problem in enumerate(problems):
        rows = measured[measured["problem"] == problem]
        extra = others[others["problem"] == problem]
        sizes = sorted(set(rows["n_train"]) | set(extra["n_train"]))
        for row, measure in enumerate(MEASURES):
            _measure_panel(axes[row][column], problem, measure, rows, extra, spread, sizes)
        axes[1][column].set_xlabel("training rows n")
    entries = {
        label: handle
        for ax in axes.flat
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True)
    }
    fig.legend(
        entries.values(), entries.keys(), loc="outside lower center", ncol=5, fontsize=8, frameon=False
    )
    repeated = (
        f"; hollow: another run's timing; a wide pale bar spans the timings of a point timed twice "
        f"({len(spread)} of them)"
        if len(spread)
        else ""
    )
    fig.suptitle(
        "Fit time and peak memory against n, log-log, 2 jobs on a 2-core VM whose speed varies up to 2× "
        f"by day:\neach point is one timing (one fit){repeated}",
        fontsize=10,
    )
    return fig


def draw_figure(measured: pd.DataFrame, others: pd.DataFrame | None, path: Path) -> None:
    """:func:`scale_figure` into ``path`` (a PNG)."""
    import matplotlib.pyplot as plt

    fig = scale_figure(measured, others)
    fig.savefig(path, dpi=120)
    plt.close(fig)


SECTION = Section("scale", f"{SCALE_CSV} and {SLOPES_CSV}", render)
