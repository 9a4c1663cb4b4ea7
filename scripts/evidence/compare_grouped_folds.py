"""What grouping copies into one fold (``model.group_duplicates=true``) changes in the committed records.

    make grouped-folds    # the two reruns, then this script with --record, then the section
    python scripts/evidence/compare_grouped_folds.py --record   # -> results/bench/grouped_folds*.csv

(without ``--record``: build/bench/). The committed records were made with the paper's folds (each row
dealt alone); the reruns (``experiment=benchmark_grouped``, ``benchmark_cv_grouped`` and
``ionosphere_grouped``: those experiments with ``model.group_duplicates=true``, into results/<name>/)
repeat them, unit for unit, with copies of a feature row in one fold.
Per dataset (``grouped_folds.csv``): the units paired, how many are equal in every result field
(accuracy, depth, every level's out-of-fold score), and per cascade the mean test accuracy and the
mean out-of-fold score of the kept level before and after, beside the dataset's repeated rows
(``duplicate_rows.csv``). The decisions (``grouped_folds_tests.csv``): each benchmark regime's declared tests
(:mod:`experiments.analysis.benchmark`: Friedman, every contrast by Wilcoxon with Holm and by the
Bayesian signed-rank test) and the headline's verdict on Ionosphere (the pooled DisDF - gcF with its
TOST, :func:`experiments.analysis.dataset_effects.effect_rows`), each on both sets of records, and
per cascade the test accuracy's change, its mean over the datasets and the largest drops (side
``change``).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse

import pandas as pd

from experiments.analysis.benchmark import contrasts, dataset_accuracies, ranking
from experiments.analysis.cells import PAPER_TABLES
from experiments.analysis.dataset_effects import effect_rows
from experiments.analysis.plan import NOT_DECIDED
from experiments.paths import ROOT
from experiments.running.records import RecordStore
from scripts.bench_output import RECORDED, add_record_flag, bench_output, write_csv

UNIT = ["dataset", "N", "T", "method", "repetition"]
RESULTS = ["accuracy", "n_levels", "level_scores"]
CASCADES = ("gcforest", "disdf", "disdf_tuned")
#: (name, the committed folder, the grouped run's folder)
#: The headline verdict's words for its tests (experiments.analysis.dataset_effects.effect_rows).
VERDICTS = (("equivalent", "equivalent"), ("DisDF better", "above"), ("DisDF worse", "below"))
PAIRS = (
    ("benchmark", ROOT / "results" / "benchmark", ROOT / "results" / "benchmark_grouped"),
    ("benchmark_cv", ROOT / "results" / "benchmark_cv", ROOT / "results" / "benchmark_cv_grouped"),
    ("headline", ROOT / "results", ROOT / "results" / "ionosphere_grouped"),
)


def records(folder: Path) -> pd.DataFrame:
    frame = pd.DataFrame(RecordStore(folder / "raw").read_all())
    frame["kept_score"] = [
        scores[n - 1] if n else float("nan")
        for scores, n in zip(frame["level_scores"], frame["n_levels"], strict=True)
    ]
    return frame


def paired(before: pd.DataFrame, after: pd.DataFrame) -> pd.DataFrame:
    """The grouped run's units beside the same units of the committed records."""
    joined = after.merge(before, on=UNIT, suffixes=("_after", "_before"))
    joined["equal"] = [
        all(row[f"{f}_after"] == row[f"{f}_before"] for f in RESULTS) for _, row in joined.iterrows()
    ]
    return joined


def per_dataset(name: str, joined: pd.DataFrame, repeated: pd.Series) -> list[dict]:
    rows = []
    for dataset, units in joined.groupby("dataset"):
        row = {
            "experiment": name,
            "dataset": dataset,
            "repeated_rows": int(repeated.get(dataset, 0)),
            "units": len(units),
            "units_equal": int(units["equal"].sum()),
        }
        for method in CASCADES:
            mine = units[units["method"] == method]
            if mine.empty:
                continue
            for field in ("accuracy", "kept_score"):
                for side in ("before", "after"):
                    row[f"{method}_{field}_{side}"] = round(float(mine[f"{field}_{side}"].mean()), 5)
        rows.append(row)
    return rows


