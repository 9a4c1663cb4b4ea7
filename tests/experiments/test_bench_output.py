"""A benchmark writes the committed results/bench/ only with --record (scripts/bench_output.py)."""

import argparse
import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "scripts"
#: Every script that names results/bench (in its docstring at least) measures into it.
WRITERS = sorted(
    path
    for path in SCRIPTS.glob("*/*.py")
    if path.name != "bench_output.py" and "results/bench" in path.read_text()
)


@pytest.fixture
def bench_output(monkeypatch, tmp_path):
    """The helper, its two folders moved under tmp_path (a test writes nothing in the checkout)."""
    from scripts import bench_output

    assert bench_output.RECORDED == ROOT / "results" / "bench"
    assert bench_output.UNRECORDED == ROOT / "build" / "bench"
    assert "build/" in (ROOT / ".gitignore").read_text().splitlines()
    monkeypatch.setattr(bench_output, "RECORDED", tmp_path / "results" / "bench")
    monkeypatch.setattr(bench_output, "UNRECORDED", tmp_path / "build" / "bench")
    return bench_output


def parsed(module, *argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path)
    module.add_record_flag(parser)
    return parser.parse_args(argv)


def test_a_run_writes_build_bench_unless_recorded_and_an_explicit_path_wins(bench_output, tmp_path, capsys):
    path = bench_output.bench_output(parsed(bench_output), "tuning")
    assert path == tmp_path / "build" / "bench" / "tuning.csv" and path.parent.is_dir()
    assert f"tuning: writing {path} (--record writes {tmp_path / 'results' / 'bench'}/tuning.csv)" in (
        capsys.readouterr().out
    )
    recorded = bench_output.bench_output(parsed(bench_output, "--record"), "tuning")
    assert recorded == tmp_path / "results" / "bench" / "tuning.csv"
    assert f"tuning: writing {recorded}\n" == capsys.readouterr().out
    mine = tmp_path / "elsewhere" / "mine.csv"
    for argv in (["--out", str(mine)], ["--out", str(mine), "--record"]):
        args = parsed(bench_output, *argv)
        assert bench_output.bench_output(args, "tuning", args.out) == mine and mine.parent.is_dir()


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


@pytest.mark.parametrize("path", WRITERS, ids=[path.name for path in WRITERS])
def test_a_script_that_writes_results_bench_resolves_its_file_with_the_helper(path):
    tree = ast.parse(path.read_text())
    imported = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "scripts.bench_output"
        for alias in node.names
    }
    assert {"add_record_flag", "bench_output"} <= imported
    assert {"add_record_flag", "bench_output"} <= called_names(tree)
    # No path of its own into results/bench: neither "results/bench/..." nor ROOT / "results" / "bench".
    hard_coded = [s for s in strings_outside_docstrings(tree) if "results/bench" in s or s == "bench"]
    assert hard_coded == []


def test_the_make_targets_that_produce_committed_evidence_record():
    names = {path.name for path in WRITERS}
    assert len(names) >= 17 and {"bench_df21.py", "soak_resume.py", "solver_tolerance.py"} <= names
    invocations = re.findall(r"^\t.*?scripts/\w+/(\w+\.py)(.*)$", (ROOT / "Makefile").read_text(), flags=re.M)
    recorded = {script for script, arguments in invocations if script in names}
    assert len(recorded) >= 12  # make bench, bench-df21, soak, engine-equivalence
    for script, arguments in invocations:
        if script in names:
            assert "--record" in arguments.split(), script
