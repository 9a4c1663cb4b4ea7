"""Append-only raw records, one JSON line per completed unit, one file per dataset.

A split's records are appended together in one write, then fsynced (see
:mod:`experiments.safety.durable`), so a crash can at worst leave a torn last line;
the reader drops such a line (with a warning) and its units are run again.
A split is recorded whole or not at all: when a run starts, a torn tail is
cut together with the complete lines written with it (a process killed
mid-write can leave a few whole lines of its split before the torn one).

A unit counts once, whatever the file holds: the reader keeps the first
record of each (dataset, N, T, method, repetition, config) key and drops, with
one warning naming the file and the lines, later duplicates and every line
that is not a valid record of this file's dataset (a missing field, a wrong
type, an accuracy that is not a whole number of test examples in [0, 1], a
level count that its level scores contradict).

Read with a :class:`RecordGrid` (what a run's config allows), the records of
that config are checked against it too before they count: a cascade keeps at
least one level and a baseline none, ``n_test`` follows the split rule, and a
record outside the run's grid (a dataset, N, T, method or a repetition
outside ``[0, repetitions)``) is not counted, with one warning naming the file
and the lines. Nothing is ever dropped without a warning.

Every record carries the digest of each of its fields (``digests``, :func:`signed`, written with it):
a record whose field no longer matches its digest, say an accuracy or a method edited by hand, is
named with its file, line and field and not counted, before the rule of one record per key runs, so
an edited copy never displaces the record the run wrote. Records written before digests existed
were signed once (``python -m experiments.drivers.sign_records``); one without digests is not counted.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import warnings
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from numbers import Integral, Real
from pathlib import Path
from typing import cast

from experiments.safety.durable import append_json_lines, cut_torn_tail, read_numbered_json_lines

#: The fields a record must have to be counted, and their types (bool is never a number here).
RECORD_FIELDS: dict[str, type] = {
    "dataset": str,
    "N": Integral,
    "T": Integral,
    "method": str,
    "repetition": Integral,
    "config_hash": str,
    "accuracy": Real,
    "n_test": Integral,
    "n_levels": Integral,
    "level_scores": list,
    "fit_seconds": Real,
    "predict_seconds": Real,
    "split_units": Integral,
}
#: Lines listed by name in a warning about dropped lines; the rest are counted.
LINES_NAMED = 10
#: The field of a record that holds its digests: the whole record's, then each other field's.
DIGESTS = "digests"
#: What a reader says of a record without digests.
UNSIGNED = (
    f"field {DIGESTS!r} is missing (a record written before digests: sign the folder once with "
    "python -m experiments.drivers.sign_records)"
)


def _digest(text: str, size: int) -> str:
    return hashlib.blake2b(text.encode(), digest_size=size).hexdigest()


def _json(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def record_digests(record: dict) -> str:
    """The digests of a record's content (every field but :data:`DIGESTS`): the whole record's (64 bits),
    then each field's (16 bits, its name and value), in the order of the sorted field names."""
    content = {name: value for name, value in record.items() if name != DIGESTS}
    fields = [_digest(_json([name, content[name]]), 2) for name in sorted(content)]
    return " ".join([_digest(_json(content), 8), *fields])


def signed(record: dict) -> dict:
    """``record`` as JSON will read it back, with its digests (:data:`DIGESTS`)."""
    content = {name: value for name, value in json.loads(json.dumps(record)).items() if name != DIGESTS}
    return {**content, DIGESTS: record_digests(content)}


