"""A before/after benchmark takes the "before" (a git revision, a solver setting) as an argument:
no default, Makefile line or fixed list pins a retired one."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from scripts.bench import bench_grow_tree, bench_protocol_parts_ab, bench_solvers, bench_split_solves
from scripts.bench.solver_settings import parse_setting

ROOT = Path(__file__).resolve().parents[2]
#: The revision and the Frank-Wolfe setting the benchmarks once compared against by default.
RETIRED = ("8b02f80", "support_newton")


def test_a_setting_is_a_name_and_checked_options():
    words = ["support_newton", "newton_every=20", "newton_adds_trees=false"]
    assert parse_setting(words) == ("support_newton", {"newton_every": 20, "newton_adds_trees": False})
    assert parse_setting(["tol=1e-4", "newton_adds_trees=False"]) == (
        "tol=1e-4 newton_adds_trees=False",
        {"tol": 1e-4, "newton_adds_trees": False},
    )
    for bad, message in (
        (["only_a_name"], "needs OPTION=VALUE"),
        (["name", "newton_every"], "not OPTION=VALUE"),
        (["newton_evry=3"], "Invalid solver_options"),
        (["newton_every=often"], "newton_every must be an int"),
    ):
        with pytest.raises(ValueError, match=message):
            parse_setting(bad)


def test_split_solves_needs_the_setting_it_compares_with(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["bench_split_solves.py", "--datasets", "ecoli"])
    with pytest.raises(SystemExit) as refused:
        bench_split_solves.main()  # refused before any split is run
    assert refused.value.code == 2 and "name at least one --against setting" in capsys.readouterr().err


def test_grow_tree_compares_with_a_revision_given_or_the_previous_commit(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["bench_grow_tree.py", "--check", "--old-ref", "no-such-revision"])
    with pytest.raises(SystemExit) as refused:
        bench_grow_tree.main()
    assert refused.value.code == 2 and "--old-ref no-such-revision" in capsys.readouterr().err
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    assert bench_grow_tree.short_hash("HEAD") == head.stdout.strip()
    assert '"--old-ref", default="HEAD~1"' in Path(bench_grow_tree.__file__).read_text()


def test_no_default_pins_a_retired_revision_or_setting():
    assert not any(RETIRED[1] in label for label, _, _ in bench_solvers.SOLVER_RUNS)
    sources = [ROOT / "Makefile", *(ROOT / "scripts").rglob("*.py")]
    for path in sources:
        code = re.sub(r'"""(.*?)"""', "", path.read_text(), flags=re.S)  # docstrings tell the history
        assert RETIRED[0] not in code and f'"{RETIRED[1]}"' not in code, path
    makefile = (ROOT / "Makefile").read_text()
    assert "OLD_REF ?= HEAD~1" in makefile and "bench_grow_tree.py --old-ref $(OLD_REF)" in makefile
    assert "$(if $(FW_AGAINST),$(BIN)/python scripts/bench/bench_split_solves.py --against" in makefile


def test_protocol_parts_ab_needs_a_baseline_that_exists_and_alternates_the_runs(monkeypatch, capsys):
    for argv, message in (
        ([], "--baseline"),
        (["--baseline", "no-such-revision"], "--baseline no-such-revision"),
    ):
        monkeypatch.setattr(sys, "argv", ["bench_protocol_parts_ab.py", *argv])
        with pytest.raises(SystemExit) as refused:
            bench_protocol_parts_ab.main()  # refused before any worktree or run
        assert refused.value.code == 2 and message in capsys.readouterr().err
    order = bench_protocol_parts_ab.run_order(3)
    assert [version[0] for _, version in order] == list("bccbbc")
    assert [pair for pair, _ in order] == [0, 0, 1, 1, 2, 2]
    assert bench_protocol_parts_ab.parts_script(ROOT) == ROOT / "scripts/bench/bench_protocol_parts.py"
