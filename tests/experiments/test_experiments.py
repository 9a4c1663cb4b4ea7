"""The Hydra experiment runner: config composition, an end-to-end run, resume, statistics."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hydra.errors import ConfigCompositionException
from scipy import stats

from experiments.analysis.statistics import holm, mean_ci, paired_wilcoxon, tost_paired
from experiments.reporting.report import write_protocol
from experiments.running.composition import compose_config
from experiments.running.plan import plan_run
from experiments.running.protocol import Pool, draw_split, split_seed
from experiments.running.records import RecordStore
from experiments.running.runner import run_units
from experiments.running.unit import RERUN_VARYING_FIELDS
from experiments.safety.provenance import library_versions

ROOT = Path(__file__).resolve().parents[2]
EXPERIMENTS = {
    "table_parkinsons": ["parkinsons"],
    "table_ecoli": ["ecoli"],
    "table_ionosphere": ["ionosphere"],
    "table_mnist": ["mnist"],
    "paper": ["parkinsons", "ecoli", "ionosphere", "mnist"],
    "engine_equivalence": ["parkinsons", "ecoli", "ionosphere", "mnist"],
    "quick": ["parkinsons", "ecoli", "ionosphere", "mnist"],
    "smoke": ["ionosphere", "ecoli"],
    "mnist_full": ["mnist"],
}
TIMING = RERUN_VARYING_FIELDS


def make_config(*overrides):
    return compose_config(*overrides)


def test_the_headline_is_the_compiled_engine_in_results_and_nothing_else_writes_there():
    from experiments.running.composition import config_hash
    from experiments.safety.guards import writes_headline

    paper = make_config("experiment=paper")
    assert paper.model.engine == "fast" and writes_headline(paper.runtime.output_dir)
    plan_run(paper)  # the headline itself may
    # The hash covers the whole result config: every key that can change a record moves it, even one
    # set to the value every earlier record had (no key is left out to keep an older hash) ...
    moved = [
        ("model.engine=sklearn",), ("model.weight_fitting=same_examples",), ("model.cross_fit_parts=4",),
        ("model.test_vectors=refit",), ("model.max_pairs=100",), ("model.group_duplicates=true",),
        ("protocol.seed=1",), ("solver.options.tol=1e-5",),
    ]  # fmt: skip
    hashes = {config_hash(make_config("experiment=paper", *overrides)) for overrides in moved}
    assert len(hashes) == len(moved) and config_hash(paper) not in hashes
    # ... and the grid, what a record carries besides and the runtime do not.
    same = (
        "protocol.repetitions=1",
        "protocol.Ts=[100]",
        "protocol.record_confusion=true",
        "runtime.n_jobs=1",
    )
    assert config_hash(make_config("experiment=paper", *same)) == config_hash(paper)
    for experiment in sorted(set(EXPERIMENTS) - {"paper", "mnist_full"}):
        cfg = make_config(f"experiment={experiment}")
        assert not writes_headline(cfg.runtime.output_dir), experiment
        assert cfg.runtime.output_dir.startswith("results/"), experiment
    assert make_config().runtime.output_dir == "results/adhoc"


@pytest.mark.parametrize(
    ("overrides", "differs_in"),
    [
        (["experiment=paper", "protocol.repetitions=1"], "protocol.repetitions"),
        (["experiment=paper", "model.engine=sklearn"], "config hash"),
        (["experiment=paper", "model.tau=0.5"], "config hash"),
        (["experiment=paper", "protocol.Ts=[100]"], "protocol.Ts"),
        (["experiment=table_ecoli", "runtime.output_dir=results"], "datasets"),
        (["experiment=smoke", f"runtime.output_dir={ROOT / 'results'}"], "datasets"),
    ],
)
def test_any_other_run_pointed_at_the_headline_folder_is_refused(overrides, differs_in):
    with pytest.raises(ValueError, match=f"headline folder.*differs in .*{differs_in}"):
        plan_run(make_config(*overrides))


def test_a_multirun_job_gets_its_own_folder_unless_the_command_interpolates_one():
    from hydra.types import RunMode
    from omegaconf import OmegaConf

    from experiments.running.plan import decide
    from experiments.safety.guards import sweep_job

    cfg = make_config("experiment=smoke", "model.tau=0.5", "solver=qp")

    def folder(mode, *task, num=3):
        hydra = OmegaConf.create(
            {"mode": mode, "overrides": {"task": list(task)}, "job": {"num": num}, "sweep": {"dir": "m"}}
        )
        return str(decide(cfg, sweep_job(hydra)).runtime.output_dir)

    assert folder(RunMode.RUN, "model.tau=0.5") == "results/smoke"
    sweep = ("experiment=smoke", "model.tau=0.5", "solver=qp", "runtime.n_jobs=1")
    assert folder(RunMode.MULTIRUN, *sweep) == "results/smoke/model.tau=0.5,solver=qp"
    assert folder(RunMode.MULTIRUN, "experiment=smoke", "model.tau=1.0", "solver=qp") != folder(
        RunMode.MULTIRUN, *sweep
    )
    assert folder(RunMode.MULTIRUN, "experiment=smoke") == "results/smoke/job3"
    # A fixed folder chosen on the command line would be shared by every job: each gets a subfolder.
    fixed = (RunMode.MULTIRUN, "model.tau=0.5", "runtime.output_dir=/tmp/sweep")
    assert folder(*fixed) == "results/smoke/model.tau=0.5"
    interpolated = (RunMode.MULTIRUN, "model.tau=0.5", r"runtime.output_dir=results/tau_$\{model.tau\}")
    assert folder(*interpolated) == cfg.runtime.output_dir


def test_the_data_folder_is_found_as_make_finds_it(monkeypatch, tmp_path):
    from experiments.running import config

    monkeypatch.setenv("DISDF_DATA_DIR", str(tmp_path))
    assert make_config().data.dir == str(tmp_path)
    monkeypatch.delenv("DISDF_DATA_DIR")
    monkeypatch.setattr(config, "SHARED_DATA_DIR", tmp_path)
    assert make_config().data.dir == str(tmp_path)  # ../shared/data beside the checkout
    monkeypatch.setattr(config, "SHARED_DATA_DIR", tmp_path / "absent")
    assert make_config().data.dir is None  # the library's own default, ~/.cache/disdf


@pytest.mark.parametrize("experiment", sorted(EXPERIMENTS))
def test_every_experiment_composes(experiment):
    cfg = make_config(f"experiment={experiment}")
    assert list(cfg.datasets) == EXPERIMENTS[experiment]
    assert cfg.experiment_name.startswith(experiment)
    if experiment.startswith("table_") or experiment.startswith("paper"):
        assert list(cfg.protocol.Ns) == [50, 80, 100, 120]
        assert list(cfg.protocol.Ts) == [100, 400, 700, 1000]
        assert cfg.protocol.repetitions == 100
        assert cfg.protocol.test_fraction == pytest.approx(2 / 3)


@pytest.mark.parametrize("group", ["datasets=[ecoli]", "model=gcforest", "solver=qp", "solver=frank_wolfe"])
def test_groups_and_overrides_compose(group):
    cfg = make_config(group, "model.lambda_=0.1", "protocol.repetitions=10")
    assert cfg.model.lambda_ == 0.1 and cfg.protocol.repetitions == 10


@pytest.mark.parametrize("override", ["model.lamda=0.1", "protocol.repetitions=ten", "runtime.njobs=2"])
def test_typos_and_wrong_types_fail_at_start(override):
    with pytest.raises(ConfigCompositionException):
        make_config(override)


def test_a_model_value_of_the_wrong_type_is_refused_by_its_estimators_table():
    """model.* is typed by the estimators' parameter tables (its YAML is only its schema of keys)."""
    with pytest.raises(TypeError, match=r"tune must be True or False; got 'maybe'"):
        plan_run(make_config("experiment=smoke", "model.tune=maybe"))


