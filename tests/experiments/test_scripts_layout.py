"""scripts/ is grouped by role, indexed in scripts/README.md, and every caller names a script that
exists: the Makefile, the READMEs, .gitattributes, the tests. Each script starts from any folder."""

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "scripts"
ROLES = ("bench", "evidence", "figures", "tools")
#: The only modules directly in scripts/: the package, the benchmarks' shared helper and their schema.
SHARED = {"__init__.py", "bench_output.py", "bench_tables.py"}
MODULES = sorted(path for path in SCRIPTS.rglob("*.py") if path.name != "__init__.py")
RUNNABLE = [path for path in MODULES if "__main__" in path.read_text()]
BOOTSTRAP = "sys.path.insert(0, str(Path(__file__).resolve().parents[2]))"
#: Files whose text may name a script by its path.
CALLERS = [ROOT / "Makefile", ROOT / "README.md", ROOT / ".gitattributes", SCRIPTS / "README.md"]
CALLERS += [*sorted((ROOT / "tests").rglob("*.py")), *MODULES]


def relative(path: Path) -> str:
    return path.relative_to(SCRIPTS).as_posix()


def test_every_script_sits_in_a_role_folder():
    assert {path.name for path in SCRIPTS.glob("*.py")} == SHARED
    assert {path.parent.name for path in MODULES if path.parent != SCRIPTS} == set(ROLES)
    assert all((SCRIPTS / role / "__init__.py").is_file() for role in ROLES)
    assert len(RUNNABLE) >= 24


def test_the_index_has_one_line_per_script_and_only_scripts_that_exist():
    index = (SCRIPTS / "README.md").read_text()
    listed = []
    for heading, section in re.findall(r"^## (\w+)/.*?\n(.*?)(?=^## |\Z)", index, flags=re.M | re.S):
        listed += [f"{heading}/{name}" for name in re.findall(r"^\| `(\w+\.py)` \|", section, flags=re.M)]
    in_folders = sorted(relative(path) for path in MODULES if path.parent != SCRIPTS)
    assert sorted(listed) == in_folders
    assert "| `bench_output.py` |" in index


@pytest.mark.parametrize("path", RUNNABLE, ids=relative)
def test_a_script_puts_its_checkout_first_and_imports_scripts_as_a_package(path):
    text = path.read_text()
    body = ast.parse(text).body
    (first,) = [index for index, node in enumerate(body) if ast.get_source_segment(text, node) == BOOTSTRAP]
    before = {alias.name for node in body[:first] if isinstance(node, ast.Import) for alias in node.names}
    before |= {node.module for node in body[:first] if isinstance(node, ast.ImportFrom)}
    assert before <= {"__future__", "sys", "pathlib"}  # disdf, experiments, scripts: this checkout's
    imported = {node.module for node in body if isinstance(node, ast.ImportFrom)}
    assert not imported & {"plotting", "bench_output", "bench_split_breakdown", "compare_records"}


def test_every_script_path_a_caller_names_exists():
    named = set()
    for caller in CALLERS:
        named |= set(re.findall(r"\bscripts/((?:\w+/)*\w+\.py)\b", caller.read_text()))
    missing = sorted(name for name in named if not (SCRIPTS / name).is_file())
    assert missing == [] and len(named) >= 20


def test_the_make_targets_that_produce_committed_evidence_record():
    writers = {relative(path) for path in RUNNABLE if "results/bench" in path.read_text()}
    invocations = re.findall(r"scripts/(\w+/\w+\.py)([^\n]*)", (ROOT / "Makefile").read_text())
    recorded = {script for script, arguments in invocations if script in writers}
    assert len(recorded) >= 12  # make bench, bench-df21, soak, engine-equivalence
    for script, arguments in invocations:
        if script in writers:
            assert re.search(r"\s--record\b", arguments), script
    textconv = '-@git config diff.records.textconv "$(BIN)/python scripts/tools/records_textconv.py"'
    assert textconv in (ROOT / "Makefile").read_text().split("\ninstall:", 1)[1].split("\n\n", 1)[0]


@pytest.mark.slow
@pytest.mark.parametrize("path", RUNNABLE, ids=relative)
def test_a_script_starts_from_any_folder_without_pythonpath(path, tmp_path):
    """Its --help (records_textconv: a one-record file) from a foreign folder, PYTHONPATH unset."""
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    if path.name == "records_textconv.py":
        record = tmp_path / "a.jsonl"
        record.write_text('{"accuracy": 0.5, "fit_seconds": 1.0}\n')
        arguments = [str(record)]
    else:
        arguments = ["--help"]
    done = subprocess.run(
        [sys.executable, str(path), *arguments], cwd=tmp_path, env=environment, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(("usage:", "{", f"{path.stem} is powered by Hydra"))
