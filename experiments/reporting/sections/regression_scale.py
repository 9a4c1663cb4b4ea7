"""PERFORMANCE.md section "The regressor at 10⁴ and 10⁵ rows": fit time, CPU and peak memory of
``CascadeForestRegressor`` beside DF21's regressor and scikit-learn's, from what
``make bench-regression-scale`` (scripts/bench/bench_regression_scale.py) writes; this module only renders
:func:`experiments.analysis.regression_benchmark.scale_table`.

    python -m experiments.reporting.report --section regression_scale
"""

from __future__ import annotations

from experiments.analysis.regression_benchmark import SCALE_CSV, scale_table
from experiments.reporting.section import Rendered, ReportContext, Section
from experiments.reporting.sections.regression import NAMES
from experiments.safety.provenance import read_measurements

#: The rows' order: the cascades, DF21, scikit-learn's.
ORDER = (
    "disdf", "disdf_df21_level", "disdf_out_of_bag", "df21", "random_forest", "extra_trees",
    "hist_gradient_boosting",
)  # fmt: skip
#: The table's columns: (scale_table's column, its heading, its decimals).
COLUMNS = (
    ("fit_seconds", "fit s", 1),
    ("fit_cpu_seconds", "fit CPU s", 1),
    ("df21_cpu_ratio", "DF21's CPU ÷ its", 1),
    ("peak_memory_gib", "peak GiB", 2),
    ("estimate_grown_levels_gib", "memory check's estimate, GiB", 2),
    ("n_levels", "levels", 0),
    ("test_r2", "test R²", 4),
)


def render(context: ReportContext) -> Rendered | None:
    """One table per size; None before ``make bench-regression-scale`` has written its CSV."""
    path = context.root / SCALE_CSV
    if not path.is_file():
        return None
    table = scale_table(read_measurements(path))
    text = [
        "## The regressor at 10⁴ and 10⁵ rows",
        "",
        "Friedman's #1 (20 features, 5 informative, noise 1.0), scored on 10,000 more rows; every method "
        "with 2 jobs, each fit in its own process after a small warm-up fit, alone on this 2-core machine "
        f"(`make bench-regression-scale` → `{SCALE_CSV}`, each row stamped with its date and commit). The "
        "cascades have 100 trees per forest; scikit-learn's forests 400 trees (one level's budget). DF21 "
        "runs in its own venv; its CPU seconds are its process's. The memory check's estimate is given the "
        "levels the fit grew. — : not measured.",
    ]
    for n_train in sorted(set(table.index.get_level_values("n_train"))):
        at_size = table.xs(n_train, level="n_train")
        rows = at_size.reindex([method for method in ORDER if method in at_size.index])
        shown = rows.rename(index=NAMES).rename_axis(f"n = {n_train:,}")
        for column, heading, decimals in COLUMNS:
            shown[heading] = [_cell(value, decimals) for value in rows[column]]
        text += ["", shown[[heading for _, heading, _ in COLUMNS]].to_markdown()]
    return Rendered("\n".join(text))


def _cell(value: float, decimals: int) -> str:
    return "—" if value != value else f"{value:,.{decimals}f}"  # NaN: not measured


SECTION = Section("regression_scale", f"{SCALE_CSV} (make bench-regression-scale)", render)
