"""Is ``engine="binned"`` the same learner as ``engine="fast"`` on large data? A TOST on MNIST slices.

    python scripts/evidence/compare_binned.py --record   # -> results/bench/binned_equivalence.csv

(without ``--record``: build/bench/binned_equivalence.csv).

The binned engine grows the fast engine's trees wherever no feature has more than 256 distinct
values: on every forest of the paper's protocol (at most 80 training examples: tested) and on
MNIST's pixels. It differs where class vectors of later levels take more values, as DisDF's
weighted vectors do on thousands of images. So the comparison is DisDF (the experiment's
settings: experiment=mnist_full, stochastic Frank-Wolfe weights) on ``--slices`` random slices
of ``--n-train`` MNIST training images (slice s drawn with seed s), each fitted with both
engines on the same seed and scored on all 10,000 test images; gcF runs on the first slice,
where its binned accuracy must equal its fast one (same trees).

Declared before the comparison: a paired TOST on binned − fast test accuracy, the slice the
unit, margin ±0.5 percentage points (the engines' pooled margin, results/bench/
engine_equivalence.csv), alpha = 0.05. Together with the full-MNIST runs (both engines, same
seed: results/mnist_full_history.csv). One core per fit is not assumed: n_jobs = 2 as in the
full-MNIST runs.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse
from functools import partial

import numpy as np
import pandas as pd

from disdf import load_mnist
from experiments.analysis.plan import ALPHA, VARIANT_MARGIN_PP
from experiments.analysis.statistics import tost_paired
from experiments.running.composition import compose_config, estimator_specs
from experiments.running.config import default_data_dir
from experiments.running.protocol import Unit
from experiments.running.unit import make_estimator
from scripts.bench_output import add_record_flag, bench_output, timed, write_csv


def fit_score(method: str, engine: str, X, y, X_test, y_test, seed: int) -> tuple[float, float, int]:
    cfg = compose_config("experiment=mnist_full", f"model.engine={engine}")
    specs = estimator_specs(cfg, [method])
    estimator = make_estimator(Unit("mnist_slice", len(y), 100, method, seed), specs, seed).set_params(
        n_jobs=2
    )
    _, seconds = timed(partial(estimator.fit, X, y))
    return float(np.mean(estimator.predict(X_test) == y_test)), seconds, estimator.n_levels_


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slices", type=int, default=8)
    parser.add_argument("--n-train", type=int, default=3000)
    add_record_flag(parser)
    args = parser.parse_args()
    output = bench_output(args, "binned_equivalence")
    mnist = load_mnist(default_data_dir(), download=False)
    rows = []
    for seed in range(args.slices):
        chosen = np.random.default_rng(seed).choice(len(mnist["y_train"]), args.n_train, replace=False)
        X, y = mnist["X_train"][chosen], mnist["y_train"][chosen]
        for method in ("gcforest", "disdf") if seed == 0 else ("disdf",):
            row = {"slice": seed, "n_train": args.n_train, "method": method}
            for engine in ("fast", "binned"):
                accuracy, seconds, levels = fit_score(
                    method, engine, X, y, mnist["X_test"], mnist["y_test"], seed
                )
                row |= {
                    f"{engine}_accuracy": accuracy,
                    f"{engine}_seconds": seconds,
                    f"{engine}_levels": levels,
                }
            rows.append(row)
            print(row, flush=True)
    frame = pd.DataFrame(rows)
    gcforest = frame[frame["method"] == "gcforest"]
    if not np.array_equal(gcforest["fast_accuracy"], gcforest["binned_accuracy"]):
        print("gcF's binned accuracy differs from its fast one on some slice: its trees differ")
    disdf = frame[frame["method"] == "disdf"]
    tost = tost_paired(
        100 * (disdf["binned_accuracy"] - disdf["fast_accuracy"]).to_numpy(), VARIANT_MARGIN_PP, ALPHA
    )
    summary = {"slice": "TOST (DisDF, binned - fast, pp)", "method": "disdf", "n_train": args.n_train}
    summary |= {key: tost[key] for key in ("mean", "ci_low", "ci_high", "p_tost", "equivalent")}
    summary["margin_pp"] = VARIANT_MARGIN_PP
    frame = pd.concat([frame, pd.DataFrame([summary])], ignore_index=True)
    write_csv(output, frame, float_format="%.6g")
    print(frame.to_string(index=False))


if __name__ == "__main__":
    main()
