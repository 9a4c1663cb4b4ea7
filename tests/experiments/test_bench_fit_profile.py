"""bench_fit_profile.py: a fit's time and memory by part, from timers set around the library's own
functions. On a tiny problem (600 rows, T = 10, two threads): every part of each method timed, the parts'
thread-seconds within what the threads had, the CSV's columns, nested calls counted once, and a fit with
the timers in place giving the predictions of one without them."""

import contextlib
import io
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from scripts.bench import bench_fit_profile as bench
from scripts.bench.bench_scale import TREE_SAMPLE_CAP, problem_data

ROOT = Path(__file__).resolve().parents[2]
N_TRAIN, N_TREES, N_JOBS = 600, 10, 2
#: DisDF's pair-sampling solver with fewer draws than the experiment's 2,000 batches of 1,024 pairs,
#: which take about 20 s on 144 problems whatever the size: the test stays fast.
FEW_DRAWS = {"batch_size": 128, "max_iter": 100}
COLUMNS = [
    "problem", "method", "n_train", "n_jobs", "n_trees", "max_levels", "part", "wraps", "calls", "seconds",
    "cpu_seconds", "inclusive_seconds", "share_of_parts", "sum_of_parts_seconds", "wall_seconds_fit",
    "cpu_seconds_fit", "rss_growth_gib", "rss_peak_growth_gib", "rss_before_fit_gib", "peak_memory_gib",
    "n_levels", "levels_grown", "test_accuracy", "kernels_loaded_in_fit", "date", "commit", "libraries",
]  # fmt: skip
DISDF_ONLY = {"weight problems", "weight solves"}
CASCADE = bench.cascade


def small_cascade(method: str, n_jobs: int, n_trees: int):
    """The bench's cascade, DisDF's solver drawing fewer pairs."""
    estimator = CASCADE(method, n_jobs, n_trees)
    return estimator.set_params(solver_options=FEW_DRAWS) if "disdf" in method else estimator


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> tuple[pd.DataFrame, str]:
    """The command on the tiny problem, both methods, in this process: its CSV and what it printed."""
    output = tmp_path_factory.mktemp("bench") / "fit_profile.csv"
    printed = io.StringIO()
    argv = ["--n-train", str(N_TRAIN), "--n-trees", str(N_TREES), "--n-jobs", str(N_JOBS), "--in-process"]
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(printed):
        patch.setattr(bench, "cascade", small_cascade)
        bench.main([*argv, "--output", str(output)])
    print(printed.getvalue())  # the table, with pytest -s
    return pd.read_csv(output, dtype={"commit": str}, keep_default_na=False), printed.getvalue()


def test_the_csv_has_a_row_per_part_of_each_method_and_the_columns(run):
    frame, printed = run
    assert list(frame.columns) == COLUMNS
    assert frame["method"].unique().tolist() == ["gcforest", "disdf"]
    assert frame["problem"].eq("higgs_like").all() and frame["n_train"].eq(N_TRAIN).all()
    assert frame["n_trees"].eq(N_TREES).all() and frame["n_jobs"].eq(N_JOBS).all()
    for method, rows in frame.groupby("method"):
        expected = [part.name for part in bench.PARTS if method == "disdf" or part.name not in DISDF_ONLY]
        assert rows["part"].tolist() == expected, method
        # One fit per method: its measures are the same on every row.
        for column in ("wall_seconds_fit", "sum_of_parts_seconds", "n_levels", "test_accuracy"):
            assert rows[column].nunique() == 1, (method, column)
        assert rows["n_levels"].iloc[0] >= 1 and 0.6 < rows["test_accuracy"].iloc[0] <= 1
        assert rows["peak_memory_gib"].iloc[0] > rows["rss_before_fit_gib"].iloc[0] / 2 > 0
    assert not (set(frame.loc[frame["method"] == "gcforest", "part"]) & DISDF_ONLY)
    assert "grow_forest" in frame.loc[frame["part"] == "growing trees", "wraps"].iloc[0]
    for part in bench.PARTS:
        assert part.name in printed
    assert printed.count("higgs_like gcforest n=600 n_jobs=2 T=10: fit ") == 1


def test_a_capped_cascade_profiled_for_its_first_level_only(tmp_path):
    """--methods disdf_capped --max-levels 1: DisDF's parts, its trees capped, one level grown, the
    limit in the fit's key (a whole fit's rows, with an empty max_levels, stay beside it)."""
    output = tmp_path / "fit_profile.csv"
    argv = ["--n-train", str(N_TRAIN), "--n-trees", str(N_TREES), "--n-jobs", str(N_JOBS), "--in-process"]
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(io.StringIO()):
        patch.setattr(bench, "cascade", small_cascade)
        bench.main([*argv, "--methods", "disdf_capped", "--max-levels", "1", "--output", str(output)])
        bench.main([*argv, "--methods", "disdf_capped", "--output", str(output)])
    frame = pd.read_csv(output, keep_default_na=False)
    limited = frame[frame["max_levels"] == "1"]
    assert set(DISDF_ONLY) <= set(limited["part"]) and limited["method"].eq("disdf_capped").all()
    assert limited["levels_grown"].eq(1).all() and limited["n_levels"].eq(1).all()
    whole = frame[frame["max_levels"] == ""]
    assert len(whole) == len(limited) and whole["levels_grown"].iloc[0] >= 1
    assert bench.cascade("disdf_capped", 1, N_TREES).max_tree_samples == TREE_SAMPLE_CAP


