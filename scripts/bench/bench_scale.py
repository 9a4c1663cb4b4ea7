"""How fit time and peak memory grow with n: gcForest and DisDF beside scikit-learn's forests and DF21.

    python scripts/bench/bench_scale.py --record   # -> results/bench/scale.csv and scale_slopes.csv

(without ``--record``: build/bench/; ``make bench-scale`` records). Two problems: the first n MNIST
training images (scored on the 10,000 test images) and a synthetic problem shaped like HIGGS
(``make_classification``: 28 features, two classes, 10 informative and 8 redundant ones, 10 % of the
labels flipped; scored on 10,000 more rows). Methods: the cascades with the full-MNIST experiment's
settings (``experiment=mnist_full``: engine "binned", the pair-sampling solver, T = 100; asked by
name, ``gcforest_capped`` and ``disdf_capped``: the same with ``max_tree_samples`` =
:data:`TREE_SAMPLE_CAP`; ``gcforest_default`` and ``disdf_default``: the estimators' own defaults,
T = 100, as a user meets them),
scikit-learn's RandomForest and ExtraTrees of ``--sklearn-trees`` trees, and DF21 (the ``deep-forest``
library) in its native mode (scripts/bench/bench_df21.py: its own layers and binned trees, 4 forests
of 100 trees per layer), all with ``--n-jobs``.

DF21 cannot be installed beside disdf, so it runs in the venv ``make bench-df21`` creates
(``--df21-python``, default build/df21-venv/bin/python of this checkout): the fit's process writes
the problem's arrays to a temporary ``numpy.savez`` file and runs ``bench_df21.py --npz FILE --json``
in that venv's python, which prints this script's measures as one JSON line (its ``libraries``
stamp: that venv's builds). Without that python
the df21 curve's rows say "DF21 venv not found: make bench-df21 creates it", and the rest runs.

Each fit runs in a fresh process, after a small warm-up fit (30 examples per class) that compiles the
engine's code or reads it from numba's cache, so that no size's time holds the compilation. Its peak
resident memory (``ru_maxrss``, fit and prediction, the data included) is its own (DF21's: that of the
venv's process). A curve (problem, method) goes up the sizes until the next size's fit would not end
within the time left of ``--budget-minutes`` or ``--max-run-minutes``, predicted from the curve's own
growth (the slope of its last two sizes, or ``--assumed-slope`` after one); the skipped sizes are rows
with ``status`` saying why. ``--resume`` keeps the sizes the output file measured already (its ``ok``
rows, as written) and runs the rest, so an interrupted benchmark goes on where it stopped; skipped sizes
are tried again, and the rows of curves and sizes not asked for this time stay as they are (a row taken
out of the file is measured again). ``--keep-fitted-levels disk`` fits the cascades with their levels on
disk (the same trees; one level's in memory: column ``keep_fitted_levels``), as a fit that would
not fit in memory must. ``scale_slopes.csv``: per curve, the slopes of log time and log
memory against log n (``numpy.polyfit``) and where the curve stops and why.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse
import json
import shutil
import subprocess
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import numpy as np
import pandas as pd
from sklearn.base import clone

from disdf.utils import peak_memory_gib
from experiments.reporting.sections.scale import TREE_SAMPLE_CAP  # one cap for the fits and their report
from scripts.bench_output import add_record_flag, bench_output, write_csv

PROBLEMS = {
    "mnist": (5_000, 10_000, 20_000, 60_000),
    "higgs_like": (10_000, 30_000, 100_000, 300_000, 1_000_000),
}
METHODS = ("gcforest", "disdf", "random_forest", "extra_trees", "df21")
#: The cascades with their trees capped at TREE_SAMPLE_CAP examples (asked by name, not run by default).
CAPPED_METHODS = {"gcforest_capped": "gcforest", "disdf_capped": "disdf"}
#: The cascades as a user meets them: the estimator's defaults, T = 100 (asked by name).
DEFAULT_METHODS = {"gcforest_default": "CascadeForestClassifier", "disdf_default": "DisDFClassifier"}
N_TEST = 10_000
ROOT = Path(__file__).resolve().parents[2]
#: The python of the venv ``make bench-df21`` creates (the Makefile's DF21_VENV), and the script it runs.
DF21_PYTHON = ROOT / "build" / "df21-venv" / "bin" / "python"
DF21_SCRIPT = Path(__file__).resolve().with_name("bench_df21.py")
DF21_MISSING = "DF21 venv not found: make bench-df21 creates it"
ARRAYS = ("X_train", "y_train", "X_test", "y_test")
#: Under which ``--keep-fitted-levels disk`` writes a fit's levels (removed after the fit): a 10^6-row
#: gcForest writes about 5 GB per level, more than a small /tmp holds.
DISK_LEVELS = ROOT / "build" / "scale_levels"
#: Examples per class of the warm-up fit before the timed one (fit_once).
WARM_UP_PER_CLASS = 30


def problem_data(problem: str, n_train: int, data_dir: str | None) -> tuple[np.ndarray, ...]:
    """(X_train, y_train, X_test, y_test), X as float32 (what every forest here reads)."""
    if problem == "mnist":
        from experiments.drivers.full_mnist import mnist_float32

        return mnist_float32(data_dir, n_train, N_TEST)
    from sklearn.datasets import make_classification

    X, y = make_classification(
        n_samples=n_train + N_TEST, n_features=28, n_informative=10, n_redundant=8, n_classes=2,
        flip_y=0.1, random_state=0,
    )  # fmt: skip
    X = X.astype(np.float32)
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def make_method(method: str, n_jobs: int, sklearn_trees: int, keep_fitted_levels: str = "memory"):
    if method in CAPPED_METHODS:
        estimator = make_method(CAPPED_METHODS[method], n_jobs, sklearn_trees, keep_fitted_levels)
        return estimator.set_params(max_tree_samples=TREE_SAMPLE_CAP)
    if method in ("random_forest", "extra_trees"):
        from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier

        cls = RandomForestClassifier if method == "random_forest" else ExtraTreesClassifier
        return cls(n_estimators=sklearn_trees, n_jobs=n_jobs, random_state=0)
    if method in DEFAULT_METHODS:
        import disdf

        estimator = getattr(disdf, DEFAULT_METHODS[method])(n_trees=100, n_jobs=n_jobs, random_state=0)
    else:
        from experiments.running.composition import compose_config, estimator_specs
        from experiments.running.protocol import Unit
        from experiments.running.unit import make_estimator

        cfg = compose_config("experiment=mnist_full")
        specs = estimator_specs(cfg, [method])
        unit = Unit("scale", 0, cfg.full_mnist.n_trees, method, 0)
        estimator = make_estimator(unit, specs, cfg.full_mnist.seed).set_params(n_jobs=n_jobs)
    if keep_fitted_levels == "disk":  # the same trees, one level's in memory (the folder: fit_once's)
        DISK_LEVELS.mkdir(parents=True, exist_ok=True)
        estimator.set_params(keep_fitted_levels="disk", fitted_levels_dir=tempfile.mkdtemp(dir=DISK_LEVELS))
    return estimator


def warm_up(estimator, X_train: np.ndarray, y_train: np.ndarray, X_test: np.ndarray) -> None:
    """A clone of ``estimator`` fitted on WARM_UP_PER_CLASS examples per class and applied to as many
    test rows. Compiled code is compiled (or read from numba's cache) on first use: this small fit
    comes first, so that no timed fit holds the compilation, which would flatten a curve's slope."""
    warm = np.concatenate(
        [np.flatnonzero(y_train == label)[:WARM_UP_PER_CLASS] for label in np.unique(y_train)]
    )
    clone(estimator).fit(X_train[warm], y_train[warm]).predict(X_test[:WARM_UP_PER_CLASS])


def fit_once(
    problem: str, n_train: int, method: str, n_jobs: int, sklearn_trees: int, data_dir, keep_fitted_levels
) -> dict:
    """One fit and prediction, in its own process: seconds, peak memory, levels, test accuracy."""
    X_train, y_train, X_test, y_test = problem_data(problem, n_train, data_dir)
    estimator = make_method(method, n_jobs, sklearn_trees, keep_fitted_levels)
    warm_up(estimator, X_train, y_train, X_test)
    before = peak_memory_gib()
    start = time.perf_counter()
    estimator.fit(X_train, y_train)
    fit_seconds = time.perf_counter() - start
    peak_fit = peak_memory_gib()
    accuracy = float(np.mean(estimator.predict(X_test) == y_test))
    if getattr(estimator, "keep_fitted_levels", "memory") == "disk":  # make_method's folder: scratch
        shutil.rmtree(estimator.fitted_levels_dir, ignore_errors=True)
    return {
        "fit_seconds": fit_seconds,
        "peak_memory_gib": peak_memory_gib(),
        "peak_memory_fit_gib": peak_fit,
        "memory_before_fit_gib": before,
        "n_levels": getattr(estimator, "n_levels_", 1),
        "test_accuracy": accuracy,
    }


def fit_df21(problem: str, n_train: int, n_jobs: int, data_dir, python: str) -> dict:
    """One DF21 fit and prediction in ``python``'s own process (bench_df21.py, native mode): its measures."""
    measured = df21_on_arrays(problem_data(problem, n_train, data_dir), n_jobs, python)
    measured.pop("predict_seconds", None)  # this benchmark's columns: fit time and memory
    return measured


def df21_on_arrays(arrays: tuple[np.ndarray, ...], n_jobs: int, python: str) -> dict:
    """DF21 (native mode, T = 100) fitted on (X_train, y_train, X_test, y_test) in ``python``'s own
    process through bench_df21.py ``--npz --json``: its measures."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "arrays.npz"
        np.savez(path, **dict(zip(ARRAYS, arrays, strict=True)))
        command = [python, str(DF21_SCRIPT), "--npz", str(path), "--json", "--verbose", "0"]
        command += ["--mode", "native", "--n-trees", "100", "--n-jobs", str(n_jobs)]
        done = subprocess.run(command, capture_output=True, text=True)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    measured = json.loads(lines[-1])
    measured.pop("library_version", None)  # named in "libraries": DF21's venv's builds, the row's own stamp
    return measured


def predicted_seconds(points: list[tuple[int, float]], n: int, assumed_slope: float) -> float:
    """The next size's fit seconds from the curve's last sizes (log-log line)."""
    (n0, t0), slope = points[-1], assumed_slope
    if len(points) >= 2:
        (n1, t1) = points[-2]
        slope = max(np.log(t0 / t1) / np.log(n0 / n1), 1.0)
    return t0 * (n / n0) ** slope


def slopes(frame: pd.DataFrame) -> pd.DataFrame:
    """Per curve: slopes of log time and log memory against log n, and where and why it stops."""
    rows = []
    for (problem, method), curve in frame.groupby(["problem", "method"], sort=False):
        done = curve[curve["status"] == "ok"]
        fit = len(done) >= 2
        skipped = curve[curve["status"] != "ok"]
        rows.append(
            {
                "problem": problem,
                "method": method,
                "n_points": len(done),
                "n_min": int(done["n_train"].min()) if len(done) else None,
                "n_max": int(done["n_train"].max()) if len(done) else None,
                "time_slope": np.polyfit(np.log(done["n_train"]), np.log(done["fit_seconds"]), 1)[0]
                if fit
                else None,
                "memory_slope": np.polyfit(np.log(done["n_train"]), np.log(done["peak_memory_gib"]), 1)[0]
                if fit
                else None,
                "stops": skipped["status"].iloc[0] if len(skipped) else "at the largest size asked",
            }
        )
    return pd.DataFrame(rows)


def size_key(row: dict) -> tuple[str, str, int]:
    """What a row measures: (problem, method, n)."""
    return row["problem"], row["method"], int(row["n_train"])


def earlier_rows(path: Path) -> dict[tuple, dict]:
    """An earlier run's rows by :func:`size_key`, cells as written (``--resume``); none if no file."""
    if not path.is_file():
        return {}
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    return {size_key(row): row for row in frame.to_dict("records")}


def run_size(args, curve: dict, n: int, deadline: float) -> dict:
    """One size of a curve (``curve``: problem, method and its (n, seconds) so far), or why it is skipped."""
    problem, method, points = curve["problem"], curve["method"], curve["points"]
    row = {"problem": problem, "method": method, "n_train": n, "n_jobs": args.n_jobs}
    row["n_trees"] = args.sklearn_trees if method in ("random_forest", "extra_trees") else 100
    cascade = CAPPED_METHODS.get(method, method) in ("gcforest", "disdf") or method in DEFAULT_METHODS
    row["keep_fitted_levels"] = args.keep_fitted_levels if cascade else ""
    if method == "df21" and not curve["stopped"] and not Path(args.df21_python).is_file():
        curve["stopped"] = DF21_MISSING
    if curve["stopped"]:
        return {**row, "status": curve["stopped"]}
    left = min(deadline - time.monotonic(), 60 * args.max_run_minutes)
    expected = predicted_seconds(points, n, args.assumed_slope) if points else 0.0
    if expected > left:
        curve["stopped"] = f"skipped: predicted {expected / 60:.0f} min > {max(left, 0) / 60:.0f} min left"
        return {**row, "status": curve["stopped"]}
    print(f"{problem} n={n} {method} (predicted {expected / 60:.1f} min)", flush=True)
    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
        if method == "df21":
            result = pool.submit(fit_df21, problem, n, args.n_jobs, args.data_dir, str(args.df21_python))
        else:
            result = pool.submit(
                fit_once, problem, n, method, args.n_jobs, args.sklearn_trees, args.data_dir,
                args.keep_fitted_levels,
            )  # fmt: skip
        measured = result.result()
    points.append((n, measured["fit_seconds"]))
    print(f"  {measured['fit_seconds']:.0f} s, {measured['peak_memory_gib']:.2f} GiB", flush=True)
    return {**row, **measured, "status": "ok"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", nargs="+", default=list(PROBLEMS), choices=list(PROBLEMS))
    parser.add_argument(
        "--methods", nargs="+", default=list(METHODS), choices=[*METHODS, *CAPPED_METHODS, *DEFAULT_METHODS]
    )
    parser.add_argument("--mnist-sizes", nargs="+", type=int, default=list(PROBLEMS["mnist"]))
    parser.add_argument("--higgs-sizes", nargs="+", type=int, default=list(PROBLEMS["higgs_like"]))
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--sklearn-trees", type=int, default=100)
    parser.add_argument("--budget-minutes", type=float, default=40.0, help="the whole benchmark's time")
    parser.add_argument("--max-run-minutes", type=float, default=15.0, help="one fit's time at most")
    parser.add_argument("--assumed-slope", type=float, default=1.5, help="growth assumed after one size")
    parser.add_argument(
        "--df21-python", type=Path, default=DF21_PYTHON, help="the python of DF21's venv (make bench-df21)"
    )
    parser.add_argument("--data-dir", default=None, help="MNIST's folder (default: DISDF_DATA_DIR)")
    parser.add_argument("--output", type=Path, help="the CSV to write (overrides --record); slopes beside it")
    parser.add_argument("--resume", action="store_true", help="keep the sizes measured already")
    parser.add_argument(
        "--keep-fitted-levels", choices=("memory", "disk"), default="memory",
        help="where the cascades keep their levels (disk: one level's trees in memory, the same trees)",
    )  # fmt: skip
    add_record_flag(parser)
    args = parser.parse_args()
    output = bench_output(args, "scale", args.output)
    earlier = earlier_rows(output) if args.resume else {}
    done = {key: row for key, row in earlier.items() if row["status"] == "ok"}
    deadline = time.monotonic() + 60 * args.budget_minutes
    sizes = {"mnist": args.mnist_sizes, "higgs_like": args.higgs_sizes}
    curves = [
        {"problem": problem, "method": method, "points": [], "stopped": ""}
        for problem in args.problems
        for method in args.methods
    ]
    rows = []
    # Every curve's smallest size first, then every curve's next: the budget reaches every curve.
    for rank in range(max(len(sizes[problem]) for problem in args.problems)):
        for curve in curves:
            ranked = sorted(sizes[curve["problem"]])
            if rank >= len(ranked):
                continue
            key = (curve["problem"], curve["method"], ranked[rank])
            if key in done:  # measured by the run this one resumes: its row as written
                curve["points"].append((ranked[rank], float(done[key]["fit_seconds"])))
                rows.append(done[key])
            else:
                rows.append(run_size(args, curve, ranked[rank], deadline))
                write_csv(output, rows)  # after each fit: an interruption keeps it
    write_csv(output, rows)  # also when every size was resumed
    frame = pd.read_csv(output)  # every row's values as numbers, the resumed ones' too
    write_csv(output.with_name("scale_slopes.csv"), slopes(frame).to_dict("records"))
    print(slopes(frame).to_string(index=False))


if __name__ == "__main__":
    main()
