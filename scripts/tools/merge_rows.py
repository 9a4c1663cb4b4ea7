"""Copy a run's CSV rows into a committed CSV: its rows replace those with the same key, the others stay.

    python scripts/tools/merge_rows.py RUN.csv COMMITTED.csv --key method

So that measuring one method again keeps the other methods' rows as they were written, byte for
byte (``make mnist-full-disk DISK_METHODS=[disdf]`` merges its run's CSV into the disk-mode CSV this
way: ``scripts/bench_output.write_csv``'s one merge rule, by the key given here instead of the
table's declared one). Cells are copied as the run wrote them, its stamp columns (date, commit,
libraries) included.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse
import csv

from scripts.bench_output import write_csv


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path, help="the run's CSV")
    parser.add_argument("destination", type=Path, help="the CSV to merge into (created if missing)")
    parser.add_argument("--key", nargs="+", required=True, help="the columns that name what a row measures")
    args = parser.parse_args()
    if not args.source.is_file():
        parser.error(f"source {args.source} is not a file")
    with args.source.open(newline="") as handle:
        reader = csv.DictReader(handle)
        missing = [column for column in args.key if column not in (reader.fieldnames or [])]
        if missing:
            parser.error(f"--key {' '.join(missing)}: not a column of {args.source}")
        rows = list(reader)
    write_csv(args.destination, rows, key=args.key, stamp={})
    print(f"{len(rows)} rows of {args.source} merged into {args.destination} by {', '.join(args.key)}")


if __name__ == "__main__":
    main()