def test_every_part_is_timed_and_the_parts_fit_in_the_threads_time(run):
    frame, _ = run
    assert (frame["calls"] > 0).all(), frame.loc[frame["calls"] == 0, ["method", "part"]]
    assert (frame["seconds"] >= 0).all() and (frame["cpu_seconds"] >= -1e-6).all()
    assert (frame["inclusive_seconds"] >= frame["seconds"] - 1e-9).all()
    assert (frame["rss_peak_growth_gib"] >= frame["rss_growth_gib"] - 1e-9).all()
    assert (frame["rss_growth_gib"] >= 0).all()
    for method, rows in frame.groupby("method"):
        by_part = rows.set_index("part")
        trees, levels = by_part.loc["growing trees"], rows["levels_grown"].iloc[0]
        # 4 forests x 3 folds per level grown; one feature-major copy per fold, shared by its forests
        assert trees["seconds"] > 0 and trees["calls"] == 4 * 3 * levels, method
        assert by_part.loc["feature-major copy", "calls"] == 3 * levels >= 3 * rows["n_levels"].iloc[0]
        total = rows["seconds"].sum()
        assert total == pytest.approx(rows["sum_of_parts_seconds"].iloc[0], rel=1e-4)
        assert rows["share_of_parts"].sum() == pytest.approx(1.0, rel=1e-4)
        # Thread-seconds: at most the n_jobs threads' whole time (nothing counted twice).
        assert total <= N_JOBS * rows["wall_seconds_fit"].iloc[0] + 0.01, method
        # The kernel's time is in "growing trees", not again in the FastForest.fit around it.
        around = by_part.loc["tree fit around the kernel"]
        assert around["inclusive_seconds"] >= around["seconds"] + trees["seconds"] - 1e-6


@pytest.mark.parametrize("method", ["gcforest", "disdf"])
def test_the_timers_change_no_prediction_and_leave_the_library_as_it_was(method):
    X_train, y_train, X_test, _ = problem_data("higgs_like", N_TRAIN, None)
    originals = {(id(owner), name): vars(owner)[name] for part in bench.PARTS for owner, name in part.targets}
    profiled = bench.profiled_fit(small_cascade(method, N_JOBS, N_TREES), X_train, y_train)
    assert profiled.profile.totals["growing trees"].calls > 0
    for part in bench.PARTS:
        for owner, name in part.targets:
            assert vars(owner)[name] is originals[(id(owner), name)], (owner, name)
    plain = small_cascade(method, N_JOBS, N_TREES).fit(X_train, y_train)
    assert profiled.estimator.level_scores_ == plain.level_scores_
    assert np.array_equal(profiled.estimator.predict_proba(X_test), plain.predict_proba(X_test))


def test_a_nested_call_counts_once_across_threads():
    """An outer timed call that runs an inner one: the inner's seconds are the inner part's only."""
    profile = bench.FitProfile()
    inner = profile.timer("inner", lambda: time.sleep(0.05))

    def outer_body() -> str:
        time.sleep(0.02)
        inner()
        return "done"

    outer = profile.timer("outer", outer_body)
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(lambda _: outer(), range(4))) == ["done"] * 4
    totals = profile.totals
    assert totals["outer"].calls == totals["inner"].calls == 4
    assert 4 * 0.05 <= totals["inner"].seconds < 4 * 0.05 + 0.15
    assert 4 * 0.02 <= totals["outer"].seconds < 4 * 0.02 + 0.15  # not the inner's 0.05 again
    assert totals["outer"].inclusive_seconds >= totals["outer"].seconds + totals["inner"].seconds - 1e-6
    assert totals["outer"].cpu_seconds < 0.1  # sleeping takes no CPU


def test_a_part_whose_function_is_gone_is_refused_and_nothing_stays_replaced():
    FastForest = bench.FastForest
    original = vars(FastForest)["fit"]
    parts = [bench.PARTS[3], bench.Part("gone", ((FastForest, "no_such_method"),))]
    with pytest.raises(AttributeError, match="has no 'no_such_method': the fit path changed"):
        with bench.FitProfile().instrumented(parts):
            pass
    assert vars(FastForest)["fit"] is original


def test_make_bench_profile_records_the_300000_row_fits():
    makefile = (ROOT / "Makefile").read_text()
    assert "\nbench-profile: install\n" in makefile
    command = (
        "scripts/bench/bench_fit_profile.py --n-train 300000 --methods gcforest disdf --n-jobs 2 --record"
    )
    assert command in makefile
