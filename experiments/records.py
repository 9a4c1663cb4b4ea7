"""Append-only raw records, one JSON line per completed unit, one file per dataset.

A split's records are appended together in one write, then fsynced (see
:mod:`experiments.durable`), so a crash can at worst leave a torn last line;
the reader drops such a line (with a warning) and its units are run again.
A split is recorded whole or not at all: when a run starts, a torn tail is
cut together with the complete lines written with it (a process killed
mid-write can leave a few whole lines of its split before the torn one).
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

from experiments.durable import append_json_lines, cut_torn_tail, read_json_lines


class RecordStore:
    def __init__(self, raw_dir: str | os.PathLike) -> None:
        self.raw_dir = Path(raw_dir)

    def path(self, dataset: str) -> Path:
        return self.raw_dir / f"{dataset}.jsonl"

    def read(self, dataset: str) -> list[dict]:
        return read_json_lines(self.path(dataset))

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

    def completed(self, dataset: str, config_hash: str) -> set[tuple]:
        """Keys (dataset, N, T, method, repetition) already recorded under this config."""
        return {
            (r["dataset"], r["N"], r["T"], r["method"], r["repetition"])
            for r in self.read(dataset)
            if r["config_hash"] == config_hash
        }

    def append(self, record: dict) -> None:
        self.append_many([record])

    def append_many(self, records: list[dict]) -> None:
        """Append records of one dataset with a single write (a split's units land together)."""
        if not records:
            return
        datasets = {record["dataset"] for record in records}
        if len(datasets) != 1:
            raise ValueError(f"append_many takes records of one dataset; got {sorted(datasets)}")
        append_json_lines(self.path(records[0]["dataset"]), records)


def _batch_key(line: bytes) -> tuple:
    record = json.loads(line)
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
        except (ValueError, KeyError):
            break
        if keys and key != keys[0]:
            break
        keys.append(key)
    return len(keys) % keys[0][-1] if keys else 0