def digest_problem(record: dict) -> str | None:
    """Which fields of ``record`` do not match their digests (changed since it was written), or None."""
    digests = record.get(DIGESTS)
    if digests is None:
        return UNSIGNED
    if not isinstance(digests, str):
        return f"field {DIGESTS!r} is not a string of digests"
    expected = record_digests(record)
    if digests == expected:
        return None
    names = sorted(name for name in record if name != DIGESTS)
    saved, now = digests.split(" ")[1:], expected.split(" ")[1:]
    if len(saved) != len(now):
        what = f"its {len(names)} fields are not the {len(saved)} it was written with (one added or removed)"
    else:
        changed = [name for name, old, new in zip(names, saved, now, strict=True) if old != new]
        what = f"field {', '.join(map(repr, changed or [DIGESTS]))} does not match its digest"
    return f"{what}: changed after the run wrote it, not counted"


def record_key(record: dict) -> tuple:
    """What makes a unit's result: one record per key counts."""
    return (
        record["dataset"],
        record["N"],
        record["T"],
        record["method"],
        record["repetition"],
        record["config_hash"],
    )


class _Absent:
    """The value of a field a record does not have (a field added to records later, or dropped)."""

    def __repr__(self) -> str:
        return "<absent>"


#: What :func:`differing_fields` gives for a field one of the two records lacks.
ABSENT = _Absent()


def same_value(left: object, right: object) -> bool:
    """Equal as a record's values are meant: exactly, lists element by element, NaN equal to NaN."""
    if isinstance(left, float) and isinstance(right, float) and math.isnan(left) and math.isnan(right):
        return True
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(same_value, left, right))
    return left == right


def differing_fields(
    left: dict, right: dict, ignored: Collection[str] = ()
) -> dict[str, tuple[object, object]]:
    """The fields in which two records (of one key) differ, each with its (left, right) values;
    :data:`ABSENT` stands for a field one of them lacks. ``ignored`` fields are not compared."""
    return {
        field: (left.get(field, ABSENT), right.get(field, ABSENT))
        for field in sorted((left.keys() | right.keys()) - set(ignored))
        if field not in left or field not in right or not same_value(left[field], right[field])
    }


def record_problem(record: object, dataset: str) -> str | None:
    """Why ``record`` is not a valid record of ``dataset``'s file, or None if it is."""
    if not isinstance(record, dict):
        return f"not a JSON object ({type(record).__name__})"
    edited = digest_problem(record)
    if edited is not None:
        return edited
    for name, kind in RECORD_FIELDS.items():
        if name not in record:
            return f"field {name!r} is missing"
        value = record[name]
        if isinstance(value, bool) or not isinstance(value, kind):
            return f"field {name!r} is {value!r}, not of type {kind.__name__}"
    if record["dataset"] != dataset:
        return f"field 'dataset' is {record['dataset']!r} in the file of {dataset!r}"
    if not record["method"]:
        return "field 'method' is empty"
    for name in ("N", "T", "n_test"):
        if record[name] < 1:
            return f"field {name!r} is {record[name]}, not a positive count"
    if record["repetition"] < 0:
        return f"field 'repetition' is {record['repetition']}, not a repetition number (0, 1, ...)"
    # a cascade keeps 1.. of the levels it scored; a baseline (no cascade) has 0 and no scores
    baseline = record["n_levels"] == 0 and not record["level_scores"]
    if not (baseline or 1 <= record["n_levels"] <= len(record["level_scores"])):
        return f"field 'n_levels' is {record['n_levels']}, with {len(record['level_scores'])} level score(s)"
    if not all(_is_fraction(score) for score in record["level_scores"]):
        return f"field 'level_scores' is {record['level_scores']!r}, not numbers in [0, 1]"
    if not _is_fraction(record["accuracy"]):
        return f"field 'accuracy' is {record['accuracy']!r}, not a number in [0, 1]"
    correct = record["accuracy"] * record["n_test"]
    if abs(correct - round(correct)) > 1e-6:
        return (
            f"field 'accuracy' is {record['accuracy']!r}, not a whole number of its {record['n_test']} "
            "test examples"
        )
    if "confusion" in record:
        return confusion_problem(record)
    return None


