"""scripts/tools/mnist_full.py on a slice of MNIST: the CSV, the REPORT section, the checks (issue #6)."""

import os

import numpy as np
import pandas as pd
import pytest

from experiments.drivers.full_mnist import (
    check_committed_folder,
    check_settings,
    mcnemar,
    run_full_mnist,
)
from experiments.running.composition import compose_config


def make_config(*overrides):
    return compose_config("experiment=mnist_full", *overrides)


def test_the_experiment_is_the_full_training_set_with_pair_draws():
    cfg = make_config()
    assert cfg.full_mnist.n_train is None and cfg.full_mnist.n_test is None
    assert cfg.full_mnist.n_trees == 100 and cfg.model.engine == "binned"
    assert cfg.solver.name == "stochastic_frank_wolfe"
    assert (cfg.model.n_folds, cfg.model.max_levels) == (3, 10)


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("full_mnist.n_train=60001", r"full_mnist.n_train must be null \(all\) or in \[1, 60000\]; got 6"),
        ("full_mnist.n_test=0", r"full_mnist.n_test must be null \(all\) or in \[1, 10000\]; got 0"),
        ("full_mnist.n_trees=0", "full_mnist.n_trees must be >= 1; got 0"),
    ],
)
def test_impossible_sizes_are_refused_before_any_fit(override, message):
    with pytest.raises(ValueError, match=message):
        check_settings(make_config(override))


def test_mcnemar_counts_the_images_only_one_method_gets_right():
    y = np.zeros(100, dtype=int)
    gcforest = np.r_[np.zeros(60), np.ones(40)]  # right on the first 60
    disdf = np.r_[np.zeros(30), np.ones(30), np.zeros(40)]  # right on 30 of those and the last 40
    result = mcnemar({"gcforest": gcforest, "disdf": disdf}, y)
    assert (result["only_disdf_right"], result["only_gcforest_right"]) == (40, 30)
    assert 0.2 < result["mcnemar_p"] < 0.4  # 40 vs 30 discordant: no evidence
    assert mcnemar({"gcforest": gcforest, "disdf": gcforest}, y)["mcnemar_p"] == 1.0
    lopsided = np.r_[np.zeros(60), np.zeros(30), np.ones(10)]
    assert mcnemar({"gcforest": gcforest, "disdf": lopsided}, y)["mcnemar_p"] < 1e-8


def test_report_md_is_its_sections_in_order_and_a_section_is_replaced_not_repeated(tmp_path):
    from experiments.reporting.report import put_section

    put_section(tmp_path, "mnist_full", "## MNIST\nfirst")
    put_section(tmp_path, "protocol", "## Method\nthe tables")
    put_section(tmp_path, "mnist_full", "## MNIST\nsecond")
    text = (tmp_path / "REPORT.md").read_text()
    assert text.startswith("# Reproduction report\n") and "[PERFORMANCE.md](PERFORMANCE.md)" in text
    assert text.endswith("<!-- section: protocol -->\n## Method\nthe tables\n")
    appendix = (tmp_path / "PERFORMANCE.md").read_text()
    assert appendix.endswith("<!-- section: mnist_full -->\n## MNIST\nsecond\n") and "first" not in appendix
    with pytest.raises(ValueError, match=r"Unknown REPORT\.md section 'appendix'"):
        put_section(tmp_path, "appendix", "text")


def test_a_slice_of_mnist_gives_both_methods_their_row_and_section(tmp_path, data_dir):
    report = tmp_path / "REPORT.md"
    cfg = make_config(
        f"data.dir={data_dir}",
        "full_mnist.n_train=400",
        "full_mnist.n_test=150",
        "full_mnist.n_trees=4",
        "model.max_levels=2",
        "solver.options.max_iter=50",
        "runtime.n_jobs=1",
        f"runtime.output_dir={tmp_path}",
    )
    run_full_mnist(cfg)
    frame = pd.read_csv(tmp_path / "mnist_full.csv")
    assert list(frame["method"]) == ["gcforest", "disdf"]
    assert (frame["n_train"] == 400).all() and (frame["n_test"] == 150).all() and (frame["n_jobs"] == 1).all()
    assert ((frame["test_accuracy"] > 0.6) & (frame["test_accuracy"] <= 1)).all()
    np.testing.assert_allclose(frame["test_accuracy"], frame["test_correct"] / 150, rtol=1e-5)  # 6 digits
    assert (frame["accuracy_ci_low"] < frame["test_accuracy"]).all()
    assert (frame["test_accuracy"] < frame["accuracy_ci_high"]).all()
    assert (frame["peak_memory_gb"] >= frame["peak_memory_fit_gb"]).all()
    assert (frame["peak_memory_fit_gb"] >= frame["memory_before_fit_gb"]).all()
    assert (frame["memory_before_fit_gb"] > 0.05).all() and (frame["fit_seconds"] > 0).all()
    assert frame["within_time_budget"].all() and frame["within_memory_budget"].all()
    disdf, gcforest = frame.iloc[1], frame.iloc[0]
    assert disdf["weight_solver_seconds"] > 0 == gcforest["weight_solver_seconds"]
    # The discordant counts are the accuracy difference, image by image.
    assert (
        disdf["only_disdf_right"] - disdf["only_gcforest_right"]
        == disdf["test_correct"] - gcforest["test_correct"]
    )
    text = report.read_text()  # the folder's only section: in REPORT.md itself, no other document
    assert "<!-- section: mnist_full -->\n## DisDF on the full MNIST training set\n" in text
    assert not (tmp_path / "APPENDIX.md").exists() and not (tmp_path / "PERFORMANCE.md").exists()
    assert "400 training images, test accuracy on 150 test images" in text
    assert f"| DisDF    |        {disdf['n_levels']} |" in text