def test_row(experiment: str, side: str, test: str, statistic: float, p: float, detail: str) -> dict:
    return {
        "experiment": experiment,
        "side": side,
        "test": test,
        "statistic": statistic,
        "p": p,
        "detail": detail,
    }


def benchmark_tests(name: str, before: pd.DataFrame, after: pd.DataFrame) -> list[dict]:
    rows = []
    for side, frame in (("before", before), ("after", after)):
        accuracies = dataset_accuracies(frame)
        ranked = ranking(accuracies)
        ranks = "; ".join(f"{m} {r:.2f}" for m, r in ranked.mean_ranks.items())
        rows.append(test_row(name, side, "friedman", ranked.statistic, ranked.p_value, ranks))
        for c in contrasts(accuracies):
            probabilities = (
                f"P worse {c.p_worse:.3f}, equivalent {c.p_equivalent:.3f}, better {c.p_better:.3f}"
            )
            contrast = f"{c.treatment} - {c.baseline}"
            rows.append(test_row(name, side, contrast, c.mean_pp, c.holm_p, f"{c.verdict} ({probabilities})"))
    return rows


def headline_tests(before: pd.DataFrame, after: pd.DataFrame) -> list[dict]:
    paper = pd.read_csv(PAPER_TABLES)
    rows = []
    for side, frame in (("before", before), ("after", after)):
        effect = effect_rows(frame[frame["dataset"] == "ionosphere"], paper).iloc[0]
        # the verdict's tests: TOST within the margin, or a difference beyond it either way
        decided = [word for word, test in VERDICTS if effect[test]]
        interval = f"CI [{effect['ci_low']:+.2f}, {effect['ci_high']:+.2f}] pp"
        cells = f"cells DisDF better / worse: {effect['better']} / {effect['worse']}"
        detail = f"{(decided or [NOT_DECIDED])[0]}; {interval}; {cells}"
        rows.append(
            test_row("headline", side, "ionosphere DisDF - gcF", effect["mean"], float("nan"), detail)
        )
    return rows


def accuracy_changes(name: str, joined: pd.DataFrame) -> list[dict]:
    """Per cascade: the test accuracy's change (pp), its mean over the datasets (each one unit, as the
    benchmark's tests count them), and the datasets of the largest drops."""
    rows = []
    for method in CASCADES:
        mine = joined[joined["method"] == method]
        if mine.empty:
            continue
        change = 100 * (mine["accuracy_after"] - mine["accuracy_before"]).groupby(mine["dataset"]).mean()
        largest = ", ".join(f"{d} {v:+.1f}" for d, v in change.nsmallest(3).items() if v < 0) or "none"
        detail = f"over {len(change)} datasets; largest drops: {largest}"
        rows.append(test_row(name, "change", f"test accuracy, {method}", change.mean(), float("nan"), detail))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_record_flag(parser)
    args = parser.parse_args()
    repeated = pd.read_csv(RECORDED / "duplicate_rows.csv").set_index("dataset")["repeated_rows_f32"]
    datasets, tests = [], []
    for name, committed, grouped in PAIRS:
        if not (grouped / "raw").is_dir():
            print(f"{name}: no grouped run in {grouped} (make grouped-folds); skipped")
            continue
        after = records(grouped)
        before = records(committed)
        before = before[before["dataset"].isin(after["dataset"].unique())]
        joined = paired(before, after)
        datasets += per_dataset(name, joined, repeated)
        changed = sorted(joined.loc[~joined["equal"], "dataset"].unique())
        print(f"{name}: {len(joined)} units paired, {int((~joined['equal']).sum())} changed, in {changed}")
        tests += headline_tests(before, after) if name == "headline" else benchmark_tests(name, before, after)
        tests += accuracy_changes(name, joined)
    write_csv(bench_output(args, "grouped_folds"), datasets)
    write_csv(bench_output(args, "grouped_folds_tests"), tests)
    for row in tests:
        test = f"{row['experiment']:9s} {row['side']:6s} {row['test']:26s}"
        print(f"{test} {row['statistic']:8.3f} p={row['p']:.3g}  {row['detail']}")


if __name__ == "__main__":
    main()
