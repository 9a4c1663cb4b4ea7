"""Append-only raw records, one JSON line per completed unit, one file per dataset.

Each record is written with a single ``write`` of a whole line, then flushed
and fsynced, so a crash can at worst leave a torn last line; the reader drops
such a line (with a warning) and the unit is simply run again.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path


class RecordStore:
    def __init__(self, raw_dir: str | os.PathLike) -> None:
        self.raw_dir = Path(raw_dir)

    def path(self, dataset: str) -> Path:
        return self.raw_dir / f"{dataset}.jsonl"

    def read(self, dataset: str) -> list[dict]:
        path = self.path(dataset)
        if not path.exists():
            return []
        records = []
        with open(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.endswith("\n"):
                    warnings.warn(
                        f"{path}:{number}: dropping a torn last line (an interrupted write)", stacklevel=2
                    )
                    break
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError:
                    warnings.warn(f"{path}:{number}: dropping a line that is not valid JSON", stacklevel=2)
        return records

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
        path = self.path(records[0]["dataset"])
        path.parent.mkdir(parents=True, exist_ok=True)
        self._repair_torn_tail(path)
        lines = "".join(json.dumps(record, sort_keys=True) + "\n" for record in records)
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(lines)
            handle.flush()
            os.fsync(handle.fileno())

    @staticmethod
    def _repair_torn_tail(path: Path) -> None:
        """Cut a torn last line so the next record starts on a line of its own."""
        if not path.exists() or path.stat().st_size == 0:
            return
        with open(path, "rb+") as handle:
            handle.seek(-1, os.SEEK_END)
            if handle.read(1) == b"\n":
                return
            handle.seek(0)
            handle.truncate(handle.read().rfind(b"\n") + 1)
