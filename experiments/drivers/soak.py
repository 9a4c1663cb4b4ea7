"""Kill a sweep with SIGKILL at random moments, resume it each time, and compare with an uninterrupted run.

Used by ``tests/experiments/test_kill_resume.py`` (a few kills) and ``scripts/tools/soak_resume.py``
(many). Each run is ``python -m experiments.run`` in a session of its own, and a
kill is SIGKILL to that whole session, the runner and its worker processes, as
a machine or a scheduler kills a job: nothing gets a chance to clean up.

A kill waits until the records on disk pass a random target (or, sometimes,
strikes at a random moment of start-up), then sleeps a random fraction of a
second, so kills land before, between and during the writes of splits.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from experiments.running.records import RecordStore
from experiments.running.unit import RERUN_VARYING_FIELDS
from experiments.safety.durable import read_json_lines

ROOT = Path(__file__).resolve().parents[2]


def sweep_command(output_dir: Path, overrides: list[str]) -> list[str]:
    return [
        sys.executable,
        "-m",
        "experiments.run",
        *overrides,
        f"runtime.output_dir={output_dir}",
        "runtime.progress=false",
        f"hydra.run.dir={output_dir / 'hydra'}",
    ]


def lines_on_disk(raw_dir: Path) -> int:
    """Newlines in the raw files: how far a running sweep has got (cheap to poll)."""
    return sum(path.read_bytes().count(b"\n") for path in raw_dir.glob("*.jsonl"))


def recorded_keys(raw_dir: Path) -> list[tuple]:
    """The unit keys a resume will find recorded: read after the repair a resume does (on a copy)."""
    with tempfile.TemporaryDirectory() as scratch, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the repair's own warnings
        copy = Path(scratch) / "raw"
        if raw_dir.exists():
            shutil.copytree(raw_dir, copy)
        store = RecordStore(copy)
        keys = []
        for path in sorted(copy.glob("*.jsonl")):
            store.repair(path.stem)
            # Every record line on disk, duplicates included (the reader would hide them: see counted_twice).
            keys += [
                (r["config_hash"], r["dataset"], r["N"], r["T"], r["method"], r["repetition"])
                for r in read_json_lines(path)
                if isinstance(r, dict) and "config_hash" in r
            ]
        return keys


def records_without_timing(raw_dir: Path) -> dict[str, list[str]]:
    """Each raw file as its lines in order, timing fields (and the digests, which cover them) removed."""
    return {
        path.name: [
            json.dumps(
                {k: v for k, v in json.loads(line).items() if k not in RERUN_VARYING_FIELDS}, sort_keys=True
            )
            for line in path.read_text(encoding="utf-8").splitlines()
        ]
        for path in sorted(raw_dir.glob("*.jsonl"))
    }


def table_files(output_dir: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted((output_dir / "tables").glob("*"))}


@dataclass
class SoakReport:
    kills: int = 0  # SIGKILLs that hit a running sweep (each followed by a resume)
    kills_mid_run: int = 0  # of which with some, but not all, units on disk
    runs: int = 0  # processes started, the final complete one included
    units: int = 0  # units of the sweep
    lost: int = 0  # units on disk after some kill but missing at the end
    duplicated: int = 0  # units recorded more than once at the end
    records_identical: bool = False  # raw files equal the uninterrupted run's, line by line, timing aside
    tables_identical: bool = False  # tables/* byte-identical to the uninterrupted run's
    seconds: float = 0.0
    events: list[str] = field(default_factory=list)


def run_to_completion(output_dir: Path, overrides: list[str], timeout: float) -> None:
    result = subprocess.run(
        sweep_command(output_dir, overrides), cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )
    if result.returncode != 0:
        raise RuntimeError(
            f"the sweep failed (exit {result.returncode}):\n{result.stdout[-4000:]}{result.stderr[-4000:]}"
        )


def kill_and_resume(
    output_dir: Path,
    overrides: list[str],
    n_units: int,
    n_kills: int,
    seed: int,
    timeout: float = 600.0,
    startup_kill_probability: float = 0.15,
) -> SoakReport:
    """Start the sweep, SIGKILL it ``n_kills`` times at random moments (resuming each time), finish it."""
    rng = np.random.default_rng(seed)
    report = SoakReport(units=n_units)
    raw = output_dir / "raw"
    seen: set[tuple] = set()
    started = time.perf_counter()
    while report.kills < n_kills:
        done = lines_on_disk(raw) if raw.exists() else 0
        if done >= n_units:
            break
        process = subprocess.Popen(
            sweep_command(output_dir, overrides),
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # its own process group: the kill takes the workers too
        )
        report.runs += 1
        deadline = time.perf_counter() + timeout
        if rng.random() < startup_kill_probability:
            delay = float(rng.uniform(0, 3))
            time.sleep(delay)
            moment = f"{delay:.2f} s after start"
        else:
            # Spread the kills over what is left: a target a little past the records on disk.
            step = int(rng.integers(1, max(2, (n_units - done) // (n_kills - report.kills + 1) + 1)))
            target = min(done + step, n_units - 1)
            while process.poll() is None and time.perf_counter() < deadline:
                if raw.exists() and lines_on_disk(raw) >= target:
                    break
                time.sleep(0.01)
            delay = float(rng.uniform(0, 0.1))
            time.sleep(delay)
            moment = f"{delay:.2f} s after {target} records"
        if process.poll() is not None:
            report.events.append(f"run {report.runs}: finished before the kill ({moment})")
            break
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        report.kills += 1
        keys = recorded_keys(raw)
        if 0 < len(keys) < n_units:
            report.kills_mid_run += 1
        report.events.append(f"kill {report.kills} {moment}: {len(keys)} units on disk")
        seen.update(keys)
    run_to_completion(output_dir, overrides, timeout)
    report.runs += 1
    final = recorded_keys(raw)
    counts = Counter(final)
    report.lost = len(seen - set(final))
    report.duplicated = sum(count - 1 for count in counts.values())
    report.seconds = time.perf_counter() - started
    return report


def compare_with(report: SoakReport, resumed_dir: Path, reference_dir: Path) -> SoakReport:
    """Fill in whether the resumed sweep's records and tables equal the uninterrupted sweep's."""
    report.records_identical = records_without_timing(resumed_dir / "raw") == records_without_timing(
        reference_dir / "raw"
    )
    report.tables_identical = table_files(resumed_dir) == table_files(reference_dir) != {}
    return report


def table_repetitions(output_dir: Path) -> list[int]:
    """The repetition count of every cell of every table CSV (what a reader of the tables sees)."""
    counts: list[int] = []
    for path in sorted((output_dir / "tables").glob("*.csv")):
        header, *rows = path.read_text(encoding="utf-8").splitlines()
        column = header.split(",").index("n")
        counts += [int(row.split(",")[column]) for row in rows]
    return counts


@dataclass
class SharedFolderReport:
    launches: int = 2
    refused: int = 0  # launches refused because the other held the folder
    units: int = 0  # units of the sweep
    lines_duplicated: int = 0  # record lines on disk beyond one per unit
    counted_twice: int = 0  # table cells whose repetition count exceeds the protocol's
    messages: list[str] = field(default_factory=list)


def two_launches_on_one_folder(
    output_dir: Path, overrides: list[str], n_units: int, repetitions: int
) -> SharedFolderReport:
    """Start the same sweep twice at once on one folder (a user launching twice), let both end, count."""
    report = SharedFolderReport(units=n_units)
    processes = [
        subprocess.Popen(
            sweep_command(output_dir, overrides),
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for _ in range(report.launches)
    ]
    for process in processes:
        output, _ = process.communicate(timeout=3600)
        if process.returncode == 2 and "being written by another run" in output:
            report.refused += 1
            report.messages.append(output.strip().splitlines()[-1])
        elif process.returncode != 0:
            raise RuntimeError(f"a launch failed (exit {process.returncode}):\n{output[-4000:]}")
    if report.refused == report.launches:  # both refused: impossible unless the lock is stuck
        raise RuntimeError("both launches were refused")
    keys = recorded_keys(output_dir / "raw")
    report.lines_duplicated = len(keys) - len(set(keys))
    report.counted_twice = sum(count > repetitions for count in table_repetitions(output_dir))
    return report


def duplicated_lines_counted(output_dir: Path, overrides: list[str], repetitions: int) -> tuple[int, int]:
    """Append a copy of every record line of a finished sweep, rewrite its tables: (lines copied, cells
    counted twice)."""
    copied = 0
    for path in sorted((output_dir / "raw").glob("*.jsonl")):
        lines = path.read_text(encoding="utf-8")
        copied += lines.count("\n")
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(lines)
    run_to_completion(output_dir, overrides, timeout=600)  # nothing to run: only the tables are rewritten
    return copied, sum(count > repetitions for count in table_repetitions(output_dir))
