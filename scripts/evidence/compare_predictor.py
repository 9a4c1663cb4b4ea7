"""Does a classifier on top of gcF's last level (``predictor=``) help? Paired splits of KEEL tables.

    python scripts/evidence/compare_predictor.py --record   # -> results/bench/predictor.csv

(without ``--record``: build/bench/predictor.csv; ``--resummarize FILE`` recomputes the summary rows of
a written CSV from its split rows, fitting nothing).

gcF (CascadeForestClassifier, T = ``--n-trees``, default 50, every other parameter its default, the
compiled engine) on ``--splits`` stratified random splits (70 % train, 30 % test) of each of six
KEEL tables of the benchmark's collection (experiments/running/keel.py; none of the paper's data),
once per predictor on the same split and seed, so that the cascade's levels are the same trees
and only the top differs:

* ``none``: the paper's top, the average of the last level's class vectors;
* ``logistic``: ``LogisticRegression(max_iter=1000)`` on the raw features beside the last level's
  out-of-fold class vectors, as the issue names it (unscaled raw features: lbfgs often stops at
  max_iter; the CSV counts its ConvergenceWarnings);
* ``scaled_logistic``: the same behind a ``StandardScaler`` (what a practitioner would pass);
* ``hist_gradient_boosting``: ``HistGradientBoostingClassifier()`` with its defaults (DF21's
  suggestion).

The summary, per predictor against ``none``: per table the mean test-accuracy difference (percentage
points) with Nadeau and Bengio's corrected resampled-t interval (random splits of one table overlap:
term n_test / n_train), and over the tables the mean of their means with a Student-t interval, the
table the unit (experiments.analysis.statistics). It is printed and written after the split rows,
one row per table and contrast (``contrast``: "<predictor> - none"; the docs' ``.. results::
predictor-comparison`` reads them). A handful of tables and splits: an indication for the
documentation, not a benchmark (that is results/benchmark/).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse
import time
import warnings
import zlib

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from disdf import CascadeForestClassifier
from experiments.analysis.statistics import contrast_over_independent_groups, one_sample_t
from experiments.running.keel import load_keel
from scripts.bench_output import add_record_flag, bench_output, write_csv

#: Six tables of the benchmark's collection: 462-1,473 rows, 2 to 4 classes, numeric and categorical.
TABLES = ("australian", "contraceptive", "german", "pima", "vehicle", "wdbc")
TEST_SHARE = 0.3
PREDICTORS = {
    "none": lambda: None,
    "logistic": lambda: LogisticRegression(max_iter=1000),
    "scaled_logistic": lambda: make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
    "hist_gradient_boosting": lambda: HistGradientBoostingClassifier(),
}


def one_split(table: str, split: int, n_trees: int) -> list[dict]:
    """Every predictor on split ``split`` of ``table`` (the same split and cascade seed for each)."""
    data = load_keel(table)
    seed = zlib.crc32(table.encode()) % 2**31
    splitter = StratifiedShuffleSplit(n_splits=split + 1, test_size=TEST_SHARE, random_state=seed)
    train, test = list(splitter.split(data.X, data.y))[split]
    rows = []
    for name, make in PREDICTORS.items():
        model = CascadeForestClassifier(n_trees=n_trees, random_state=seed + split, predictor=make())
        cpu, wall = time.process_time(), time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            model.fit(data.X[train], data.y[train])
        rows.append(
            {
                "table": table,
                "split": split,
                "n_train": len(train),
                "n_test": len(test),
                "n_trees": n_trees,
                "predictor": name,
                "accuracy": model.score(data.X[test], data.y[test]),
                "n_levels": model.n_levels_,
                "convergence_warnings": sum(issubclass(w.category, ConvergenceWarning) for w in caught),
                "fit_seconds": time.perf_counter() - wall,
                "fit_cpu_seconds": time.process_time() - cpu,
            }
        )
    return rows


def summarize(frame: pd.DataFrame) -> pd.DataFrame:
    """Per predictor against ``none`` (the split rows of ``frame``): each table's mean difference (pp)
    with its corrected interval over its splits, then the mean over tables with a t-interval over them."""
    wide = frame.pivot_table(index=["table", "split"], columns="predictor", values="accuracy")
    term = TEST_SHARE / (1 - TEST_SHARE)  # Nadeau & Bengio: n_test / n_train
    lines = []
    for name in [p for p in PREDICTORS if p != "none"]:
        differences = 100 * (wide[name] - wide["none"])
        means = []
        for table, values in differences.groupby(level="table"):
            result = contrast_over_independent_groups([values.to_numpy()], [term])
            means.append(result["mean"])
            lines.append(_summary_row(name, str(table), result, len(values), "Nadeau-Bengio t over splits"))
        overall = one_sample_t(np.array(means))
        lines.append(_summary_row(name, "mean over tables", overall, len(means), "t over tables"))
    return pd.DataFrame(lines)


def _summary_row(predictor: str, table: str, result: dict, n: int, interval: str) -> dict:
    return {
        "table": table,
        "predictor": predictor,
        "contrast": f"{predictor} - none",
        "mean_pp": result["mean"],
        "ci_low_pp": result["ci_low"],
        "ci_high_pp": result["ci_high"],
        "p": result["p"],
        "n": n,
        "interval": interval,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--n-trees", type=int, default=50)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument(
        "--resummarize",
        type=Path,
        help="recompute the summary rows of this CSV from its split rows; fit nothing",
    )
    add_record_flag(parser)
    args = parser.parse_args()
    if args.resummarize is not None:
        output = args.resummarize
        frame = pd.read_csv(output)
        if "contrast" in frame:
            frame = frame[frame["contrast"].isna()]  # the split rows
    else:
        output = bench_output(args, "predictor")
        jobs = [delayed(one_split)(t, s, args.n_trees) for t in TABLES for s in range(args.splits)]
        frame = pd.DataFrame([row for rows in Parallel(n_jobs=args.n_jobs)(jobs) for row in rows])
        write_csv(output, frame, float_format="%.6g")
        print(f"fit CPU minutes: {frame['fit_cpu_seconds'].sum() / 60:.1f}")
    means = frame.pivot_table(index="table", columns="predictor", values="accuracy")
    print(means[list(PREDICTORS)].to_string(float_format="%.4f"))
    summary = summarize(frame)
    # after the split rows; a summary of the same table and contrast replaces the earlier one
    write_csv(output, summary, float_format="%.6g")
    print("\ntest accuracy minus predictor=None's, percentage points (95 % CI; p two-sided):")
    print(summary.drop(columns="contrast").to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
