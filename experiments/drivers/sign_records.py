"""Sign the records written before records carried digests, once.

    python -m experiments.drivers.sign_records            # every raw/*.jsonl under results/
    python -m experiments.drivers.sign_records FOLDER ...  # or under these folders

Each line of a record file that is a JSON object without ``digests`` gets the digest of each of its
fields (:func:`experiments.running.records.signed`); nothing else in the line changes (the same
sorted JSON the runner writes). A line already signed is checked and left as it is; a line that is
not a JSON object is left as it is (the reader drops and names it). Each file is replaced whole,
atomically. What it did is printed per file and in total. A record edited before it was signed
cannot be told from a computed one: signing is done once, on the records as committed.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from disdf.utils import write_text_atomically
from experiments.paths import ROOT
from experiments.running.records import DIGESTS, digest_problem, signed


def record_files(folders: list[Path]) -> list[Path]:
    """The record files (``raw/*.jsonl``) under the folders, in order."""
    return sorted({path for folder in folders for path in folder.rglob("raw/*.jsonl")})


def sign_file(path: Path) -> Counter[str]:
    """Sign the file's unsigned records in place; count what each line was."""
    counts: Counter[str] = Counter()
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            record = None
        if not isinstance(record, dict):
            counts["left: not a JSON object"] += 1
        elif DIGESTS not in record:
            counts["signed"] += 1
            line = json.dumps(signed(record), sort_keys=True) + "\n"
        elif digest_problem(record) is None:
            counts["signed before"] += 1
        else:
            counts["left: does not match its digests"] += 1
        lines.append(line)
    if counts["signed"]:
        write_text_atomically(path, "".join(lines))
    return counts


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path, default=[ROOT / "results"])
    args = parser.parse_args(argv)
    total: Counter[str] = Counter()
    files = record_files(args.folders)
    for path in files:
        counts = sign_file(path)
        total += counts
        print(f"{path}: " + ", ".join(f"{n} {what}" for what, n in sorted(counts.items())))
    print(f"{len(files)} files: " + ", ".join(f"{n} {what}" for what, n in sorted(total.items())))


if __name__ == "__main__":
    main()
