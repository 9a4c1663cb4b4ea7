"""Where a large cascade fit spends its time and memory, by part: gcForest and DisDF on bench_scale's problem.

    python scripts/bench/bench_fit_profile.py --n-train 300000 --methods gcforest disdf --n-jobs 2 --record
    # -> results/bench/fit_profile.csv   (make bench-profile)

(without ``--record``: build/bench/fit_profile.csv; ``--output`` names another file). The problem, the
cascades and the warm-up are scripts/bench/bench_scale.py's, imported from it: the HIGGS-shaped
synthetic problem (``--problem higgs_like``, the default; ``mnist`` also works), the cascades of
``experiment=mnist_full`` (engine "binned", DisDF with the pair-sampling solver, T = ``--n-trees``,
default 100) with ``--n-jobs`` threads, and a small warm-up fit before the measured one, so that the
compiled kernels are compiled, or read from numba's cache, before it. Each (method, n) is fitted once,
in a fresh process (``--in-process``: in this one, for tests and debugging; the processes then share
compiled code and memory peaks), and scored on bench_scale's test rows.

How: while the one measured fit runs, the library's own functions that carry each part are replaced by
timers around them (module and class attributes set at run time, restored afterwards: disdf/ is not
edited; PARTS says which function each part wraps):

* input checks: ``_CascadeBase._prepare_fit`` (X and y validated, float32, labels, the
  memory estimate);
* feature-major copy: ``feature_major`` (each fold's training rows copied feature-major for the trees,
  once per fold and level, shared by the fold's forests);
* growing trees: the compiled ``kernels.grow_forest`` (per fold model: presorting, the binning of
  engine "binned", which runs inside this compiled call and cannot be timed apart from it, and the
  splits);
* tree fit around the kernel: ``FastForest.fit`` less the two parts above (its check of X, the labels'
  copy, the nodes' compaction);
* held-out leaf rows: ``FastForest.tree_leaves`` (each fold's held-out rows routed through its fold
  model's trees: the out-of-fold predictions, kept as leaf rows);
* out-of-fold class vectors: ``ForestFit.out_of_fold_vectors`` (the trees' leaf rows summed with their
  weights, eq. (41));
* level scoring: ``level_accuracy``;
* next level's input: ``_CascadeBase._level_input`` (raw features beside the class
  vectors, float32);
* returning freed memory: ``release_free_memory`` (glibc's ``malloc_trim`` after a level that freed
  64 MB or more);
* weight problems (DisDF): ``FoldProblem.problem``, ``CrossFitPart.problem`` and ``pair_statistics``
  (a held-out set's (n, T, C) probabilities made from its leaf rows, with the exact solvers its pair
  statistics);
* weight solves (DisDF): ``solve_weights`` as the weight fitting calls it.

Not double counted: ``seconds`` is a part's *exclusive* time. Each thread keeps a stack of its timed
calls; a timed call inside another (``grow_forest`` inside ``FastForest.fit``) is charged to its own part
and subtracted from the enclosing one, so the parts' seconds add up to the time spent in any timed
function, each second once. ``inclusive_seconds`` keeps the nested calls in. No timed function hands
work to other threads (the functions that do, ``grow_level_models``, ``WeightFitting.at_point``,
``LevelFit.compute_pair_statistics``, are not timed: their tasks are), so nesting never crosses threads.
The timers are thread-safe: per-thread stacks (``threading.local``), totals added under a lock.

Columns of the CSV, one row per (problem, method, n_train, part):

* ``problem``, ``method``, ``n_train``, ``n_jobs``, ``n_trees``, ``max_levels`` (``--max-levels``: the
  fit grew at most that many levels; empty: the cascade chose its depth); ``part`` and ``wraps``;
* ``calls``: the calls timed; ``seconds``: their exclusive wall seconds summed over calls and threads
  (thread-seconds); ``cpu_seconds``: the same for the CPU time of the calling thread
  (``time.thread_time``); ``inclusive_seconds``; ``share_of_parts``: seconds / the sum of every part's;
* ``sum_of_parts_seconds``, ``wall_seconds_fit`` (the whole ``fit``'s wall time) and
  ``cpu_seconds_fit`` (the process's CPU time during it), the same on every row of a fit;
* ``rss_growth_gib``: the largest increase of the process's resident memory from a call's start to its
  end, over the part's calls (0 when no call ended higher than it started); ``rss_peak_growth_gib``:
  the largest increase from a call's start to the highest resident memory seen while it ran (read
  every 10 ms by a thread of its own, and at the call's end), which also catches what a call
  allocates and frees before it returns;
* ``rss_before_fit_gib`` (resident memory when the fit starts), ``peak_memory_gib`` (``ru_maxrss``
  after the fit: data, warm-up and fit), ``n_levels`` (kept), ``levels_grown`` (the levels whose
  trees were grown, the discarded ones after the best included), ``test_accuracy``;
* ``kernels_loaded_in_fit``: compiled kernels that gained a specialization during the measured fit
  (compiled, or read from numba's cache, inside it: their time is in their part), empty when the
  warm-up had loaded every one;
* ``date``, ``commit``, ``libraries``: the stamp of scripts/bench_output.py.

A new run's rows replace the file's rows of the same (problem, method, n_train, n_jobs, n_trees) and
commit; another commit's rows stay beside them, so a change is shown before and after.

Caveats. With ``--n-jobs`` above 1 the parts' thread-seconds can exceed the fit's wall time (up to
n_jobs x wall, and the main thread's while workers run); what is not in any part (the fold splits,
dispatching the tasks, waiting for the other threads or for a fold's shared copy) is in no row: compare
``sum_of_parts_seconds`` with ``n_jobs x wall_seconds_fit`` and ``cpu_seconds`` with ``cpu_seconds_fit``.
A thread's seconds include its waits for the GIL; its ``cpu_seconds`` do not, nor the CPU of BLAS
threads a part starts. Resident memory is the process's: calls running at once in other threads move
each other's growth, and ``rss_growth_gib`` includes nested parts. The timers add a few microseconds per
call (hundreds of calls per fit) and change no number: the wrapped functions get the same arguments
(tests/experiments/test_bench_fit_profile.py checks the predictions against an uninstrumented fit).
Resident memory is read from ``/proc/self/statm`` (Linux), else psutil, else left empty.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse
import functools
import math
import os
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing import get_context
from typing import Any

import numpy as np
import pandas as pd

import disdf.cascade._cascade as cascade_module
import disdf.cascade._cascade_base as cascade_base_module
import disdf.cascade._forest_fit as forest_fit_module
import disdf.cascade._level_growth as level_growth_module
import disdf.cascade._weight_fitting as weight_fitting_module
import disdf.forests._compiled.forest as forest_module
import disdf.forests._compiled.kernels as kernels_module
from disdf import CascadeForestClassifier
from disdf.cascade import ForestFit
from disdf.cascade._cascade_base import _CascadeBase
from disdf.cascade._weight_fitting import CrossFitPart, FoldProblem
from disdf.forests import FastForest
from disdf.utils import peak_memory_gib
from scripts.bench.bench_scale import CAPPED_METHODS, PROBLEMS, make_method, problem_data, warm_up
from scripts.bench_output import add_record_flag, bench_output, write_csv

METHODS = ("gcforest", "disdf")
GIB = 2**30
#: The columns that name one fit: its rows replace the file's rows with the same values.
FIT_KEY = ("problem", "method", "n_train", "n_jobs", "n_trees", "max_levels")
#: Seconds between two readings of the resident memory while a timed call runs.
SAMPLE_SECONDS = 0.01


@dataclass(frozen=True)
class Part:
    """One part of a fit: its plain name and the functions that carry it, as (owner, attribute):
    a module's function or a class's method, replaced by a timer while a fit is profiled."""

    name: str
    targets: tuple[tuple[Any, str], ...]
    disdf_only: bool = False

    @property
    def wraps(self) -> str:
        return "; ".join(f"{_owner_name(owner)}.{attribute}" for owner, attribute in self.targets)

    def applies_to(self, method: str) -> bool:
        return CAPPED_METHODS.get(method, method) == "disdf" or not self.disdf_only


def _owner_name(owner: Any) -> str:
    return f"{owner.__module__}.{owner.__qualname__}" if isinstance(owner, type) else owner.__name__


#: The parts, each with the functions that really carry it on the fit path (module docstring).
PARTS = (
    Part("input checks", ((_CascadeBase, "_prepare_fit"),)),
    Part("feature-major copy", ((level_growth_module, "feature_major"), (forest_module, "feature_major"))),
    Part("growing trees", ((kernels_module, "grow_forest"),)),
    Part("tree fit around the kernel", ((FastForest, "fit"),)),
    Part("held-out leaf rows", ((FastForest, "tree_leaves"),)),
    Part("out-of-fold class vectors", ((ForestFit, "out_of_fold_vectors"),)),
    Part("level scoring", ((cascade_module, "level_accuracy"), (weight_fitting_module, "level_accuracy"))),
    Part("next level's input", ((_CascadeBase, "_level_input"),)),
    Part("returning freed memory", ((cascade_base_module, "release_free_memory"),)),
    Part(
        "weight problems",
        ((FoldProblem, "problem"), (CrossFitPart, "problem"), (forest_fit_module, "pair_statistics")),
        disdf_only=True,
    ),
    Part("weight solves", ((weight_fitting_module, "solve_weights"),), disdf_only=True),
)


# --- resident memory --------------------------------------------------------------------------------


def _statm_reader() -> Callable[[], float]:
    """A function giving the process's resident memory in bytes (NaN where it cannot be read)."""
    if Path("/proc/self/statm").is_file():
        page = os.sysconf("SC_PAGE_SIZE")

        def statm() -> float:
            with open("/proc/self/statm") as handle:
                return float(int(handle.read().split()[1]) * page)

        return statm
    try:
        import psutil
    except ImportError:
        return lambda: float("nan")
    process = psutil.Process()
    return lambda: float(process.memory_info().rss)


