"""Where a benchmark writes its CSV: into the committed results/bench/ only when asked.

``results/bench/*.csv`` is committed evidence (REPORT.md's "Speed" and the README
quote it), so a smoke run must not append to it or rewrite it. Every script that
measures into it adds ``--record`` (:func:`add_record_flag`) and resolves its file
with :func:`bench_output`:

* ``--record`` (the Makefile's evidence targets pass it): ``results/bench/<name>.csv``;
* without it: ``build/bench/<name>.csv`` (git-ignored);
* an explicit ``--out``/``--output`` path wins over both: it is explicit.

Standard library only: scripts/bench/bench_df21.py imports it in DF21's own venv, without disdf.
"""

from __future__ import annotations

import argparse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The committed evidence, written only with --record.
RECORDED = ROOT / "results" / "bench"
#: Every other run's CSVs (``build/`` is in .gitignore).
UNRECORDED = ROOT / "build" / "bench"


def add_record_flag(parser: argparse.ArgumentParser) -> None:
    """Add ``--record``: the run is committed evidence and goes into results/bench/."""
    parser.add_argument(
        "--record",
        action="store_true",
        help="write into results/bench/ (committed evidence); without it into build/bench/ (git-ignored)",
    )


def bench_output(args: argparse.Namespace, name: str, explicit: Path | None = None) -> Path:
    """The CSV ``name`` of this run (``explicit`` if given), its folder created; says where it goes."""
    if explicit is not None:
        path = Path(explicit)
    else:
        path = (RECORDED if args.record else UNRECORDED) / f"{name}.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    hint = "" if explicit is not None or args.record else f" (--record writes {RECORDED / name}.csv)"
    print(f"{name}: writing {path}{hint}", flush=True)
    return path
