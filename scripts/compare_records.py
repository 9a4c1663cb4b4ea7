"""Did a change of code change any result? Compare two runs' raw records key by key, timing aside.

    python scripts/compare_records.py results /tmp/check   # after experiment=paper protocol.repetitions=3

Pairs the records of the two output folders by (dataset, N, T, method,
repetition, config) and prints how many keys they share and, per field, how
many shared records differ in it, ignoring the timing fields (which differ on
every run) and fields that only one of the two records has (a field added to
records later). Exit status 1 if any shared record differs, or if no key is shared.
"""

from __future__ import annotations

import argparse
import warnings
from collections import Counter
from pathlib import Path

from experiments.records import ABSENT, RecordStore, differing_fields, record_key
from experiments.unit import TIMING_FIELDS


def records_by_key(run_dir: Path) -> dict[tuple, dict]:
    store = RecordStore(run_dir / "raw")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {record_key(r): r for r in store.read_all()}


def compare(a: dict[tuple, dict], b: dict[tuple, dict]) -> tuple[int, Counter, Counter]:
    """(shared keys, fields that differ, fields present on one side only), timing ignored."""
    differing, one_sided = Counter(), Counter()
    shared = a.keys() & b.keys()
    for key in shared:
        for field, (left, right) in differing_fields(a[key], b[key], TIMING_FIELDS).items():
            if left is ABSENT or right is ABSENT:
                one_sided[field] += 1
            else:
                differing[field] += 1
    return len(shared), differing, one_sided


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", type=Path, help="an output folder (with raw/)")
    parser.add_argument("second", type=Path)
    args = parser.parse_args()
    a, b = records_by_key(args.first), records_by_key(args.second)
    shared, differing, one_sided = compare(a, b)
    print(f"{len(a)} and {len(b)} records; {shared} keys in both")
    print(f"fields on one side only (not compared): {dict(one_sided) or 'none'}")
    print(f"shared records differing, by field (timing aside): {dict(differing) or 'none'}")
    if not shared:
        print("no key in both: nothing was compared")
    raise SystemExit(1 if differing or not shared else 0)


if __name__ == "__main__":
    main()