def smoke_config(output_dir, *overrides):
    return make_config(
        "experiment=smoke", f"runtime.output_dir={output_dir}", "runtime.progress=false", *overrides
    )


def strip_timing(records):
    return sorted(
        json.dumps({k: v for k, v in r.items() if k not in TIMING}, sort_keys=True) for r in records
    )


def all_records(output_dir):
    store = RecordStore(Path(output_dir) / "raw")
    return [r for d in ("ionosphere", "ecoli") for r in store.read(d)]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory, data_dir):
    output = tmp_path_factory.mktemp("full")
    cfg = smoke_config(output, "runtime.n_jobs=2", f"data.dir={data_dir}")
    summary = run_units(plan_run(cfg))
    write_protocol(plan_run(cfg))
    return output, summary


def test_end_to_end_run_writes_records_tables_report_and_figures(uninterrupted):
    output, summary = uninterrupted
    assert summary["units_run"] == 2 * 2 * 2  # datasets x methods x repetitions
    assert summary["libraries"] == library_versions() and summary["start_commit"]  # which builds ran it
    records = all_records(output)
    assert len(records) == 8
    assert {r["method"] for r in records} == {"gcforest", "disdf"}
    assert all(0 <= r["accuracy"] <= 1 and r["n_test"] == 20 for r in records)
    disdf = [r for r in records if r["method"] == "disdf"]
    assert all(r["solver_max_relative_gap"] <= 1e-6 for r in disdf)
    for dataset in ("ionosphere", "ecoli"):
        for ext in ("md", "csv", "tex"):
            assert (output / "tables" / f"{dataset}.{ext}").stat().st_size > 0
    report, appendix = ((output / name).read_text() for name in ("REPORT.md", "PERFORMANCE.md"))
    assert "2 repetitions per cell" in report and "tune=False" in report and "engine `fast`" in report
    assert "repetitions per cell: 2 " in appendix and "## Time per split" in appendix
    # a run's report names no section it does not have, and no duration rounds to zero
    assert "Honest DisDF" not in report + appendix and "0.00 h" not in appendix
    # Every split's units ran together and share level 1: both record the split's fit time.
    by_split = {}
    for record in records:
        by_split.setdefault((record["dataset"], record["N"], record["repetition"]), []).append(record)
    assert all(len(units) == units[0]["split_units"] == 2 for units in by_split.values())
    for script in ("plot_accuracy_vs_t", "plot_ours_vs_paper", "plot_difference_heatmap"):
        subprocess.run(
            [sys.executable, str(ROOT / "scripts" / "figures" / f"{script}.py"), "--results", str(output)],
            check=True,
            capture_output=True,
        )
    assert len(list((output / "figures").glob("*.png"))) == 4


