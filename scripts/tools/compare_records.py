"""Did a change of code change any result? Compare two runs' raw records key by key, timing aside.

    python scripts/tools/compare_records.py results /tmp/check  # /tmp/check: experiment=paper, 3 repetitions
    python scripts/tools/compare_records.py results build/reproduce/fast --ignore solver_mean_iter

Pairs the records of the two output folders by (dataset, N, T, method,
repetition, config) and prints how many keys they share, how many shared
records are equal and, per field, how many differ in it, ignoring the timing
fields (which differ on every run), the fields named by ``--ignore`` and fields
that only one of the two records has (a field added to records later). Exit
status 1 if any shared record differs, or if no key is shared.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse
import warnings
from collections import Counter

from experiments.running.records import ABSENT, RecordStore, differing_fields, record_key
from experiments.running.unit import RERUN_VARYING_FIELDS


def records_by_key(run_dir: Path) -> dict[tuple, dict]:
    store = RecordStore(run_dir / "raw")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {record_key(r): r for r in store.read_all()}


def compare(
    a: dict[tuple, dict], b: dict[tuple, dict], ignored: tuple[str, ...] = ()
) -> tuple[int, Counter, Counter, int]:
    """(shared keys, fields that differ, fields present on one side only, shared records equal),
    timing, the digests (which cover the timing) and ``ignored`` fields aside."""
    differing, one_sided = Counter(), Counter()
    shared = a.keys() & b.keys()
    equal = 0
    for key in shared:
        fields = differing_fields(a[key], b[key], (*RERUN_VARYING_FIELDS, *ignored))
        for field, (left, right) in fields.items():
            if left is ABSENT or right is ABSENT:
                one_sided[field] += 1
            else:
                differing[field] += 1
        equal += all(left is ABSENT or right is ABSENT for left, right in fields.values())
    return len(shared), differing, one_sided, equal


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", type=Path, help="an output folder (with raw/)")
    parser.add_argument("second", type=Path)
    parser.add_argument("--ignore", action="append", default=[], help="a field not to compare (repeatable)")
    args = parser.parse_args()
    a, b = records_by_key(args.first), records_by_key(args.second)
    shared, differing, one_sided, equal = compare(a, b, tuple(args.ignore))
    aside = ", ".join(["timing", *args.ignore])
    print(f"{len(a)} and {len(b)} records; {shared} keys in both; {equal} of them equal ({aside} aside)")
    print(f"fields on one side only (not compared): {dict(one_sided) or 'none'}")
    print(f"shared records differing, by field (timing aside): {dict(differing) or 'none'}")
    if not shared:
        print("no key in both: nothing was compared")
    raise SystemExit(1 if differing or not shared else 0)


if __name__ == "__main__":
    main()