def confusion_problem(record: dict) -> str | None:
    """Why a record's ``confusion`` counts (``protocol.record_confusion``) disagree with its test set
    and accuracy, or None."""
    counts = record["confusion"]
    square = isinstance(counts, list) and all(
        isinstance(row, list) and len(row) == len(counts) for row in counts
    )
    if not square or not all(
        isinstance(c, int) and not isinstance(c, bool) and c >= 0 for r in counts for c in r
    ):
        return "field 'confusion' is not a square table of counts"
    if sum(map(sum, counts)) != record["n_test"]:
        return (
            f"field 'confusion' counts {sum(map(sum, counts))} test examples, not n_test = {record['n_test']}"
        )
    if sum(counts[i][i] for i in range(len(counts))) != round(record["accuracy"] * record["n_test"]):
        return f"field 'confusion' disagrees with accuracy {record['accuracy']!r} on the correct predictions"
    return None


def _is_fraction(value: object) -> bool:
    return (
        isinstance(value, Real)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and 0 <= float(value) <= 1
    )


@dataclass(frozen=True)
class RecordGrid:
    """What the records of one run's config may be: its grid, which methods are cascades, and the
    split rule that fixes ``n_test`` (:func:`experiments.running.protocol.test_size`, capped by the pool)."""

    config_hash: str
    datasets: frozenset[str]
    Ns: frozenset[int]
    Ts: frozenset[int]
    methods: frozenset[str]
    repetitions: int
    #: Methods whose estimator is a cascade: they keep at least one level; the others keep none.
    cascades: frozenset[str]
    #: Each (dataset, N)'s test-set size, or its largest one where whole groups or folds make it vary.
    n_test: dict
    n_test_varies: bool = False

    def outside(self, record: dict) -> str | None:
        """Why a record of this config is outside the run's grid (not counted), or None."""
        for name, allowed in (
            ("dataset", self.datasets),
            ("N", self.Ns),
            ("T", self.Ts),
            ("method", self.methods),
        ):
            if record[name] not in allowed:
                return f"{name} {record[name]!r} is not in this run's {sorted(allowed)}"
        if record["repetition"] >= self.repetitions:
            return f"repetition {record['repetition']} is not in [0, {self.repetitions})"
        return None

    def problem(self, record: dict) -> str | None:
        """Why a record of this config, inside its grid, cannot be one of its units, or None."""
        cascade = record["method"] in self.cascades
        if cascade and record["n_levels"] < 1:
            return f"field 'n_levels' is {record['n_levels']}: a {record['method']} cascade keeps >= 1 level"
        if not cascade and (record["n_levels"] or record["level_scores"]):
            return f"field 'n_levels' is {record['n_levels']}: method {record['method']!r} has no cascade"
        expected = self.n_test[record["dataset"], record["N"]]
        if record["n_test"] != expected and not (self.n_test_varies and record["n_test"] <= expected):
            return f"field 'n_test' is {record['n_test']}; the split rule gives {expected} at N={record['N']}"
        return None


def _named(lines: list[int]) -> str:
    return ", ".join(map(str, lines[:LINES_NAMED])) + (
        f" and {len(lines) - LINES_NAMED} more" if len(lines) > LINES_NAMED else ""
    )


def _warn_dropped(path: Path, what: str, lines: list[int], why: str) -> None:
    warnings.warn(f"{path}: dropping {len(lines)} {what} (line {_named(lines)}): {why}", stacklevel=3)


