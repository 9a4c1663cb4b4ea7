"""Append-only raw records, one JSON line per completed unit, one file per dataset.

A split's records are appended together in one write, then fsynced (see
:mod:`experiments.durable`), so a crash can at worst leave a torn last line;
the reader drops such a line (with a warning) and its units are run again.
"""

from __future__ import annotations

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
        """Cut a torn last line left by a crash (its units are simply run again)."""
        path = self.path(dataset)
        cut = cut_torn_tail(path)
        if cut:
            warnings.warn(
                f"{path}: cut a torn last line of {cut} bytes (an interrupted write); its units run again",
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
