"""The benchmarks' one helper: where a CSV goes, what every new row is stamped with, how it is
written, and how long a call takes.

``results/bench/*.csv`` is committed evidence (REPORT.md's "Speed" and the README quote it), so a
smoke run must not append to it or rewrite it. Every script that measures into it adds
``--record`` (:func:`add_record_flag`) and resolves its file with :func:`bench_output`:

* ``--record`` (the Makefile's evidence targets pass it): ``results/bench/<name>.csv``;
* without it: ``build/bench/<name>.csv`` (git-ignored);
* an explicit ``--out``/``--output`` path wins over both: it is explicit.

:func:`write_csv` is the one writer of that evidence: it merges the rows into the file by the one
rule of :mod:`scripts.bench_tables` (a row replaces the row of the same key; the others stay as
written; new keys are appended), each stamped with :func:`measurement_stamp` (date, commit, library
builds). When the new rows bring columns the file lacks (a stamp, say), the header widens and the
old rows stay empty there (pandas reads NaN): an old row is never given a stamp it was not measured
with.

Standard library only: scripts/bench/bench_df21.py imports it in DF21's own venv, without disdf;
the stamp comes from ``experiments.safety.provenance`` wherever that imports.
"""

from __future__ import annotations

import argparse
import csv
import importlib.metadata
import io
import math
import numbers
import subprocess
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

from scripts.bench_tables import EVERY_COLUMN, table_key

ROOT = Path(__file__).resolve().parents[1]
#: The committed evidence, written only with --record.
RECORDED = ROOT / "results" / "bench"
#: Every other run's CSVs (``build/`` is in .gitignore).
UNRECORDED = ROOT / "build" / "bench"
#: The columns :func:`measurement_stamp` adds to every new row.
STAMP_COLUMNS = ("date", "commit", "libraries")
#: Libraries named by the stamp where ``experiments.safety.provenance`` cannot be imported (DF21's venv).
FALLBACK_LIBRARIES = ("numpy", "scipy", "scikit-learn", "joblib", "deep-forest-py310")

Result = TypeVar("Result")


def add_record_flag(parser: argparse.ArgumentParser) -> None:
    """Add ``--record``: the run is committed evidence and goes into results/bench/."""
    parser.add_argument(
        "--record",
        action="store_true",
        help="write into results/bench/ (committed evidence); without it into build/bench/ (git-ignored)",
    )


def repeated_splits_arguments(description: str, name: str) -> tuple[argparse.Namespace, Path]:
    """The arguments of an evidence script that repeats splits (``--repetitions``, ``--n-jobs``, ``--out``,
    ``--record``), parsed, and the CSV it writes (see :func:`bench_output`)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--repetitions", type=int, default=10)
    parser.add_argument("--n-jobs", type=int, default=-1)
    parser.add_argument("--out", type=Path, help="the CSV to write (overrides --record)")
    add_record_flag(parser)
    args = parser.parse_args()
    return args, bench_output(args, name, args.out)


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


# --- timing -----------------------------------------------------------------------------------------


def timed(function: Callable[[], Result]) -> tuple[Result, float]:
    """``function()``'s value and its wall seconds."""
    start = time.perf_counter()
    value = function()
    return value, time.perf_counter() - start


def best_of(repeats: int, function: Callable[[], object]) -> float:
    """The least wall seconds of ``repeats`` calls: the one least disturbed by the rest of the machine."""
    return min(timed(function)[1] for _ in range(max(1, repeats)))


# --- stamping ---------------------------------------------------------------------------------------


def measurement_stamp(checkout: Path = ROOT) -> dict[str, str]:
    """When and on what a row was measured: ``experiments.safety.provenance.measurement_stamp`` (UTC date,
    the ``checkout``'s commit, the library builds), or where that cannot be imported (DF21's venv
    has neither hydra nor this package's dependencies) the same columns from the standard library."""
    try:
        from experiments.safety.provenance import measurement_stamp as provenance_stamp
    except (ModuleNotFoundError, SystemExit):  # experiments/__init__.py exits naming its missing extra
        return _standard_library_stamp(checkout)
    return provenance_stamp(checkout)


