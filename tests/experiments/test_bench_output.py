"""scripts/bench_output.py, the benchmarks' one helper: where a CSV goes (results/bench/ only with
--record), the stamp of every new row, the one merge rule of the CSV write (by the key each table
declares in scripts/bench_tables.py) and the timing."""

import argparse
import ast
import importlib.util
import sys
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from experiments.safety.provenance import measurement_stamp as provenance_stamp
from scripts import bench_output
from scripts.bench_output import STAMP_COLUMNS, best_of, measurement_stamp, timed, write_csv
from scripts.bench_tables import BENCH_TABLES, EVERY_COLUMN
from scripts.tools import merge_rows

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "scripts"
#: Every script of a role folder that names results/bench (in its docstring at least) measures into it.
WRITERS = sorted(path for path in SCRIPTS.glob("*/*.py") if "results/bench" in path.read_text())
STAMP = {"date": "2026-01-02", "commit": "abc1234", "libraries": "numpy 2.0"}


@pytest.fixture
def folders(monkeypatch, tmp_path):
    """The helper's two folders moved under tmp_path (a test writes nothing in the checkout)."""
    assert bench_output.RECORDED == ROOT / "results" / "bench"
    assert bench_output.UNRECORDED == ROOT / "build" / "bench"
    assert "build/" in (ROOT / ".gitignore").read_text().splitlines()
    monkeypatch.setattr(bench_output, "RECORDED", tmp_path / "results" / "bench")
    monkeypatch.setattr(bench_output, "UNRECORDED", tmp_path / "build" / "bench")


def parsed(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path)
    bench_output.add_record_flag(parser)
    return parser.parse_args(argv)


def test_a_run_writes_build_bench_unless_recorded_and_an_explicit_path_wins(folders, tmp_path, capsys):
    path = bench_output.bench_output(parsed(), "tuning")
    assert path == tmp_path / "build" / "bench" / "tuning.csv" and path.parent.is_dir()
    assert f"tuning: writing {path} (--record writes {tmp_path / 'results' / 'bench'}/tuning.csv)" in (
        capsys.readouterr().out
    )
    recorded = bench_output.bench_output(parsed("--record"), "tuning")
    assert recorded == tmp_path / "results" / "bench" / "tuning.csv"
    assert f"tuning: writing {recorded}\n" == capsys.readouterr().out
    mine = tmp_path / "elsewhere" / "mine.csv"
    for argv in (["--out", str(mine)], ["--out", str(mine), "--record"]):
        args = parsed(*argv)
        assert bench_output.bench_output(args, "tuning", args.out) == mine and mine.parent.is_dir()


# --- the stamp ------------------------------------------------------------------------------------


def test_the_stamp_is_the_provenance_one_and_falls_back_without_experiments(monkeypatch):
    stamp = measurement_stamp()
    assert tuple(stamp) == STAMP_COLUMNS and stamp.keys() == provenance_stamp().keys()
    assert stamp["commit"] == provenance_stamp()["commit"] and "numpy" in stamp["libraries"]
    # DF21's venv: `experiments` does not import (no hydra); the same columns from the standard library.
    monkeypatch.setitem(sys.modules, "experiments.safety.provenance", None)
    fallback = measurement_stamp()
    assert tuple(fallback) == STAMP_COLUMNS
    assert fallback["date"] == datetime.now(timezone.utc).strftime("%Y-%m-%d")
    assert fallback["commit"] == stamp["commit"].rstrip("+") and fallback["libraries"].startswith("numpy ")


