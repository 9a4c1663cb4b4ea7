"""The config hash of every committed experiment, composed by this checkout's code, beside the hashes
its committed records carry: a refactor that must change no number prints the same lines before and after.

    python scripts/tools/config_hashes.py > before.txt   # on the old commit
    python scripts/tools/config_hashes.py > after.txt    # on the new one; then diff the two

One line per committed sample part: ``<sample>/<part> composed=<hash> committed=<hashes in its raw records>``,
and ``MISMATCH`` where the composed hash is not among the committed ones.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse

from experiments.drivers.committed_sample import SAMPLES, sample_config
from experiments.paths import ROOT
from experiments.running.composition import config_hash
from experiments.running.records import RecordStore


def committed_hashes(folder: Path) -> set[str]:
    """Every ``config_hash`` of the records under ``folder``/raw."""
    store = RecordStore(folder / "raw")
    hashes: set[str] = set()
    for path in sorted((folder / "raw").glob("*.jsonl")):
        hashes |= {record["config_hash"] for record in store.read(path.stem)}
    return hashes


def main() -> int:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    mismatches = 0
    for sample in SAMPLES:
        for part in sample.parts:
            composed = config_hash(sample_config(sample, part, "build/config_hashes"))
            committed = committed_hashes(ROOT / sample.folder / part.subfolder)
            flag = "" if composed in committed else " MISMATCH"
            mismatches += bool(flag)
            hashes = ",".join(sorted(committed))
            print(f"{sample.name}/{part.label} composed={composed} committed={hashes}{flag}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
