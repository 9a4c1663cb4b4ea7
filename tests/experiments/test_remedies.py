"""Messages and make targets agree: every remedy a refusal prints works when followed literally, the
manifest names only files that are there, and a report with nothing to read says so and fails."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from experiments.paths import ROOT
from experiments.safety.generation import (
    MANIFEST,
    IncompleteOutputsError,
    check_generation,
    new_generation,
    read_manifest,
)


@pytest.mark.parametrize("engine", ["fast", "sklearn"])
def test_make_tables_acts_on_the_folder_it_is_given_with_either_engine(engine):
    """`make tables RESULTS=<folder>` used to write results/ (the default engine) and leave the folder."""
    done = subprocess.run(
        ["make", "-n", "tables", "RESULTS=build/some_run", "EXPERIMENT=quick", f"ENGINE={engine}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    (command,) = [line for line in done.stdout.splitlines() if "experiments.reporting.report" in line]
    assert "runtime.output_dir=build/some_run" in command and "experiment=quick" in command


def test_the_manifest_never_lists_a_file_the_generation_removed(tmp_path):
    (tmp_path / "tables").mkdir()
    for name in ("ecoli.csv", "mnist.csv"):
        (tmp_path / "tables" / name).write_text("old")
    with new_generation(tmp_path, {"config_hash": "a", "experiment": "quick"}) as written:
        (tmp_path / "tables" / "ecoli.csv").write_text("new")
        written.append(tmp_path / "tables" / "ecoli.csv")
        (tmp_path / "tables" / "mnist.csv").unlink()  # another run's table, removed by the section
    assert set(read_manifest(tmp_path)["files"]) == {"tables/ecoli.csv"}
    assert check_generation(tmp_path)["complete"]


def test_a_corrupt_manifest_names_the_command_that_rewrites_it_and_that_command_can(tmp_path):
    (tmp_path / "tables").mkdir()
    (tmp_path / "tables" / "ecoli.csv").write_text("x")
    (tmp_path / MANIFEST).write_text("{ not json")
    with pytest.raises(IncompleteOutputsError) as refused:
        check_generation(tmp_path)
    assert f"make tables figures RESULTS={tmp_path.as_posix()} EXPERIMENT=" in str(refused.value)
    with new_generation(tmp_path, {"config_hash": "a", "experiment": "quick"}) as written:
        written.append(tmp_path / "tables" / "ecoli.csv")  # the rewrite does not trip on the old one
    assert json.loads((tmp_path / MANIFEST).read_text())["complete"]
    (tmp_path / "tables" / "ecoli.csv").write_text("edited")
    with pytest.raises(IncompleteOutputsError, match=rf"RESULTS={tmp_path.as_posix()} EXPERIMENT=quick`"):
        check_generation(tmp_path)


@pytest.mark.parametrize("case", ["missing", "empty"])
def test_a_report_with_nothing_to_read_writes_nothing_and_fails(tmp_path, case):
    """It used to exit 0, make the folder and say it wrote REPORT.md."""
    folder = tmp_path / "run"
    if case == "empty":
        folder.mkdir()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "experiments.reporting.report",
            "experiment=quick",
            f"runtime.output_dir={folder}",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[-1].startswith("Nothing was written.") and "Traceback" not in done.stderr
    assert folder.exists() == (case == "empty")
    assert not (folder / "REPORT.md").exists()


def run_smoke(tmp_path, *overrides, env=None):
    """``python -m experiments.run experiment=smoke`` in ``tmp_path``, its output in one string."""
    environment = {**os.environ, **(env or {})}
    command = [sys.executable, "-m", "experiments.run", "experiment=smoke", "runtime.progress=false"]
    done = subprocess.run(
        [*command, *overrides], cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=300
    )
    return done.returncode, (done.stdout + done.stderr).strip()


def refused_in_one_line(returncode: int, output: str, pattern: str) -> bool:
    lines = [line for line in output.splitlines() if "Nothing was run." in line]
    return (
        returncode == 2
        and len(lines) == 1
        and "Traceback" not in output
        and bool(re.search(pattern, lines[0]))
    )


@pytest.mark.parametrize(
    ("fault", "pattern"),
    [
        ("raw/ a file", r"runtime\.output_dir's raw/='.*raw' is not a writable folder"),
        ("tables/ a file", r"runtime\.output_dir's tables/='.*tables' is not a writable folder"),
        (".lock a folder", r"\.lock is not a file"),
    ],
)
def test_an_output_folder_fault_is_refused_before_any_unit(tmp_path, data_dir, fault, pattern):
    """They used to be found when the first split's records were written: the split was thrown away."""
    out = tmp_path / "out"
    out.mkdir()
    name = fault.split()[0].rstrip("/")
    if name == ".lock":
        (out / name).mkdir()
    else:
        (out / name).write_text("a file")
    returncode, output = run_smoke(
        tmp_path, f"runtime.output_dir={out}", env={"DISDF_DATA_DIR": str(data_dir)}
    )
    assert refused_in_one_line(returncode, output, pattern), output
    assert not list(out.glob("raw/*.jsonl")) if (out / "raw").is_dir() else True


@pytest.mark.parametrize("limit", ["inf", "1e999", "-2G", "0", "lots"])
def test_a_memory_limit_that_is_no_size_is_refused_in_one_line(tmp_path, data_dir, limit):
    """inf and 1e999 used to be an OverflowError with a traceback; -2G made every setting 'not fit'."""
    env = {"DISDF_DATA_DIR": str(data_dir), "DISDF_MEMORY_LIMIT": limit}
    returncode, output = run_smoke(tmp_path, f"runtime.output_dir={tmp_path / 'out'}", env=env)
    assert refused_in_one_line(returncode, output, rf"DISDF_MEMORY_LIMIT='{re.escape(limit)}' is not a"), (
        output
    )


def test_a_second_run_into_a_busy_folder_is_refused_in_one_line(tmp_path, data_dir):
    """It used to exit 1 with 'The run failed' and a traceback."""
    from experiments.safety.folder_lock import exclusive_folder

    out = tmp_path / "out"
    out.mkdir()
    with exclusive_folder(out):
        env = {"DISDF_DATA_DIR": str(data_dir)}
        returncode, output = run_smoke(tmp_path, f"runtime.output_dir={out}", env=env)
    assert returncode == 2 and "Traceback" not in output and "The run failed" not in output, output
