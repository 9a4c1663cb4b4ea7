"""Where a cold first fit's compiling goes: numba's compile events, per compiled function.

    python scripts/evidence/compile_profile.py --record   # -> results/bench/compile_profile.csv

(without ``--record``: build/bench/). Each row is one compiled function of one cold run: a fresh
process with an empty numba cache (a new temporary ``NUMBA_CACHE_DIR``) fits the gcForest cascade
and then DisDF with their defaults on 100 rows of 10 features (``random_state=0``, ``n_jobs=1``), as
``make bench-first-fit``'s ``cold`` stage does. Per function: the compiles numba ran (one per
signature), their CPU seconds without the compiles they started themselves (``exclusive``: the
column sums to the run's compiling), and the two fits' CPU seconds. ``--numba-opt 3 0`` repeats the
run with LLVM's optimisation off (``NUMBA_OPT=0``): what is left is numba's own typing and lowering,
the part of the compiling no optimisation flag removes.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse
import json
import os
import subprocess
import tempfile
import time
from collections import Counter

from scripts.bench_output import add_record_flag, bench_output, write_csv

N_ROWS, N_FEATURES = 100, 10


def profile_in_this_process() -> dict[str, object]:
    """Fit both cascades once, listening to numba's compile events; what :func:`main` records."""
    import numpy as np
    from numba.core import event

    exclusive: Counter[str] = Counter()
    signatures: Counter[str] = Counter()
    open_compiles: list[list] = []  # [name, start, CPU seconds of the compiles it started]

    class CompileListener(event.Listener):
        def on_start(self, ev: event.Event) -> None:
            function = ev.data["dispatcher"].py_func
            name = f"{function.__module__}.{function.__qualname__}"
            open_compiles.append([name, time.process_time(), 0.0])

        def on_end(self, ev: event.Event) -> None:
            name, started, inner = open_compiles.pop()
            spent = time.process_time() - started
            exclusive[name] += spent - inner
            signatures[name] += 1
            if open_compiles:
                open_compiles[-1][2] += spent

    event.register("numba:compile", CompileListener())
    from disdf import CascadeForestClassifier, DisDFClassifier

    X = np.random.default_rng(0).normal(size=(N_ROWS, N_FEATURES))
    y = (X[:, 0] > 0).astype(int)
    fits = {}
    for name, estimator in (("gcforest", CascadeForestClassifier), ("disdf", DisDFClassifier)):
        started = time.process_time()
        estimator(random_state=0, n_jobs=1).fit(X, y)
        fits[name] = time.process_time() - started
    return {"fits": fits, "exclusive": dict(exclusive), "signatures": dict(signatures)}


def cold_run(numba_opt: int) -> dict[str, object]:
    """:func:`profile_in_this_process` in a fresh process with an empty numba cache."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, NUMBA_OPT=str(numba_opt))
        completed = subprocess.run(
            [sys.executable, __file__, "--child"], env=env, capture_output=True, text=True, check=True
        )
    return json.loads(completed.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--numba-opt", type=int, nargs="+", default=[3, 0], help="NUMBA_OPT levels to run")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    add_record_flag(parser)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(profile_in_this_process()))
        return
    path = bench_output(args, "compile_profile")
    rows = []
    for level in args.numba_opt:
        run = cold_run(level)
        exclusive, signatures, fits = run["exclusive"], run["signatures"], run["fits"]
        print(
            f"NUMBA_OPT={level}: compiling {sum(exclusive.values()):.1f} CPU-s in {len(exclusive)} functions "
            f"({sum(signatures.values())} signatures); fits gcForest {fits['gcforest']:.1f}, "
            f"DisDF {fits['disdf']:.1f} CPU-s",
            flush=True,
        )
        for name, seconds in sorted(exclusive.items(), key=lambda item: -item[1]):
            rows.append(
                {
                    "numba_opt": level,
                    "function": name,
                    "signatures": signatures[name],
                    "exclusive_cpu_seconds": round(seconds, 4),
                    "fit_cpu_seconds_gcforest": round(fits["gcforest"], 3),
                    "fit_cpu_seconds_disdf": round(fits["disdf"], 3),
                }
            )
    write_csv(path, rows)


if __name__ == "__main__":
    main()
