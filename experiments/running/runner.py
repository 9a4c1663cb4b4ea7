"""Run a plan: every unit not yet recorded, one job per split, records appended as they finish.

Completed units are appended to ``<output_dir>/raw/<dataset>.jsonl``; a rerun
skips them, so an interrupted run continues where it stopped, and the records
are the same whatever the backend, n_jobs or interruptions.
"""

from __future__ import annotations

import logging
import os
import platform
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

from joblib import Parallel, delayed, effective_n_jobs
from tqdm import tqdm

import disdf
from disdf.utils import remove_leftovers
from experiments.running.plan import RunPlan
from experiments.running.preflight import check_before_work
from experiments.running.protocol import Pool, Unit
from experiments.running.records import RecordStore
from experiments.running.unit import run_split
from experiments.safety.backends import local_workers, sweep_backend
from experiments.safety.durable import append_json_lines, check_free_space, read_json_lines
from experiments.safety.folder_lock import exclusive_folder
from experiments.safety.guards import claim_sweep_folder
from experiments.safety.interrupts import caused_by_interrupt, stop_requested, stop_signals_interrupt
from experiments.safety.orphans import exit_with_runner
from experiments.safety.provenance import code_commit, library_versions

# Under Hydra this goes to the console and to <hydra run dir>/run.log.
log = logging.getLogger(__name__)
#: Bytes one record needs on disk, generously (a record with warnings is about 1 KB).
RECORD_BYTES = 4096
#: Room for tables, REPORT.md and runs.jsonl beside a split's records.
OUTPUT_FILES_BYTES = 1 << 20


def run_units(
    plan: RunPlan,
    force_exit_after: float | None = None,
    pools: dict[str, Pool] | None = None,
    then: Callable[[RunPlan], object] | None = None,
) -> dict:
    """Run every missing unit of ``plan``; return a summary of the run (its runs.jsonl line).

    Nothing is written before :func:`~experiments.running.preflight.check_before_work` passes (here,
    unless the caller ran it and passes its ``pools``); a multirun job then claims its folder.
    ``then(plan)``, if given, runs under the folder's lock once every unit is recorded (the command
    line writes the tables and REPORT.md there). ``force_exit_after``: see
    :func:`~experiments.safety.interrupts.stop_signals_interrupt`.
    """
    pools = check_before_work(plan) if pools is None else pools
    output = plan.runtime.output_dir
    claim_sweep_folder(output, plan.runtime.sweep_job)
    with exclusive_folder(output):
        remove_leftovers(output)
        store = RecordStore(output / "raw")
        todo, n_units = missing_units(plan, store)
        started, start_commit = time.time(), code_commit()
        completed, interrupted, workers = run_missing(plan, store, pools, todo, force_exit_after)
        summary = run_summary(plan, started, completed, n_units, interrupted, workers, start_commit)
        if completed:
            append_json_lines(output / "runs.jsonl", [summary])
        if then is not None and not (interrupted or stop_requested()):
            then(plan)
    return summary


def missing_units(plan: RunPlan, store: RecordStore) -> tuple[dict[tuple, list[Unit]], int]:
    """The units not yet recorded, by split (dataset, N, repetition), and the number of units in all."""
    units = plan.protocol.units()
    for dataset in plan.datasets:
        store.repair(dataset)
    done = set().union(*(store.completed(d, plan.config_hash, plan.grid) for d in plan.datasets))
    log_lost_runs(plan, recorded=len(done))
    todo = [unit for unit in units if unit.key not in done]
    log.info(
        f"{plan.experiment_name}: {len(units)} units, {len(done & {u.key for u in units})} already "
        f"recorded, {len(todo)} to run (config {plan.config_hash}, output {plan.runtime.output_dir})"
    )
    # One job per split: its units (every T and method) share level 1's trees.
    splits: dict[tuple, list[Unit]] = {}
    for unit in todo:
        splits.setdefault((unit.dataset, unit.N, unit.repetition), []).append(unit)
    return splits, len(units)


