"""Say which config made a results folder written before runs said it (its ``configs.json``), once.

    python -m experiments.drivers.folder_config results/benchmark experiment=benchmark

The overrides are composed and their config hash checked against the folder's records (every record
must be of it, and there must be some) before anything is written: a folder is never said to hold
a config its records are not of. Runs since write the file themselves
(:func:`experiments.running.folder_configs.record_config`).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

from experiments.running.composition import compose_config, config_hash
from experiments.running.folder_configs import record_config, result_overrides
from experiments.running.records import RecordStore


def refuse(why: str) -> None:
    print(f"Nothing was written. {why}", file=sys.stderr)
    raise SystemExit(2)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("overrides", nargs="+")
    args = parser.parse_args(argv)
    overrides = result_overrides(args.overrides)
    composed = config_hash(compose_config(*overrides))
    with warnings.catch_warnings(record=True) as dropped:
        warnings.simplefilter("always")
        held = {record["config_hash"] for record in RecordStore(args.folder / "raw").read_all()}
    if dropped:  # a folder with a record that does not count is not vouched for
        refuse(f"{dropped[0].message}")
    if held != {composed}:
        refuse(
            f"{args.folder}: its records are of config(s) {sorted(held) or 'none'}, these overrides "
            f"compose {composed}"
        )
    experiment = next(o.split("=", 1)[1] for o in overrides if o.startswith("experiment="))
    record_config(args.folder, composed, experiment, overrides)
    print(f"{args.folder}: config {composed} ({' '.join(overrides)})")


if __name__ == "__main__":
    main()
