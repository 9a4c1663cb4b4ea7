"""A benchmark writes the committed results/bench/ only with --record (scripts/bench_output.py)."""

import argparse
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "scripts"


@pytest.fixture
def bench_output(monkeypatch, tmp_path):
    """The helper, its two folders moved under tmp_path (a test writes nothing in the checkout)."""
    monkeypatch.syspath_prepend(str(SCRIPTS))
    import bench_output

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