resident_bytes = _statm_reader()


# --- the profile --------------------------------------------------------------------------------------


@dataclass
class PartTotals:
    """What a part's calls added up to."""

    calls: int = 0
    seconds: float = 0.0  # exclusive wall seconds, summed over calls and threads
    cpu_seconds: float = 0.0  # exclusive CPU seconds of the calling threads
    inclusive_seconds: float = 0.0
    rss_growth: float = 0.0  # bytes, the largest over calls
    rss_peak_growth: float = 0.0


@dataclass
class _Call:
    """A timed call running now: its thread's nested calls' seconds, the memory at its start and the most
    seen since."""

    nested_seconds: float = 0.0
    nested_cpu: float = 0.0
    rss_start: float = 0.0
    rss_max: float = 0.0


@dataclass
class FitProfile:
    """The totals of every part over the calls timed while :meth:`instrumented` is in force."""

    totals: dict[str, PartTotals] = field(default_factory=lambda: defaultdict(PartTotals))
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _local: threading.local = field(default_factory=threading.local)
    _calls: dict[int, _Call] = field(default_factory=dict)

    def _stack(self) -> list[_Call]:
        stack = getattr(self._local, "stack", None)
        if stack is None:
            stack = self._local.stack = []
        return stack

    def timer(self, part: str, function: Callable[..., Any]) -> Callable[..., Any]:
        """``function`` timed as one call of ``part``: the same arguments, the same result."""

        @functools.wraps(function, updated=())  # a numba dispatcher's __dict__ stays its own
        def timed(*args: Any, **kwargs: Any) -> Any:
            stack = self._stack()
            rss = resident_bytes()
            call = _Call(rss_start=rss, rss_max=rss)
            with self._lock:
                self._calls[id(call)] = call
            stack.append(call)
            cpu, start = time.thread_time(), time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                elapsed, cpu = time.perf_counter() - start, time.thread_time() - cpu
                stack.pop()
                if stack:  # charged to this part, not to the call it runs in
                    stack[-1].nested_seconds += elapsed
                    stack[-1].nested_cpu += cpu
                self._add(part, call, elapsed, cpu, resident_bytes())

        return timed

    def _add(self, part: str, call: _Call, elapsed: float, cpu: float, rss_end: float) -> None:
        with self._lock:
            del self._calls[id(call)]
            totals = self.totals[part]
            totals.calls += 1
            totals.seconds += elapsed - call.nested_seconds
            totals.cpu_seconds += cpu - call.nested_cpu
            totals.inclusive_seconds += elapsed
            totals.rss_growth = max(totals.rss_growth, rss_end - call.rss_start)
            peak = max(call.rss_max, rss_end)
            totals.rss_peak_growth = max(totals.rss_peak_growth, peak - call.rss_start)

    def _sample(self, stop: threading.Event) -> None:
        """Every SAMPLE_SECONDS, the resident memory into every running call's highest."""
        while not stop.wait(SAMPLE_SECONDS):
            rss = resident_bytes()
            with self._lock:
                for call in self._calls.values():
                    call.rss_max = max(call.rss_max, rss)

    @contextmanager
    def instrumented(self, parts: Sequence[Part] = PARTS) -> Iterator[FitProfile]:
        """Every part's functions replaced by timers (and memory sampled) inside the block; the library's
        own functions back in place after it, whatever happens."""
        replaced: list[tuple[Any, str, Any]] = []
        stop = threading.Event()
        sampler = threading.Thread(target=self._sample, args=(stop,), name="rss-sampler", daemon=True)
        try:
            for part in parts:
                for owner, attribute in part.targets:
                    if attribute not in vars(owner):
                        raise AttributeError(
                            f"{_owner_name(owner)} has no {attribute!r}: the fit path changed, update PARTS"
                        )
                    original = vars(owner)[attribute]
                    replaced.append((owner, attribute, original))
                    setattr(owner, attribute, self.timer(part.name, original))
            sampler.start()
            yield self
        finally:
            stop.set()
            if sampler.is_alive():
                sampler.join()
            for owner, attribute, original in reversed(replaced):
                setattr(owner, attribute, original)