def _standard_library_stamp(checkout: Path) -> dict[str, str]:
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=checkout, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    versions = []
    for name in FALLBACK_LIBRARIES:
        try:
            versions.append(f"{name} {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            continue
    return {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
        "commit": commit,
        "libraries": "; ".join(versions),
    }


# --- writing ----------------------------------------------------------------------------------------


def write_csv(
    path: Path,
    rows: Iterable[Mapping[str, Any]] | Any,
    *,
    key: Sequence[str] | None = None,
    stamp: Mapping[str, str] | None = None,
    float_format: str | None = None,
) -> Path:
    """Merge the new ``rows`` (dicts, or a DataFrame) into the CSV at ``path`` by the one rule of the
    benchmark evidence (:mod:`scripts.bench_tables`): a new row replaces, in its place, the row of the
    same key; every other row stays as written; new keys are appended.

    ``key`` defaults to the declared key of the table the file is named after (``path.stem`` in
    :data:`scripts.bench_tables.BENCH_TABLES`; an undeclared name is refused before anything is
    written). Each new row carries ``stamp`` (:func:`measurement_stamp` if None; ``{}`` for rows
    stamped already) in its last columns; a row's own value of a stamp column wins. Floats are written
    with ``float_format`` (e.g. ``"%.4g"``), missing values and NaN as empty cells. When no row is
    replaced and no column added, the file's bytes stay as they are and the new rows are appended.
    """
    path = Path(path)
    key = tuple(table_key(path.stem) if key is None else key)
    stamp = measurement_stamp() if stamp is None else stamp
    new = [_stamped(row, stamp, float_format) for row in _records(rows)]
    header, old, newline = _read_csv(path)
    columns = _columns(header, [name for row in new for name in row if name not in stamp], stamp)
    new_by_key = _by_key(new, key, columns, path)
    merged = [new_by_key.pop(_key_of(row, key, columns), row) for row in old]
    replaced = sum(a is not b for a, b in zip(merged, old, strict=True))
    path.parent.mkdir(parents=True, exist_ok=True)
    if header and columns == header and not replaced and path.read_bytes().endswith(b"\n"):
        with path.open("a", newline="") as handle:  # the file's bytes stay as they are
            _writer(handle, columns, newline).writerows(new_by_key.values())
        return path
    buffer = io.StringIO(newline="")
    writer = _writer(buffer, columns, newline)
    writer.writeheader()
    writer.writerows([*merged, *new_by_key.values()])
    path.write_text(buffer.getvalue(), newline="")
    return path


def write_and_show(path: Path, rows: list[dict[str, Any]], float_format: str | None = None) -> Path:
    """:func:`write_csv` of ``rows`` (their table's key, this checkout's stamp), then the rows printed
    as a table: what a benchmark says when it ends."""
    import pandas as pd  # not at import: DF21's venv imports this module for write_csv only

    write_csv(path, rows, float_format=float_format)
    print(pd.DataFrame(rows).to_string(index=False))
    return path


def _key_of(row: Mapping[str, str | None], key: Sequence[str], columns: Sequence[str]) -> tuple[str, ...]:
    """The cells of ``row`` that name what it measures (every column's, for a log), a number as its
    value: ``1000`` written by this run names the row pandas once wrote as ``1000.0``."""
    return tuple(_key_cell(row.get(name)) for name in (columns if tuple(key) == EVERY_COLUMN else key))


def _key_cell(cell: str | None) -> str:
    try:
        return repr(float(cell)) if cell else ""
    except ValueError:
        return cell or ""


def _by_key(
    rows: list[dict[str, str]], key: Sequence[str], columns: Sequence[str], path: Path
) -> dict[tuple[str, ...], dict[str, str]]:
    """The new rows by key, in order; refused if a row lacks a key column or two rows share a key."""
    by_key: dict[tuple[str, ...], dict[str, str]] = {}
    for row in rows:
        missing = [name for name in key if name not in row and tuple(key) != EVERY_COLUMN]
        if missing:
            raise ValueError(f"{path.name}: a new row lacks the key column(s) {missing} (key {list(key)})")
        cells = _key_of(row, key, columns)
        if cells in by_key:
            raise ValueError(f"{path.name}: two new rows share the key {cells} (key {list(key)})")
        by_key[cells] = row
    return by_key


def _stamped(row: Mapping[str, Any], stamp: Mapping[str, str], float_format: str | None) -> dict[str, str]:
    """``row``'s cells as written, then the stamp's columns (a value the row has wins)."""
    cells = {key: value for key, value in row.items() if key not in stamp}
    cells |= {key: row.get(key, value) for key, value in stamp.items()}
    return {key: _cell(value, float_format) for key, value in cells.items()}


def _records(rows: Iterable[Mapping[str, Any]] | Any) -> list[dict[str, Any]]:
    """Rows as dicts: a DataFrame's records, or the mappings given."""
    if hasattr(rows, "to_dict"):
        return rows.to_dict("records")
    return [dict(row) for row in rows]


def _cell(value: Any, float_format: str | None) -> str:
    """A value as pandas' ``to_csv`` writes it: bools and integers as they are, NaN and None empty."""
    if value is None:
        return ""
    if isinstance(value, (bool, str)):  # before Integral: pandas writes True, not 1
        return str(value)
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        if math.isnan(value):
            return ""
        return float_format % value if float_format else str(value)
    return str(value)


def _read_csv(path: Path) -> tuple[list[str], list[dict[str, str]], str]:
    """(header, rows as strings, line ending) of the CSV at ``path``; an absent or empty one has none."""
    if not path.exists() or path.stat().st_size == 0:
        return [], [], "\n"
    text = path.read_bytes().decode("utf-8")  # as written: its line ends untranslated
    newline = "\r\n" if text.split("\n", 1)[0].endswith("\r") else "\n"
    reader = csv.DictReader(io.StringIO(text, newline=""))
    return list(reader.fieldnames or []), list(reader), newline


def _columns(header: list[str], names: list[str], stamp: Mapping[str, str]) -> list[str]:
    """The file's columns after a write: its header as it is, the new rows' new columns before its first
    stamp column (the stamp stays last), then any stamp column it lacks."""
    added = [name for name in _union(names) if name not in header]
    stamps = [i for i, name in enumerate(header) if name in STAMP_COLUMNS]
    cut = stamps[0] if stamps else len(header)
    measured = [name for name in added if name not in STAMP_COLUMNS]
    return _union(
        header[:cut], measured, header[cut:], [name for name in added if name in STAMP_COLUMNS], stamp
    )


def _union(*groups: Iterable[str]) -> list[str]:
    """Column names in order of first appearance."""
    return list(dict.fromkeys(name for group in groups for name in group))


def _writer(handle: Any, columns: list[str], newline: str) -> csv.DictWriter:
    return csv.DictWriter(handle, fieldnames=columns, restval="", lineterminator=newline)
