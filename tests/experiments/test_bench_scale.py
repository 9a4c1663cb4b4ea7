"""bench_scale.py's df21 curve: DF21's venv python run as a subprocess on the bench's own arrays (a stub
python here: CI has no DF21), and status rows instead of a failure when that venv is missing."""

import stat
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

from scripts.bench import bench_df21, bench_scale

#: A stand-in for DF21's venv python: checks what bench_scale passes and answers as bench_df21 --json would.
STUB = """\
    import json, sys
    import numpy as np
    arguments = sys.argv[1:]
    assert arguments[0].endswith("bench_df21.py"), arguments
    value = lambda flag: arguments[arguments.index(flag) + 1]
    assert "--json" in arguments and value("--mode") == "native" and value("--n-trees") == "100", arguments
    assert value("--n-jobs") == "3", arguments  # run_bench's
    with np.load(value("--npz")) as stored:
        X_train, y_train, X_test = stored["X_train"], stored["y_train"], stored["X_test"]
    assert y_train.shape == (len(X_train),) and X_train.dtype == np.float32
    print("DF21 chatter that is not the answer")
    print(json.dumps({
        "fit_seconds": X_train.shape[0] / 1000, "peak_memory_gib": 0.5, "peak_memory_fit_gib": 0.4,
        "memory_before_fit_gib": 0.1, "n_levels": X_train.shape[1], "test_accuracy": len(X_test) / 1e5,
        "library_version": "stub", "libraries": "deep-forest-py310 stub",
    }))
"""


def stub_python(tmp_path, body: str):
    path = tmp_path / "python"
    path.write_text(f"#!{sys.executable}\n" + textwrap.dedent(body))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def run_bench(
    monkeypatch, tmp_path, python, sizes=("500", "1000"), more=()
) -> tuple[pd.DataFrame, pd.DataFrame]:
    output = tmp_path / "scale.csv"
    argv = ["bench_scale.py", "--methods", "df21", "--problems", "higgs_like", "--higgs-sizes", *sizes, *more]
    argv += ["--n-jobs", "3", "--df21-python", str(python), "--output", str(output)]
    monkeypatch.setattr(sys, "argv", argv)
    bench_scale.main()
    return pd.read_csv(output), pd.read_csv(tmp_path / "scale_slopes.csv")


def test_without_the_df21_venv_the_curve_is_status_rows(monkeypatch, tmp_path):
    rows, slopes = run_bench(monkeypatch, tmp_path, tmp_path / "no-venv" / "bin" / "python")
    assert rows["n_train"].tolist() == [500, 1000] and rows["method"].eq("df21").all()
    assert rows["status"].eq(bench_scale.DF21_MISSING).all() and "fit_seconds" not in rows
    assert bench_scale.DF21_MISSING == "DF21 venv not found: make bench-df21 creates it"
    (curve,) = slopes.to_dict("records")
    assert curve["method"] == "df21" and curve["n_points"] == 0 and curve["stops"] == bench_scale.DF21_MISSING


def test_the_default_df21_python_is_the_makefiles_venv():
    makefile = (bench_scale.ROOT / "Makefile").read_text()
    assert "DF21_VENV ?= build/df21-venv" in makefile
    assert bench_scale.DF21_PYTHON == bench_scale.ROOT / "build" / "df21-venv" / "bin" / "python"


def test_df21_fits_the_benchs_arrays_in_its_own_python_and_its_json_line_is_the_row(monkeypatch, tmp_path):
    rows, slopes = run_bench(monkeypatch, tmp_path, stub_python(tmp_path, STUB))
    assert rows["status"].eq("ok").all() and rows["n_trees"].eq(100).all() and rows["n_jobs"].eq(3).all()
    # The stub's answers come from the arrays it was given: n rows of 28 features, 10,000 test rows.
    assert rows["fit_seconds"].tolist() == [0.5, 1.0] and rows["n_levels"].eq(28).all()
    assert rows["test_accuracy"].eq(0.1).all() and rows["peak_memory_gib"].eq(0.5).all()
    assert "library_version" not in rows and rows["libraries"].eq("deep-forest-py310 stub").all()
    (curve,) = slopes.to_dict("records")
    assert curve["n_points"] == 2 and curve["time_slope"] == pytest.approx(1.0)


def test_a_failing_df21_run_names_its_command_and_error(monkeypatch, tmp_path):
    python = stub_python(tmp_path, "import sys\nsys.exit('DF21 broke: no such thing')\n")
    with pytest.raises(RuntimeError, match=r"bench_df21\.py --npz .*failed \(1\): DF21 broke: no such thing"):
        run_bench(monkeypatch, tmp_path, python, sizes=("500",))


def test_bench_df21_reads_a_savez_file_and_refuses_a_bad_one(tmp_path):
    good = {
        "X_train": np.zeros((5, 3)),
        "y_train": np.zeros(5),
        "X_test": np.ones((2, 3)),
        "y_test": np.ones(2),
    }
    np.savez(tmp_path / "good.npz", **good)
    loaded = bench_df21.load_npz(tmp_path / "good.npz")
    assert all(np.array_equal(loaded[key], value) for key, value in good.items())
    np.savez(tmp_path / "missing.npz", **{key: good[key] for key in ("X_train", "y_train", "X_test")})
    with pytest.raises(ValueError, match="y_test are missing"):
        bench_df21.load_npz(tmp_path / "missing.npz")
    np.savez(tmp_path / "wide.npz", **{**good, "X_test": np.ones((2, 4))})
    with pytest.raises(ValueError, match=r"X_train \(5, 3\) and X_test \(2, 4\) do not match"):
        bench_df21.load_npz(tmp_path / "wide.npz")