# --- one fit ------------------------------------------------------------------------------------------


def cascade(method: str, n_jobs: int, n_trees: int) -> CascadeForestClassifier:
    """bench_scale's cascade (experiment=mnist_full's settings) with ``n_trees`` trees per forest
    (``gcforest_capped`` and ``disdf_capped``: its trees capped as in bench_scale)."""
    return make_method(method, n_jobs, n_trees).set_params(n_trees=n_trees)


def kernel_specializations() -> dict[str, int]:
    """Compiled specializations of every numba kernel of disdf's loaded modules, by name."""
    counts = {}
    for name, module in list(sys.modules.items()):
        if not name.startswith("disdf.") or module is None:
            continue
        for attribute, value in vars(module).items():
            if hasattr(value, "signatures") and hasattr(value, "py_func"):
                counts[f"{name}.{attribute}"] = len(value.signatures)
    return counts


@dataclass
class ProfiledFit:
    """One instrumented fit: the fitted estimator, its profile and the whole fit's measures."""

    estimator: CascadeForestClassifier
    profile: FitProfile
    wall_seconds: float
    cpu_seconds: float
    rss_before: float
    peak_memory_gib: float
    kernels_loaded: list[str]


def profiled_fit(estimator: CascadeForestClassifier, X: np.ndarray, y: np.ndarray) -> ProfiledFit:
    """``estimator.fit(X, y)`` with every part's functions timed (warm it up first)."""
    before = kernel_specializations()
    profile = FitProfile()
    with profile.instrumented():
        rss = resident_bytes()
        cpu, start = time.process_time(), time.perf_counter()
        estimator.fit(X, y)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    after = kernel_specializations()
    loaded = sorted(name.rsplit(".", 1)[1] for name, count in after.items() if count > before.get(name, 0))
    return ProfiledFit(estimator, profile, wall, cpu, rss, peak_memory_gib(), loaded)