def test_resume_yields_the_records_of_an_uninterrupted_run(uninterrupted, tmp_path, data_dir):
    full_output, _ = uninterrupted
    # First half: one repetition, then a crash that leaves a torn line.
    first = run_units(
        plan_run(smoke_config(tmp_path, f"data.dir={data_dir}", "runtime.n_jobs=1", "protocol.repetitions=1"))
    )
    assert first["units_run"] == 4
    with open(tmp_path / "raw" / "ecoli.jsonl", "a") as handle:
        handle.write('{"dataset": "ecoli", "N": 30, "T"')
    with pytest.warns(UserWarning, match="torn last line"):
        second = run_units(plan_run(smoke_config(tmp_path, f"data.dir={data_dir}", "runtime.n_jobs=1")))
    assert second["units_run"] == 4
    again = run_units(plan_run(smoke_config(tmp_path, f"data.dir={data_dir}", "runtime.n_jobs=1")))
    assert again["units_run"] == 0
    resumed = all_records(tmp_path)
    assert len(resumed) == 8
    assert strip_timing(resumed) == strip_timing(all_records(full_output))


def test_split_is_seeded_disjoint_and_checked():
    pool = Pool(np.arange(100.0).reshape(50, 2), np.arange(50) % 2)
    seed = split_seed("ecoli", 30, 7, 0)
    assert seed == split_seed("ecoli", 30, 7, 0) != split_seed("ecoli", 30, 8, 0)
    split = draw_split(pool, 30, 20, seed)
    assert len(set(split.X_train[:, 0]) | set(split.X_test[:, 0])) == 50
    with pytest.raises(ValueError, match="ecoli: N=40 training \\+ 20 test examples exceed its 50"):
        draw_split(pool, 40, 20, seed, "ecoli")


