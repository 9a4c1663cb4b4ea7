"""Beyond the paper: gcF's MNIST accuracy against training size, with and without multi-grained scanning.

    python scripts/evidence/mgs_training_size.py --record   # -> results/bench/mgs_training_size.csv

(without ``--record``: build/bench/mgs_training_size.csv). On the first n training images (n in
``--sizes``, default 1,000, 2,000, 5,000 and 10,000), scored on the first ``--n-test`` test images
(default all 10,000): gcF at T = 100 without scanning (configs/method/gcforest.yaml) and with the scanner of
``experiment=mgs`` (configs/method/gcforest_mgs.yaml: windows 7, 10, 14, stride 2, 10 trees per
scanning forest), seed 0. Cases run smallest first, each row written as it finishes; once
``--budget-minutes`` of compute have passed no new case starts, and a row says which cases were
left and why. DisDF is left out: at thousands of examples it needs the stochastic solver
(README, "The full MNIST training set"), another method than the paper's.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse
import time

import numpy as np

from disdf import load_mnist
from experiments.running.composition import compose_config, estimator_specs
from experiments.running.protocol import Unit
from experiments.running.scanned_inputs import split_inputs
from experiments.running.unit import make_estimator
from scripts.bench_output import add_record_flag, bench_output, write_csv

ROOT = Path(__file__).resolve().parents[2]
METHODS = {False: "gcforest", True: "gcforest_mgs"}


def run_case(specs: dict, n_train: int, n_test: int, scanning: bool, n_jobs: int) -> dict:
    """Fit one method on the first n_train images; its test accuracy and seconds."""
    mnist = load_mnist(download=False)
    X, y = mnist["X_train"][:n_train], mnist["y_train"][:n_train]
    X_test, y_test = mnist["X_test"][:n_test], mnist["y_test"][:n_test]
    estimator = make_estimator(Unit("mnist", n_train, 100, METHODS[scanning], 0), specs, seed=0)
    estimator.set_params(
        **({"scan__n_jobs": n_jobs, "cascade__n_jobs": n_jobs} if scanning else {"n_jobs": n_jobs})
    )
    start = time.perf_counter()
    (given,) = split_inputs([estimator], X, y, X_test)  # the scan, if any: fit_transform, then transform
    given.model.fit(given.X_train, y)
    fit_seconds = time.perf_counter() - start - given.predict_seconds  # the test scan is not fitting
    accuracy = float(np.mean(given.model.predict(given.X_test) == y_test))
    return {
        "n_train": n_train,
        "n_test": n_test,
        "method": "gcforest",
        "scanning": scanning,
        "T": 100,
        "accuracy": accuracy,
        "n_levels": int(given.model.n_levels_),
        "fit_seconds": fit_seconds,
        "seconds": time.perf_counter() - start,
        "n_jobs": n_jobs,
        "note": "",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 2_000, 5_000, 10_000])
    parser.add_argument("--n-test", type=int, default=10_000)
    parser.add_argument("--budget-minutes", type=float, default=50.0)
    parser.add_argument("--n-jobs", type=int, default=2)
    add_record_flag(parser)
    args = parser.parse_args()
    output = bench_output(args, "mgs_training_size")
    specs = estimator_specs(compose_config("experiment=mgs"), ["gcforest", "gcforest_mgs"])
    started = time.perf_counter()
    cases = [(n, scanning) for n in sorted(args.sizes) for scanning in (False, True)]
    for position, (n, scanning) in enumerate(cases):
        spent = (time.perf_counter() - started) / 60
        if spent >= args.budget_minutes:
            left = ", ".join(f"n={m} {'with' if s else 'without'} scanning" for m, s in cases[position:])
            note = f"stopped after {spent:.0f} of {args.budget_minutes:g} budgeted minutes; not run: {left}"
            write_csv(
                output,
                [{"n_train": n, "method": "gcforest", "scanning": scanning, "note": note}],
            )
            print(note)
            return
        row = run_case(specs, n, args.n_test, scanning, args.n_jobs)
        row["note"] = (
            f"budget {args.budget_minutes:g} min; {spent + row['seconds'] / 60:.1f} min spent after this case"
        )
        write_csv(output, [row], float_format="%.5g")
        print(row, flush=True)


if __name__ == "__main__":
    main()