def fit_rows(fit: ProfiledFit, key: dict[str, Any], accuracy: float) -> list[dict[str, Any]]:
    """One row per part of ``key``'s method (the module docstring's columns, without the stamp);
    ``key``: the fit's :data:`FIT_KEY` columns."""
    totals = fit.profile.totals
    parts = [part for part in PARTS if part.applies_to(key["method"])]
    readable = not math.isnan(fit.rss_before)  # resident memory unreadable here: its columns empty
    total = sum(totals[part.name].seconds for part in parts)
    rows = []
    for part in parts:
        measured = totals[part.name]
        rows.append(
            {
                **key,
                "part": part.name,
                "wraps": part.wraps,
                "calls": measured.calls,
                "seconds": measured.seconds,
                "cpu_seconds": measured.cpu_seconds,
                "inclusive_seconds": measured.inclusive_seconds,
                "share_of_parts": measured.seconds / total if total > 0 else float("nan"),
                "sum_of_parts_seconds": total,
                "wall_seconds_fit": fit.wall_seconds,
                "cpu_seconds_fit": fit.cpu_seconds,
                "rss_growth_gib": measured.rss_growth / GIB if readable else None,
                "rss_peak_growth_gib": measured.rss_peak_growth / GIB if readable else None,
                "rss_before_fit_gib": fit.rss_before / GIB,
                "peak_memory_gib": fit.peak_memory_gib,
                "n_levels": fit.estimator.n_levels_,
                "levels_grown": len(fit.estimator.level_scores_),
                "test_accuracy": accuracy,
                "kernels_loaded_in_fit": " ".join(fit.kernels_loaded),
            }
        )
    return rows