def test_mnist_style_pool_draws_test_examples_from_the_test_split():
    pool = Pool(np.zeros((50, 2)), np.zeros(50), np.ones((30, 2)), np.ones(30))
    split = draw_split(pool, 10, 7, 1)
    assert split.X_train.sum() == 0 and split.X_test.shape == (7, 2) and split.X_test.min() == 1


def test_holm_matches_the_step_down_definition():
    p = np.array([0.01, 0.04, 0.03, 0.005, np.nan])
    np.testing.assert_allclose(holm(p)[:4], [0.03, 0.06, 0.06, 0.02])
    assert np.isnan(holm(p)[4])


def test_ci_and_wilcoxon():
    values = np.array([0.8, 0.85, 0.9, 0.75, 0.8])
    mean, half = mean_ci(values)
    low, high = stats.t.interval(0.95, 4, loc=values.mean(), scale=stats.sem(values))
    assert mean == pytest.approx(values.mean()) and half == pytest.approx((high - low) / 2)
    assert paired_wilcoxon(values, values) == 1.0
    assert paired_wilcoxon(values + np.linspace(0.01, 0.05, 5), values) < 0.1


def test_tost_is_the_90_percent_interval_inside_the_margins():
    rng = np.random.default_rng(0)
    same = rng.normal(0.1, 1.0, 400)  # mean 0.1, SE 0.05: well inside ±0.5
    shifted = rng.normal(0.6, 1.0, 400)  # mean beyond the margin
    small = rng.normal(0.0, 1.0, 5)  # too few to decide
    inside, outside, undecided = (tost_paired(d, margin=0.5) for d in (same, shifted, small))
    assert inside["equivalent"] and inside["p_tost"] < 1e-6
    assert not outside["equivalent"] and outside["p_tost"] > 0.5
    assert not undecided["equivalent"]
    for result, d in ((inside, same), (outside, shifted), (undecided, small)):
        low, high = stats.t.interval(0.90, d.size - 1, loc=d.mean(), scale=stats.sem(d))
        assert (result["ci_low"], result["ci_high"]) == pytest.approx((low, high))
        assert result["equivalent"] == (low > -0.5 and high < 0.5)
    # The p-value is the larger of the two one-sided tests, by hand.
    t_low = (same.mean() + 0.5) / stats.sem(same)
    t_high = (same.mean() - 0.5) / stats.sem(same)
    expected = max(stats.t.sf(t_low, same.size - 1), stats.t.cdf(t_high, same.size - 1))
    assert inside["p_tost"] == pytest.approx(expected)
    with pytest.raises(ValueError, match="at least 2"):
        tost_paired(np.array([0.1]), margin=0.5)


def test_config_hash_ignores_the_grid_but_not_the_model():
    from experiments.running.composition import config_hash

    base = config_hash(make_config("experiment=paper"))
    assert config_hash(make_config("experiment=paper", "protocol.repetitions=3", "runtime.n_jobs=1")) == base
    assert config_hash(make_config("experiment=paper", "model.tau=0.5")) != base


def test_test_set_is_capped_only_when_asked():
    pool = Pool(np.zeros((195, 2)), np.arange(195) % 2)
    split = draw_split(pool, 120, 80, 3, "parkinsons", cap_test=True)
    assert len(split.y_train) == 120 and len(split.y_test) == 75
    with pytest.raises(ValueError, match="cap_test_size=true"):
        draw_split(pool, 120, 80, 3, "parkinsons")
    with pytest.raises(ValueError, match="N=195"):
        draw_split(pool, 195, 130, 3, "parkinsons", cap_test=True)


def test_units_are_repetition_major():
    from experiments.running.protocol import all_units

    units = all_units(["a", "b"], [50, 120], [100, 1000], ["gcforest", "disdf"], 3)
    assert len(units) == 2 * 2 * 2 * 2 * 3 == len({u.key for u in units})
    first_repetition = units[:16]
    assert {u.repetition for u in first_repetition} == {0}
    assert {(u.dataset, u.N, u.T, u.method) for u in first_repetition} == {
        (u.dataset, u.N, u.T, u.method) for u in units
    }