class RecordStore:
    def __init__(self, raw_dir: str | os.PathLike) -> None:
        self.raw_dir = Path(raw_dir)

    def path(self, dataset: str) -> Path:
        return self.raw_dir / f"{dataset}.jsonl"

    def read(self, dataset: str, grid: RecordGrid | None = None) -> list[dict]:
        """The valid records of ``dataset``, each key once (its first line); the rest dropped, warned.

        With ``grid``, the records of its config are also checked against it: an impossible one is
        dropped as invalid, one outside the grid is not counted (both warned with their lines).
        """
        path = self.path(dataset)
        records: list[dict] = []
        first_line: dict[tuple, int] = {}
        invalid: dict[str, list[int]] = {}
        outside: dict[str, list[int]] = {}
        duplicates: list[int] = []
        for number, line in read_numbered_json_lines(path):
            record = cast(dict, line)  # record_problem refuses a line that is not an object first
            problem = record_problem(record, dataset)
            if problem is None and grid is not None and record["config_hash"] == grid.config_hash:
                reason = grid.outside(record)
                if reason is not None:
                    outside.setdefault(reason, []).append(number)
                    continue
                problem = grid.problem(record)
            if problem is not None:
                invalid.setdefault(problem, []).append(number)
                continue
            key = record_key(record)
            if key in first_line:
                duplicates.append(number)
                continue
            first_line[key] = number
            records.append(record)
        for problem, lines in invalid.items():
            _warn_dropped(path, "line(s) that are not valid records", lines, problem)
        for reason, lines in outside.items():
            _warn_dropped(path, "record(s) of this config outside this run's grid", lines, reason)
        if duplicates:
            _warn_dropped(
                path,
                "duplicate record(s)",
                duplicates,
                "a unit already recorded earlier in the file counts once",
            )
        return records

    def read_all(self) -> list[dict]:
        """The valid records of every dataset file in the folder (see :meth:`read`)."""
        return [record for path in sorted(self.raw_dir.glob("*.jsonl")) for record in self.read(path.stem)]

    def read_config(self, datasets: Iterable[str], grid: RecordGrid) -> list[dict]:
        """The counted records of ``grid``'s config in the files of ``datasets``."""
        return [
            record
            for dataset in datasets
            for record in self.read(dataset, grid)
            if record["config_hash"] == grid.config_hash
        ]

    def repair(self, dataset: str) -> None:
        """Cut a torn last line left by a crash and the rest of its split's write (those units run again)."""
        path = self.path(dataset)
        cut = cut_torn_tail(path)
        if not cut:
            return
        lines = path.read_bytes().splitlines(keepends=True)
        partial = _partial_batch(lines)
        if partial:
            with open(path, "rb+") as handle:
                handle.truncate(sum(len(line) for line in lines[: len(lines) - partial]))
                os.fsync(handle.fileno())
        warnings.warn(
            f"{path}: cut a torn last line of {cut} bytes and {partial} complete record(s) written with it "
            "(an interrupted write); those units run again",
            stacklevel=2,
        )

    def completed(self, dataset: str, config_hash: str, grid: RecordGrid | None = None) -> set[tuple]:
        """Keys (dataset, N, T, method, repetition) already recorded under this config."""
        return {record_key(r)[:5] for r in self.read(dataset, grid) if r["config_hash"] == config_hash}

    def append_many(self, records: list[dict]) -> None:
        """Append records of one dataset with a single write (a split's units land together)."""
        if not records:
            return
        datasets = {record["dataset"] for record in records}
        if len(datasets) != 1:
            raise ValueError(f"append_many takes records of one dataset; got {sorted(datasets)}")
        append_json_lines(self.path(records[0]["dataset"]), [signed(record) for record in records])


def _batch_key(line: bytes) -> tuple:
    record = json.loads(line)
    if not (isinstance(record["split_units"], int) and record["split_units"] > 0):
        raise ValueError(f"split_units {record['split_units']!r}")
    return (record["config_hash"], record["N"], record["repetition"], record["split_units"])


def _partial_batch(lines: list[bytes]) -> int:
    """How many trailing lines belong to a split's write that did not finish.

    The records of one write share config, N and repetition, and each says how
    many units the write held (``split_units``).
    """
    keys: list[tuple] = []
    for line in reversed(lines):
        try:
            key = _batch_key(line)
        except (ValueError, KeyError, TypeError):
            break
        if keys and key != keys[0]:
            break
        keys.append(key)
    return len(keys) % keys[0][-1] if keys else 0