def profile_fit(
    problem: str,
    n_train: int,
    method: str,
    n_jobs: int,
    n_trees: int,
    data_dir: str | None,
    max_levels: int | None = None,
) -> list[dict[str, Any]]:
    """bench_scale's data, cascade and warm-up, then one profiled fit and its test accuracy: its rows.
    ``max_levels``: grow at most that many levels (None: the cascade's own depth), for a profile of a
    fit's first levels where the whole fit would take too long."""
    X_train, y_train, X_test, y_test = problem_data(problem, n_train, data_dir)
    estimator = cascade(method, n_jobs, n_trees)
    if max_levels is not None:
        estimator.set_params(max_levels=max_levels)
    warm_up(estimator, X_train, y_train, X_test)
    fit = profiled_fit(estimator, X_train, y_train)
    accuracy = float(np.mean(fit.estimator.predict(X_test) == y_test))
    key = {"problem": problem, "method": method, "n_train": n_train, "n_jobs": n_jobs, "n_trees": n_trees}
    key["max_levels"] = max_levels
    return fit_rows(fit, key, accuracy)


# --- the command --------------------------------------------------------------------------------------


def summary(rows: list[dict[str, Any]]) -> str:
    """The fits' rows as a short table per fit, under a line of its whole measures."""
    frame = pd.DataFrame(rows)
    columns = ["part", "calls", "seconds", "cpu_seconds", "share_of_parts", "rss_growth_gib"]
    columns += ["rss_peak_growth_gib"]
    blocks = []
    for _, fit in frame.groupby(list(FIT_KEY), sort=False, dropna=False):
        first = fit.iloc[0]
        limit = "" if pd.isna(first["max_levels"]) else f" (at most {first['max_levels']:.0f})"
        head = (
            f"{first['problem']} {first['method']} n={first['n_train']:,} n_jobs={first['n_jobs']} "
            f"T={first['n_trees']}: fit {first['wall_seconds_fit']:.2f} s wall, "
            f"{first['cpu_seconds_fit']:.2f} s CPU; parts {first['sum_of_parts_seconds']:.2f} thread-s "
            f"({fit['cpu_seconds'].sum():.2f} s CPU); {first['n_levels']} levels kept of "
            f"{first['levels_grown']} grown{limit}, "
            f"test accuracy {first['test_accuracy']:.4f}, peak {first['peak_memory_gib']:.2f} GiB"
        )
        if first["kernels_loaded_in_fit"]:
            head += f"; kernels loaded in the fit: {first['kernels_loaded_in_fit']}"
        table = fit[columns].to_string(index=False, float_format=lambda value: f"{value:.4g}")
        blocks.append(f"{head}\n{table}")
    return "\n\n".join(blocks)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--problem", default="higgs_like", choices=list(PROBLEMS))
    parser.add_argument(
        "--n-train", nargs="+", type=int, default=[300_000], help="training rows; one fit each"
    )
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=[*METHODS, *CAPPED_METHODS])
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--n-trees", type=int, default=100, help="trees per forest (T)")
    parser.add_argument(
        "--max-levels", type=int, default=None, help="grow at most this many levels (default: the cascade's)"
    )
    parser.add_argument("--data-dir", default=None, help="MNIST's folder (default: DISDF_DATA_DIR)")
    parser.add_argument("--output", type=Path, help="the CSV to write (overrides --record)")
    parser.add_argument(
        "--in-process", action="store_true", help="fit in this process, not a fresh one per fit (tests)"
    )
    add_record_flag(parser)
    args = parser.parse_args(argv)
    output = bench_output(args, "fit_profile", args.output)
    rows: list[dict[str, Any]] = []
    for n_train in args.n_train:
        for method in args.methods:
            print(f"{args.problem} n={n_train:,} {method}", flush=True)
            arguments = (args.problem, n_train, method, args.n_jobs, args.n_trees, args.data_dir)
            arguments += (args.max_levels,)
            if args.in_process:
                measured = profile_fit(*arguments)
            else:
                with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
                    measured = pool.submit(profile_fit, *arguments).result()
            # after each fit, so that an interruption keeps it; a fit measured again replaces its rows
            write_csv(output, measured, float_format="%.6g")
            rows += measured
    print(summary(rows))


if __name__ == "__main__":
    main()