def run_missing(
    plan: RunPlan,
    store: RecordStore,
    pools: dict[str, Pool],
    splits: dict[tuple, list[Unit]],
    force_exit_after: float | None,
) -> tuple[int, bool, int]:
    """Run ``splits``, appending their records in submission order; return (units completed,
    interrupted, workers)."""
    runtime = plan.runtime
    workers = local_workers(runtime.n_jobs, len(splits)) if runtime.backend == "loky" else 0
    if not splits:
        return 0, False, workers
    check_free_space(
        runtime.output_dir,
        max(map(len, splits.values())) * RECORD_BYTES + OUTPUT_FILES_BYTES,
        "runtime.output_dir",
    )
    context = {"config_hash": plan.config_hash, "version": disdf.__version__}

    runner_pid = os.getpid()

    def job(units: list[Unit]):
        seed = plan.protocol.split_seed(units[0])
        split = plan.protocol.split(pools[units[0].dataset], units[0], seed)
        return delayed(run_split_in_worker)(
            runner_pid,
            units,
            split,
            dict(plan.specs),
            seed,
            context,
            runtime.share_first_level,
            plan.protocol.record_confusion,
        )

    completed = 0
    try:
        with (
            sweep_backend(runtime, workers) as n_jobs,
            stop_signals_interrupt(force_exit_after),
            tqdm(
                total=sum(map(len, splits.values())),
                disable=not runtime.progress,
                unit="unit",
                smoothing=0.05,
            ) as bar,
        ):
            workers = effective_n_jobs(n_jobs)
            # In submission order, whatever the backend and n_jobs: the raw files are the same for
            # all of them and, after a resume, the same as those of an uninterrupted run.
            for records in Parallel(n_jobs=n_jobs, return_as="generator")(map(job, splits.values())):
                store.append_many(records)
                say_solver_failures(records)
                completed += len(records)
                bar.update(len(records))
                if stop_requested():  # a signal whose KeyboardInterrupt numba swallowed
                    raise KeyboardInterrupt("a stop was requested")
    except BaseException as error:  # an interrupt inside compiled code arrives wrapped (SystemError)
        if not (caused_by_interrupt(error) or stop_requested()):
            raise
        log.warning(f"Interrupted: {completed} units of this run are saved; run the same command to resume.")
        return completed, True, workers
    return completed, False, workers


def run_split_in_worker(runner_pid: int, *args):
    """:func:`~experiments.running.unit.run_split` in a worker that ends when the runner does."""
    exit_with_runner(runner_pid)
    return run_split(*args)


def say_solver_failures(records: list[dict]) -> None:
    """On the console, not only in the records: a split whose weight solves failed and fell back."""
    failed = [r for r in records if r.get("solver_fallbacks")]
    if failed:
        first = failed[0]
        why = "; ".join(w for w in first.get("warnings", []) if "solver_fallback" in w) or "see the records"
        log.warning(
            f"{first['dataset']}, N={first['N']}, repetition {first['repetition']}: weight solves failed "
            f"and were solved by the fallback in {len(failed)} unit(s) "
            f"({sum(r['solver_fallbacks'] for r in failed)} solves): {why}"
        )


def run_summary(
    plan: RunPlan,
    started: float,
    completed: int,
    units_total: int,
    interrupted: bool,
    workers: int,
    start_commit: str,
) -> dict:
    """The line a run appends to runs.jsonl: what ran, how long, where, and from which code:
    ``start_commit`` (taken before the first unit, "+" when disdf/ or experiments/ had uncommitted
    changes) and ``start_dirty``; ``end_commit`` only when the checkout moved during the run (the code
    in memory stays the start's, but worker processes may import the new one)."""
    end_commit = code_commit()
    return {
        "experiment": plan.experiment_name,
        "config_hash": plan.config_hash,
        "started": datetime.fromtimestamp(started, timezone.utc).isoformat(timespec="seconds"),
        "wall_seconds": round(time.time() - started, 1),
        "units_run": completed,
        "units_total": units_total,
        "interrupted": interrupted,
        "backend": plan.runtime.backend,
        "engine": plan.model["engine"],
        "n_jobs": workers,
        "machine": f"{platform.node()} {platform.machine()} {platform.processor()}".strip(),
        "version": disdf.__version__,
        "start_commit": start_commit,
        "start_dirty": start_commit.endswith("+"),
        **({"end_commit": end_commit} if end_commit != start_commit else {}),
        "libraries": library_versions(),
    }


def log_lost_runs(plan: RunPlan, recorded: int) -> None:
    """Log in runs.jsonl the units of runs that logged nothing (killed outright, or the write failed).

    ``recorded``: the units of this config on disk. Their wall time is unknown and logged as null;
    REPORT.md says how many units it misses.
    """
    runs_path = Path(plan.runtime.output_dir) / "runs.jsonl"
    logged = sum(
        r.get("units_run", 0) for r in read_json_lines(runs_path) if r.get("config_hash") == plan.config_hash
    )
    if recorded > logged:
        entry = {
            "experiment": plan.experiment_name,
            "config_hash": plan.config_hash,
            "units_run": recorded - logged,
            "wall_seconds": None,
            "lost_summary": True,
            "note": "units recorded by runs that logged no summary (killed, or runs.jsonl not writable)",
            "version": disdf.__version__,
        }
        append_json_lines(runs_path, [entry])
        log.warning(f"{runs_path}: {recorded - logged} recorded units had no run logged; logged them now")