def test_bench_df21_npz_needs_json(tmp_path, capsys):
    with pytest.raises(SystemExit):
        bench_df21.parse_args(["--npz", str(tmp_path / "a.npz")])
    assert "--npz needs --json" in capsys.readouterr().err
    assert bench_df21.parse_args(["--npz", "a.npz", "--json"]).data_dir is None


def test_resume_keeps_the_measured_sizes_as_written_and_runs_the_rest(monkeypatch, tmp_path):
    run_bench(monkeypatch, tmp_path, stub_python(tmp_path, STUB))
    before = (tmp_path / "scale.csv").read_text().splitlines()
    # This python refuses the sizes measured already: resuming must not fit them again.
    chatter = '    print("DF21 chatter'
    refusing = STUB.replace(chatter, "    assert len(X_train) == 2000, len(X_train)\n" + chatter)
    python, sizes = stub_python(tmp_path, refusing), ("500", "1000", "2000")
    rows, slopes = run_bench(monkeypatch, tmp_path, python, sizes=sizes, more=["--resume"])
    assert rows["n_train"].tolist() == [500, 1000, 2000] and rows["fit_seconds"].tolist() == [0.5, 1.0, 2.0]
    # The resumed rows, byte for byte.
    assert (tmp_path / "scale.csv").read_text().splitlines()[1:3] == before[1:3]
    (curve,) = slopes.to_dict("records")
    assert curve["n_points"] == 3 and curve["time_slope"] == pytest.approx(1.0)


def test_resume_measures_again_only_the_rows_taken_out_and_keeps_the_sizes_not_asked(monkeypatch, tmp_path):
    run_bench(monkeypatch, tmp_path, stub_python(tmp_path, STUB), sizes=("500", "1000", "2000"))
    lines = (tmp_path / "scale.csv").read_text().splitlines()
    (tmp_path / "scale.csv").write_text("\n".join([lines[0], lines[1], lines[3]]) + "\n")  # 1,000 taken out
    chatter = '    print("DF21 chatter'
    refusing = STUB.replace(chatter, "    assert len(X_train) == 1000, len(X_train)\n" + chatter)
    python = stub_python(tmp_path, refusing)
    rows, slopes = run_bench(monkeypatch, tmp_path, python, sizes=("1000",), more=["--resume"])
    # 500 and 2,000 were not asked: kept as written, in their places; 1,000 measured again, after them.
    assert rows["n_train"].tolist() == [500, 2000, 1000] and rows["status"].eq("ok").all()
    assert (tmp_path / "scale.csv").read_text().splitlines()[1:3] == [lines[1], lines[3]]
    (curve,) = slopes.to_dict("records")
    assert curve["n_points"] == 3 and curve["n_max"] == 2000


def test_disk_mode_fits_a_cascade_with_its_levels_on_disk_and_removes_them(monkeypatch, tmp_path):
    before = set(bench_scale.DISK_LEVELS.iterdir()) if bench_scale.DISK_LEVELS.is_dir() else set()
    output = tmp_path / "scale.csv"
    argv = ["bench_scale.py", "--methods", "gcforest", "random_forest", "--problems", "higgs_like"]
    argv += ["--higgs-sizes", "400", "--keep-fitted-levels", "disk", "--output", str(output)]
    monkeypatch.setattr(sys, "argv", argv)
    bench_scale.main()
    rows = pd.read_csv(output, keep_default_na=False).set_index("method")
    assert rows.loc["gcforest", "status"] == "ok" and rows.loc["gcforest", "keep_fitted_levels"] == "disk"
    assert rows.loc["random_forest", "keep_fitted_levels"] == ""  # not a cascade: nothing kept
    assert set(bench_scale.DISK_LEVELS.iterdir()) == before  # the fit's folder is gone


def test_a_capped_cascade_is_the_cascade_with_its_trees_capped():
    for capped, method in bench_scale.CAPPED_METHODS.items():
        estimator = bench_scale.make_method(capped, 2, 100)
        reference = bench_scale.make_method(method, 2, 100).get_params()
        assert estimator.get_params() == {**reference, "max_tree_samples": bench_scale.TREE_SAMPLE_CAP}
        assert reference["max_tree_samples"] is None


def test_a_capped_curve_below_its_cap_is_the_uncapped_curve(monkeypatch, tmp_path):
    output = tmp_path / "scale.csv"
    argv = ["bench_scale.py", "--methods", "gcforest", "gcforest_capped", "--problems", "higgs_like"]
    argv += ["--higgs-sizes", "300", "--output", str(output)]
    monkeypatch.setattr(sys, "argv", argv)
    bench_scale.main()  # each fit in its own process: the cap is TREE_SAMPLE_CAP, above the 200-row folds
    rows = pd.read_csv(output).set_index("method")
    assert (rows["status"] == "ok").all() and rows.loc["gcforest_capped", "keep_fitted_levels"] == "memory"
    for measure in ("test_accuracy", "n_levels"):  # the same trees: the same accuracy and depth
        assert rows.loc["gcforest_capped", measure] == rows.loc["gcforest", measure]
    assert set(pd.read_csv(tmp_path / "scale_slopes.csv")["method"]) == {"gcforest", "gcforest_capped"}
