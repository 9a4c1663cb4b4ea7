"""How many rows of the reproduction's and the benchmark's tables repeat another row's features?

    python scripts/evidence/count_duplicates.py --record   # -> results/bench/duplicate_rows.csv

(without ``--record``: build/bench/). A copy of a row in a cascade's training folds tells the held-out
copy its label through the out-of-fold class vector (issue [integrity-4]); this counts, before any
change of the folds, how much of the data that concerns: the paper's four datasets (MNIST's 60,000
training images) and the 43 KEEL tables of the benchmark. Per table: its rows, its distinct feature
rows, the rows whose features another row repeats, and among those the rows whose group holds more
than one label (a copy labelled otherwise). Counted on the values as loaded (float64) and as the
trees compare them (float32, ``_f32`` columns). Nothing is fitted.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse

import numpy as np

from scripts.bench_output import add_record_flag, bench_output, write_csv

PAPER = ("parkinsons", "ecoli", "ionosphere", "mnist")


def counts(X: np.ndarray, y: np.ndarray) -> dict[str, int]:
    """Rows, distinct feature rows, rows in a repeated group, and rows in a group of several labels."""
    _, group, sizes = np.unique(np.ascontiguousarray(X), axis=0, return_inverse=True, return_counts=True)
    group = group.ravel()
    repeated = sizes[group] > 1
    _, label = np.unique(y, return_inverse=True)
    labels_per_group = np.array([len(set(label[group == g])) for g in np.flatnonzero(sizes > 1)])
    mixed_groups = np.flatnonzero(sizes > 1)[labels_per_group > 1] if len(labels_per_group) else []
    return {
        "rows": len(y),
        "distinct_rows": len(sizes),
        "repeated_rows": int(repeated.sum()),
        "rows_with_other_label_copies": int(np.isin(group, mixed_groups).sum()),
    }


def tables(data_dir: str | None):
    """(name, source, X, y) of every table counted."""
    from disdf.datasets import load_dataset, load_mnist
    from experiments.running.keel import KEEL_PREFIX, KEEL_TABLES, load_keel

    for name in PAPER:
        if name == "mnist":
            mnist = load_mnist(data_dir, download=False)
            yield name, "paper", mnist["X_train"], mnist["y_train"]
        else:
            X, y = load_dataset(name, data_dir, download=False)
            yield name, "paper", X, y
    for name in sorted(KEEL_TABLES):
        table = load_keel(name)
        yield f"{KEEL_PREFIX}{name}", "keel", table.X, table.y


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None, help="the paper's data (default: DISDF_DATA_DIR)")
    add_record_flag(parser)
    args = parser.parse_args()
    rows = []
    for name, source, X, y in tables(args.data_dir):
        as_loaded = counts(np.asarray(X, dtype=np.float64), np.asarray(y))
        as_trees = counts(np.asarray(X, dtype=np.float32), np.asarray(y))
        rows.append(
            {"dataset": name, "source": source, **as_loaded}
            | {f"{key}_f32": value for key, value in as_trees.items() if key != "rows"}
        )
        repeated, mixed = as_loaded["repeated_rows"], as_loaded["rows_with_other_label_copies"]
        print(f"{name}: {repeated} of {len(y)} rows repeated ({mixed} with another label)", flush=True)
    write_csv(bench_output(args, "duplicate_rows"), rows)


if __name__ == "__main__":
    main()