def test_regenerating_the_tables_keeps_the_mnist_section(tmp_path):
    from experiments.reporting.report import put_section
    from experiments.reporting.sections.mnist_full import report_section

    row = {
        "method": ["gcforest"],
        "n_levels": [2],
        "level_oof_accuracy": ["0.9 0.91"],
        "test_accuracy": [0.9],
        "accuracy_ci_low": [0.89],
        "accuracy_ci_high": [0.91],
        "fit_seconds": [60.0],
        "weight_solver_seconds": [0.0],
        "predict_seconds": [1.0],
        "peak_memory_gb": [9.0],
        "within_time_budget": [True],
        "within_memory_budget": [False],
        "date": ["2026-01-01"],
        "machine": ["m"],
        "n_jobs": [2],
        "version": ["0"],
        "n_train": [60000],
        "n_test": [10000],
        "n_trees": [100],
        "engine": ["fast"],
        "seed": [0],
        "lambda_": [1.0],
        "tau": [1.0],
        "solver": ["stochastic_frank_wolfe"],
        "solver_options": ["{}"],
        "fit_minutes_budget": [30.0],
        "memory_gb_budget": [8.0],
    }
    section = report_section(pd.DataFrame(row))
    assert "30 min for gcF: NOT met (1.0 min, 9.00 GiB)" in section
    put_section(tmp_path, "mnist_full", section)
    put_section(tmp_path, "protocol", "## Method\nregenerated tables")
    assert "regenerated tables" in (tmp_path / "REPORT.md").read_text()
    assert (tmp_path / "PERFORMANCE.md").read_text().count(section.strip("\n")) == 1


def test_one_method_alone_gets_its_row_and_no_paired_comparison(tmp_path, data_dir):
    cfg = make_config(
        f"data.dir={data_dir}",
        "full_mnist.n_train=200",
        "full_mnist.n_test=50",
        "full_mnist.n_trees=2",
        "model.max_levels=1",
        "protocol.methods=[gcforest]",
        "runtime.n_jobs=1",
        f"runtime.output_dir={tmp_path}",
    )
    run_full_mnist(cfg)
    frame = pd.read_csv(tmp_path / "mnist_full.csv")
    assert list(frame["method"]) == ["gcforest"] and frame["fit_minutes_budget"].tolist() == [8.0]
    assert "mcnemar_p" not in frame and "McNemar" not in (tmp_path / "REPORT.md").read_text()


def test_a_slice_writes_its_own_folder_and_only_the_committed_run_writes_results(monkeypatch, tmp_path):
    from joblib import effective_n_jobs

    from experiments.drivers.full_mnist import OTHER_RUNS_DIR, run_output_dir
    from experiments.paths import ROOT
    from experiments.safety.guards import writes_headline

    monkeypatch.chdir(ROOT)  # the config's results/ is relative, as `make mnist-full` runs it
    for same in ([], [f"runtime.n_jobs={effective_n_jobs(-1)}"], [f"data.dir={tmp_path}"]):
        assert writes_headline(run_output_dir(make_config(*same), ["experiment=mnist_full", *same]))
    for overrides in (
        ["full_mnist.n_train=2000"],
        ["full_mnist.n_trees=4", "model.max_levels=2"],
        ["protocol.methods=[gcforest]"],
        ["solver=frank_wolfe_away"],
    ):
        folder = run_output_dir(make_config(*overrides), ["experiment=mnist_full", *overrides])
        assert folder == OTHER_RUNS_DIR and not writes_headline(folder), overrides
    chosen = ["full_mnist.n_train=2000", f"runtime.output_dir={tmp_path}"]
    assert run_output_dir(make_config(*chosen), chosen) == str(tmp_path)
    # Chosen on the command line, results/ stays (and is refused by the check below, not moved).
    pointed = ["full_mnist.n_train=2000", "runtime.output_dir=results"]
    assert run_output_dir(make_config(*pointed), pointed) == "results"


