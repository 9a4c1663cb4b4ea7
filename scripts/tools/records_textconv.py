"""A raw-records file as ``git diff`` should compare it: each record without its timing fields.

Set up by ``make install`` as the textconv of the ``records`` diff driver
(.gitattributes), so that after ``make regenerate`` ``git diff results/`` shows
only records whose results changed, not the seconds every rerun changes.

    python scripts/tools/records_textconv.py results/raw/ecoli.jsonl
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import json

from experiments.running.unit import TIMING_FIELDS


def main(path: str) -> None:
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                sys.stdout.write(line)  # shown as it is: a torn or foreign line is a change worth seeing
                continue
            if isinstance(record, dict):
                record = {key: value for key, value in record.items() if key not in TIMING_FIELDS}
            sys.stdout.write(json.dumps(record, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