def test_the_stamp_falls_back_where_experiments_exits_for_its_missing_extra(monkeypatch):
    """DF21's venv: ``import experiments`` raises SystemExit naming hydra & co., not ModuleNotFoundError."""
    for name in [name for name in sys.modules if name == "experiments" or name.startswith("experiments.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *rest: None)
    with pytest.raises(SystemExit, match="'experiments' extra"):
        import experiments.safety.provenance  # noqa: F401
    fallback = measurement_stamp()
    assert tuple(fallback) == STAMP_COLUMNS and fallback["libraries"].startswith("numpy ")


# --- the CSV write --------------------------------------------------------------------------------


def test_a_new_file_stamps_every_row_and_writes_cells_as_pandas_would(tmp_path):
    frame = pd.DataFrame({"name": ["a", "b,c"], "n": [1, 2], "x": [0.123456, np.nan], "ok": [True, False]})
    path = tmp_path / "sub" / "bench.csv"
    write_csv(path, frame, key=("name",), stamp=STAMP, float_format="%.3g")
    assert path.read_text() == (
        "name,n,x,ok,date,commit,libraries\n"
        "a,1,0.123,True,2026-01-02,abc1234,numpy 2.0\n"
        '"b,c",2,,False,2026-01-02,abc1234,numpy 2.0\n'
    )
    expected = frame.assign(**STAMP).assign(x=[0.123, np.nan])
    pd.testing.assert_frame_equal(pd.read_csv(path), expected)


def test_new_keys_are_appended_and_the_old_bytes_stay(tmp_path):
    path = tmp_path / "sample.csv"
    old = "label,wall,date,commit,libraries\nbefore,1.50,2025-01-01,0000000,numpy 1\n"
    path.write_text(old)
    write_csv(path, [{"label": "after", "wall": 2.0}], key=("label",), stamp=STAMP)
    assert path.read_text() == old + "after,2.0,2026-01-02,abc1234,numpy 2.0\n"


def test_new_columns_widen_the_header_and_leave_old_rows_unstamped(tmp_path):
    """A CSV written before the stamp: its rows keep every value, empty (NaN) in the new columns."""
    path = tmp_path / "soak.csv"
    old_rows = ["3,0.25,x86 Linux", '4,1e-06,"a, b"']
    path.write_text("kills,seconds,machine\r\n" + "\r\n".join(old_rows) + "\r\n")  # csv's own line ends
    write_csv(path, [{"kills": 5, "seconds": 0.5, "lost": 0}], key=("kills",), stamp=STAMP)
    lines = path.read_bytes().decode().split("\r\n")
    assert lines[0] == "kills,seconds,machine,lost,date,commit,libraries"
    assert lines[1:3] == [row + ",,,," for row in old_rows]
    assert lines[3:] == ["5,0.5,,0,2026-01-02,abc1234,numpy 2.0", ""]
    frame = pd.read_csv(path)
    assert frame["kills"].tolist() == [3, 4, 5] and frame["machine"].tolist()[:2] == ["x86 Linux", "a, b"]
    assert frame["commit"].isna().tolist() == [True, True, False]


def test_a_row_of_a_declared_key_replaces_the_old_one_in_its_place(tmp_path):
    """The one merge rule, with the key the table declares (split_breakdown: label, dataset, N)."""
    assert BENCH_TABLES["split_breakdown"] == ("label", "dataset", "N")
    path = tmp_path / "split_breakdown.csv"
    path.write_text("label,dataset,N,seconds\nbefore,ecoli,50,4.1\nafter,ecoli,50,3.0\nafter,mnist,50,9.0\n")
    write_csv(path, [{"label": "after", "dataset": "ecoli", "N": 50, "seconds": 2.5}])
    frame = pd.read_csv(path, dtype={"commit": str})  # a short hash can be all digits (1028691)
    assert frame[["label", "dataset", "seconds"]].values.tolist() == [
        ["before", "ecoli", 4.1],
        ["after", "ecoli", 2.5],  # in the place of the row it measures again
        ["after", "mnist", 9.0],  # another key's evidence stays
    ]
    assert frame["commit"].isna().tolist() == [True, False, True]  # the new row only, stamped
    assert frame["commit"].iloc[1] == measurement_stamp()["commit"]


def test_a_key_of_numbers_matches_however_the_number_was_written(tmp_path):
    """pandas writes the integers of a column with a missing value as 5000.0: the same key as 5000."""
    path = tmp_path / "small_n_cost.csv"
    path.write_text("dataset,method,max_pairs,cpu_seconds\ndigits,gcforest,,1.2\ndigits,disdf,5000.0,2.0\n")
    write_csv(
        path, [{"dataset": "digits", "method": "disdf", "max_pairs": 5000, "cpu_seconds": 1.5}], stamp={}
    )
    assert pd.read_csv(path)["cpu_seconds"].tolist() == [1.2, 1.5]  # replaced, not a second row
    write_csv(
        path, [{"dataset": "digits", "method": "disdf", "max_pairs": "auto", "cpu_seconds": 1.9}], stamp={}
    )
    assert pd.read_csv(path)["max_pairs"].tolist()[1:] == ["5000", "auto"]  # another key: appended


def test_a_log_appends_every_run_and_an_undeclared_table_or_a_shared_key_is_refused(tmp_path):
    assert BENCH_TABLES["protocol_sample"] == EVERY_COLUMN
    log = tmp_path / "protocol_sample.csv"
    for _ in range(2):
        write_csv(log, [{"label": "before", "wall_seconds": 2.0}], stamp=STAMP)
    write_csv(log, [{"label": "before", "wall_seconds": 3.0}], stamp=STAMP)
    # one row per run; the same run written twice is one row
    assert pd.read_csv(log)["wall_seconds"].tolist() == [2.0, 3.0]
    unknown = tmp_path / "not_declared.csv"
    with pytest.raises(KeyError, match="no benchmark table 'not_declared': declare its key"):
        write_csv(unknown, [{"n": 1}], stamp=STAMP)
    table = tmp_path / "first_fit.csv"
    with pytest.raises(ValueError, match="two new rows share the key"):
        write_csv(table, [{"stage": "cold", "cpu": 1}, {"stage": "cold", "cpu": 2}], stamp=STAMP)
    with pytest.raises(ValueError, match=r"lacks the key column\(s\) \['stage'\]"):
        write_csv(table, [{"cpu": 1}], stamp=STAMP)
    assert not unknown.exists() and not table.exists()  # refused before anything is written


def test_every_committed_benchmark_csv_is_declared_and_holds_one_row_per_key():
    """The schema of results/bench: each file declared, with its key columns, no key twice, and the
    stamp columns last where the file has them."""
    files = {path.stem: path for path in (ROOT / "results" / "bench").glob("*.csv")}
    assert set(files) == set(BENCH_TABLES)
    for name, path in files.items():
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
        key = list(frame.columns) if BENCH_TABLES[name] == EVERY_COLUMN else list(BENCH_TABLES[name])
        assert set(key) <= set(frame.columns), name
        assert not frame.duplicated(key).any(), name


def test_a_rows_own_stamp_column_wins_and_stamp_columns_come_last(tmp_path):
    path = write_csv(tmp_path / "a.csv", [{"date": "2026-01-02T10:00:00", "n": 1}], key=("n",), stamp=STAMP)
    assert path.read_text().splitlines() == [
        "n,date,commit,libraries",
        "1,2026-01-02T10:00:00,abc1234,numpy 2.0",
    ]
    # A column only a later row has (a summary row's test statistic) still comes before the stamp.
    write_csv(path, [{"n": 1}, {"n": 2, "p": 0.5}], key=("n",), stamp=STAMP)
    assert path.read_text().splitlines() == [
        "n,p,date,commit,libraries",
        "1,,2026-01-02,abc1234,numpy 2.0",
        "2,0.5,2026-01-02,abc1234,numpy 2.0",
    ]
    # Rows stamped already (a merge of old and new rows): an empty stamp adds nothing.
    write_csv(path, [{"n": 2, "commit": "old"}], key=("n",), stamp={})
    assert path.read_text().splitlines()[2] == "2,,,old,"


# --- timing ---------------------------------------------------------------------------------------


def test_timed_returns_the_value_and_best_of_the_least_time(monkeypatch):
    assert timed(lambda: 42)[0] == 42
    clock = iter([0.0, 0.02, 1.0, 1.0, 2.0, 2.01])  # three calls of 0.02, 0 and 0.01 s
    monkeypatch.setattr(bench_output.time, "perf_counter", lambda: next(clock))
    calls = []
    assert best_of(3, lambda: calls.append(1)) == 0.0 and len(calls) == 3


# --- the scripts use it ---------------------------------------------------------------------------


def strings_outside_docstrings(tree: ast.Module) -> list[str]:
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


def called_names(tree: ast.Module) -> set[str]:
    calls = (node for node in ast.walk(tree) if isinstance(node, ast.Call))
    return {call.func.id for call in calls if isinstance(call.func, ast.Name)}


def attribute_calls(tree: ast.Module) -> set[str]:
    calls = (node for node in ast.walk(tree) if isinstance(node, ast.Call))
    return {call.func.attr for call in calls if isinstance(call.func, ast.Attribute)}


def test_every_benchmark_and_evidence_script_writes_a_csv():
    names = {path.relative_to(SCRIPTS).as_posix() for path in WRITERS}
    runnable = [*(SCRIPTS / "bench").glob("*.py"), *(SCRIPTS / "evidence").glob("*.py")]
    roles = {path.relative_to(SCRIPTS).as_posix() for path in runnable if "__main__" in path.read_text()}
    # bench/df21_splits.py prints JSON lines for experiments/drivers/benchmark_df21.py, which writes the CSV
    roles -= {"bench/df21_splits.py"}
    assert len(roles) >= 16 and roles <= names and names - roles == {"tools/soak_resume.py"}


@pytest.mark.parametrize("path", WRITERS, ids=[path.name for path in WRITERS])
def test_a_script_writes_its_csv_stamped_through_the_helper_only(path):
    tree = ast.parse(path.read_text())
    imported = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "scripts.bench_output"
        for alias in node.names
    }
    # its output path from the helper: --record and bench_output, or both through repeated_splits_arguments
    output = (
        {"repeated_splits_arguments"}
        if "repeated_splits_arguments" in imported
        else {"add_record_flag", "bench_output"}
    )
    writers = (
        {"write_csv", "write_and_show"} & imported & called_names(tree)
    )  # write_and_show calls write_csv
    assert output <= imported and output <= called_names(tree) and writers
    # Neither pandas' nor csv's own writer, nor a stamp of its own making: the helper's.
    assert not {"to_csv", "writer", "DictWriter"} & attribute_calls(tree)
    imports = [node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    assert "experiments.safety.provenance" not in imports
    # No path of its own into results/bench: neither "results/bench/..." nor ROOT / "results" / "bench".
    hard_coded = [s for s in strings_outside_docstrings(tree) if "results/bench" in s or s == "bench"]
    assert hard_coded == []


def test_merge_rows_replaces_the_measured_keys_and_keeps_the_other_rows_byte_for_byte(
    tmp_path, monkeypatch, capsys
):
    committed = tmp_path / "disk.csv"
    committed.write_text("method,peak_memory_gb,date\ngcforest,1.81015,2026-11-25\ndisdf,9.9,2026-11-20\n")
    run = tmp_path / "run.csv"
    run.write_text("method,peak_memory_gb,date\ndisdf,1.7,2026-11-26\n")
    monkeypatch.setattr(sys, "argv", ["merge_rows.py", str(run), str(committed), "--key", "method"])
    merge_rows.main()
    assert (
        committed.read_text()
        == "method,peak_memory_gb,date\ngcforest,1.81015,2026-11-25\ndisdf,1.7,2026-11-26\n"
    )
    monkeypatch.setattr(sys, "argv", ["merge_rows.py", str(run), str(committed), "--key", "engine"])
    with pytest.raises(SystemExit):
        merge_rows.main()  # refused before writing: the key is not a column
    assert "--key engine: not a column" in capsys.readouterr().err
    assert committed.read_text().count("\n") == 3


def test_write_and_show_writes_by_the_one_rule_and_prints_the_new_rows(tmp_path, capsys):
    path = tmp_path / "split_breakdown.csv"
    path.write_text("label,dataset,N,seconds\nbefore,ecoli,50,4.1\n")
    bench_output.write_and_show(path, [{"label": "after", "dataset": "ecoli", "N": 50, "seconds": 2.5}])
    assert pd.read_csv(path)["seconds"].tolist() == [4.1, 2.5]
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].split() == ["label", "dataset", "N", "seconds"] and printed[1].split() == [
        "after",
        "ecoli",
        "50",
        "2.5",
    ]