@pytest.mark.slow
@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM"])
def test_ctrl_c_stops_cleanly_and_keeps_finished_units(tmp_path, data_dir, signal_name):
    import os
    import signal
    import time

    command = [
        sys.executable,
        "-X",
        "faulthandler",  # a hang is reported with every thread's stack (SIGABRT below)
        "-m",
        "experiments.run",
        "experiment=smoke",
        "protocol.Ts=[10,20,30]",
        "protocol.repetitions=8",  # 96 units: the first write comes well before the last
        f"runtime.output_dir={tmp_path}",
        f"data.dir={data_dir}",
        "runtime.n_jobs=2",
        f"hydra.run.dir={tmp_path / 'hydra'}",
    ]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    raw = tmp_path / "raw"
    deadline = time.time() + 120
    while time.time() < deadline and sum(1 for _ in raw.glob("*.jsonl")) == 0:
        time.sleep(0.2)
    process.send_signal(getattr(signal, signal_name))
    try:
        output, _ = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGABRT)
        output, _ = process.communicate(timeout=30)
        pytest.fail(f"the run did not stop within 60 s of {signal_name}:\n{output[-20000:]}")
    assert process.returncode == 130, output
    assert "run the same command to resume" in output
    records = all_records(tmp_path)
    assert 0 < len(records) < 96
    assert len({(r["dataset"], r["T"], r["method"], r["repetition"]) for r in records}) == len(records)
    assert not os.path.exists(tmp_path / "REPORT.md")


def test_an_interrupt_inside_compiled_code_counts_as_an_interrupt():
    """numba re-raises a signal handler's KeyboardInterrupt as a SystemError caused by it."""
    from experiments.safety.interrupts import caused_by_interrupt

    try:
        try:
            raise KeyboardInterrupt("SIGINT")
        except KeyboardInterrupt as interrupt:
            raise SystemError("CPUDispatcher returned a result with an exception set") from interrupt
    except SystemError as wrapped:
        assert caused_by_interrupt(wrapped)
    assert caused_by_interrupt(KeyboardInterrupt())
    assert not caused_by_interrupt(SystemError("a real failure"))
    assert not caused_by_interrupt(ValueError("bad input"))


def test_a_stop_that_hangs_or_a_second_signal_exits_at_once(monkeypatch):
    """The command line never waits more than FORCE_EXIT_AFTER_SECONDS for the worker pool to stop."""
    import os
    import signal
    import time

    from experiments.safety import interrupts as run

    exits = []
    monkeypatch.setattr(run, "_exit_now", exits.append)
    with run.stop_signals_interrupt(force_exit_after=0.05):
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(1)
        time.sleep(0.3)  # the watchdog fires
        assert exits == ["SIGTERM 0.05 s ago"]
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)
    assert exits[1] == "second SIGINT"
    assert run.FORCE_EXIT_AFTER_SECONDS <= 30


def test_a_method_is_a_yaml_entry_and_its_own_values_enter_the_hash(tmp_path, data_dir):
    """configs/method/*.yaml are instantiated; a method added by config alone runs and is recorded."""
    from experiments.running.composition import config_hash

    base = make_config("experiment=smoke")
    assert config_hash(make_config("experiment=smoke", "model.tau=0.5")) != config_hash(base)
    # A value written in the method's own spec (not taken from model.*) changes the hash too.
    assert config_hash(make_config("experiment=smoke", "methods.disdf.tau=0.5")) != config_hash(base)
    level_one = (
        "+methods.level1={_target_:disdf.CascadeForestClassifier,_convert_:all,max_levels:1,engine:fast}"
    )
    cfg = smoke_config(
        tmp_path,
        level_one,
        "protocol.methods=[gcforest,level1]",
        f"data.dir={data_dir}",
        "runtime.n_jobs=1",
        "datasets=[ecoli]",
        "protocol.repetitions=1",
    )
    assert config_hash(cfg) != config_hash(base)
    assert run_units(plan_run(cfg))["units_run"] == 2
    records = RecordStore(tmp_path / "raw").read("ecoli")
    assert sorted(r["method"] for r in records) == ["gcforest", "level1"]
    assert next(r for r in records if r["method"] == "level1")["n_levels"] == 1