@pytest.mark.parametrize(
    ("overrides", "named"),
    [
        (["full_mnist.n_train=2000"], r"full_mnist\.n_train=2000 \(committed: null\)"),
        (["full_mnist.n_test=500"], r"full_mnist\.n_test=500 \(committed: null\)"),
        (["full_mnist.n_trees=4"], r"full_mnist\.n_trees=4 \(committed: 100\)"),
        (["full_mnist.seed=1"], r"full_mnist\.seed=1 \(committed: 0\)"),
        (["model.engine=fast"], r"model\.engine=fast \(committed: binned\)"),
        (["solver.options.max_iter=50"], r"solver\.options\.max_iter=50 \(committed: 2000\)"),
        (["protocol.methods=[disdf]"], r"protocol\.methods=\[disdf\] \(committed: \[gcforest,disdf\]\)"),
        pytest.param(
            ["runtime.n_jobs=1"],
            r"runtime\.n_jobs=1 \(committed: ",
            marks=pytest.mark.skipif(os.cpu_count() == 1, reason="all cores is one core here"),
        ),
    ],
)
def test_a_run_other_than_the_committed_one_is_refused_the_committed_files_before_any_work(
    overrides, named, tmp_path
):
    from experiments.paths import ROOT

    committed = f"runtime.output_dir={ROOT / 'results'}"
    # An empty data folder: a run that got past the check would fail on the missing MNIST files.
    cfg = make_config(*overrides, committed, f"data.dir={tmp_path}")
    with pytest.raises(ValueError, match=f"committed full-MNIST results.* differs in {named}") as refused:
        run_full_mnist(cfg)
    assert "\n" not in str(refused.value) and "runtime.output_dir=build/mnist_full" in str(refused.value)
    check_committed_folder(make_config(committed))  # the committed settings may write there


def test_the_images_read_as_float32_are_load_mnists_values(data_dir):
    from disdf import load_mnist
    from experiments.drivers.full_mnist import mnist_float32

    X_train, y_train, X_test, y_test = mnist_float32(data_dir, 300, 40)
    mnist = load_mnist(data_dir, download=False)
    assert X_train.dtype == X_test.dtype == np.float32 and X_train.shape == (300, 784)
    np.testing.assert_array_equal(X_train, mnist["X_train"][:300])
    np.testing.assert_array_equal(X_test, mnist["X_test"][:40])
    np.testing.assert_array_equal(y_train, mnist["y_train"][:300])
    np.testing.assert_array_equal(y_test, mnist["y_test"][:40])


def test_the_disk_mode_line_compares_each_method_with_its_in_memory_fit():
    from experiments.reporting.sections.mnist_full import disk_mode_lines

    def rows(peak, oof, correct):
        return pd.DataFrame(
            {
                "method": ["gcforest", "disdf"],
                "level_oof_accuracy": oof,
                "test_correct": correct,
                "peak_memory_gb": peak,
                "fit_seconds": [600.0, 660.0],
                "predict_seconds": [50.0, 40.0],
                "date": ["2026-01-01"] * 2,
                "commit": ["abc"] * 2,
            }
        )

    memory = rows([2.9, 2.8], ["0.9 0.91", "0.9 0.92"], [9791, 9785])
    same = disk_mode_lines(memory, rows([1.9, 1.8], ["0.9 0.91", "0.9 0.92"], [9791, 9785]))
    assert "gcF: peak 1.90 GiB (in memory 2.90)" in same and "DisDF: peak 1.80 GiB (in memory 2.80)" in same
    assert same.count("the same out-of-fold accuracy") == 2 and "differ" not in same
    differing = disk_mode_lines(memory, rows([1.9, 1.8], ["0.9 0.91", "0.9 0.93"], [9791, 9785]))
    assert differing.count("the same out-of-fold accuracy") == 1 and "**accuracies differ" in differing
    assert "speed varies" not in same  # both on one day; a disk row of another day says so
    later = rows([1.9, 1.8], ["0.9 0.91", "0.9 0.92"], [9791, 9785]).assign(date="2026-01-02")
    assert disk_mode_lines(memory, later).count("times of two days") == 2
