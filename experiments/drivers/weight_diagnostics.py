"""How far DisDF's learned tree weights are from gcForest's uniform 1/T (#43, "why DisDF ≈ gcF").

    python -m experiments.drivers.weight_diagnostics        # -> results/weights/diagnostics.csv

DisDF is gcForest with each forest's class vector a weighted sum of its trees' vectors, the weights w
on the simplex learned by eq. (70)-(72); with w = 1/T it is gcForest. This refits the headline's
DisDF (configs/experiment/paper.yaml, the same split seeds, estimators and config) on the first
``--repetitions`` splits of every (dataset, N) at each ``--Ts``, checks that each fit's test accuracy
and depth equal the headline's record of that unit (the weights read are the headline's), and writes
one row per (dataset, N, T, repetition, level, forest, fold model):

* ``effective_trees``: 1 / sum(w²), the number of equally weighted trees with the same spread
  (T for uniform weights, 1 for one tree), and ``effective_share`` = effective_trees / T;
* ``tv_from_uniform``: the total variation distance 0.5 sum |w - 1/T| (0 uniform, near 1 one tree);
* ``max_weight_ratio``: T max(w) (1 for uniform weights);
* ``level_kept``: whether the level is among the ``n_levels`` kept for prediction (a fit grows one
  level past the kept ones, whose weights are read too).

Beside it, ``agreement.csv``: per (dataset, N, T, repetition), the share of test examples DisDF and
gcF (the headline's gcF, refitted on the same split; its accuracy checked against its record too)
predict alike, and the mean L1 distance between their predicted probability vectors.
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from disdf.utils import write_text_atomically
from experiments.paths import ROOT
from experiments.running.composition import compose_config
from experiments.running.plan import decide
from experiments.running.protocol import Unit
from experiments.running.records import RecordStore
from experiments.running.unit import make_estimator

OUTPUT = ROOT / "results" / "weights" / "diagnostics.csv"
AGREEMENT = "agreement.csv"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repetitions", type=int, default=10, help="the first R splits of each (dataset, N)")
    parser.add_argument("--Ts", type=int, nargs="+", default=[100, 1000], help="trees per forest")
    parser.add_argument("--datasets", nargs="*", help="a subset of the headline's datasets")
    parser.add_argument("--output", default=str(OUTPUT), help="the CSV written")
    return parser.parse_args(argv)


def weight_rows(weights: list, n_levels: int) -> list[dict]:
    """One row per (level, forest, fold model) of a fitted DisDF's ``weights_``."""
    rows = []
    for level, forests in enumerate(weights, start=1):
        for forest, folds in enumerate(forests, start=1):
            for fold, w in enumerate(folds, start=1):
                T = len(w)
                effective = 1.0 / float(np.sum(np.square(w)))
                rows.append(
                    {
                        "level": level,
                        "forest": forest,
                        "fold": fold,
                        "level_kept": level <= n_levels,
                        "effective_trees": effective,
                        "effective_share": effective / T,
                        "tv_from_uniform": 0.5 * float(np.abs(w - 1.0 / T).sum()),
                        "max_weight_ratio": T * float(np.max(w)),
                    }
                )
    return rows


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    # Ecoli's rarest classes have fewer members than folds at small N: the headline fitted so too.
    warnings.filterwarnings("ignore", message="The least populated class", category=UserWarning)
    plan = decide(compose_config("experiment=paper"))
    protocol = plan.protocol
    store = RecordStore(plan.runtime.output_dir / "raw")
    rows, agreement = [], []
    for dataset in args.datasets or plan.datasets:
        headline = {
            (r["N"], r["T"], r["method"], r["repetition"]): r
            for r in store.read(dataset, plan.grid)
            if r["repetition"] < args.repetitions
        }
        pool = protocol.pool(dataset)
        for N in protocol.Ns:
            for T in args.Ts:
                for repetition in range(args.repetitions):
                    key = {"dataset": dataset, "N": N, "T": T, "repetition": repetition}
                    fitted = {}
                    for method in ("disdf", "gcforest"):
                        unit = Unit(dataset, N, T, method, repetition)
                        seed = protocol.split_seed(unit)
                        split = protocol.split(pool, unit, seed)
                        model = make_estimator(unit, plan.specs, seed).fit(split.X_train, split.y_train)
                        check_reproduces(model, split, headline[N, T, method, repetition])
                        fitted[method] = model
                    disdf, gcf = fitted["disdf"], fitted["gcforest"]
                    rows += [{**key, **row} for row in weight_rows(disdf.weights_, disdf.n_levels_)]
                    agreement.append(
                        {
                            **key,
                            "same_prediction": float(
                                np.mean(disdf.predict(split.X_test) == gcf.predict(split.X_test))
                            ),
                            "probability_l1": float(
                                np.abs(disdf.predict_proba(split.X_test) - gcf.predict_proba(split.X_test))
                                .sum(1)
                                .mean()
                            ),
                        }
                    )
            print(f"{dataset} N={N}: done", flush=True)
    write_text_atomically(args.output, pd.DataFrame(rows).to_csv(index=False, float_format="%.6g"))
    beside = Path(args.output).with_name(AGREEMENT)
    write_text_atomically(beside, pd.DataFrame(agreement).to_csv(index=False, float_format="%.6g"))


def check_reproduces(model, split, record: dict) -> None:
    """Stop unless the refit has its headline record's test accuracy and depth."""
    accuracy = float(np.mean(model.predict(split.X_test) == split.y_test))
    if accuracy != record["accuracy"] or model.n_levels_ != record["n_levels"]:
        raise SystemExit(
            f"{record['dataset']} N={record['N']} T={record['T']} {record['method']} repetition "
            f"{record['repetition']}: accuracy {accuracy} and {model.n_levels_} levels, the headline's "
            f"record {record['accuracy']} and {record['n_levels']}: not the headline's model"
        )


if __name__ == "__main__":
    main()
