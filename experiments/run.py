"""Run the protocol: every unit not yet recorded, in parallel, then tables and report.

    python -m experiments.run experiment=table_ecoli
    python -m experiments.run experiment=paper protocol.repetitions=10 model.lambda_=0.1
    python -m experiments.run -m experiment=smoke model.tau=0.5,1.0

Completed units are appended to ``<output_dir>/raw/<dataset>.jsonl`` as they
finish; a re-run skips them, so an interrupted run continues where it stopped.
"""

from __future__ import annotations

from experiments.safety.interrupts import stop_from_the_first_instant

if __name__ == "__main__":
    stop_from_the_first_instant()  # before the imports below, which take seconds

import logging
import os
import platform
import time
from datetime import datetime, timezone
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from joblib import Parallel, delayed, effective_n_jobs
from omegaconf import DictConfig
from tqdm import tqdm

import disdf
from disdf.atomic_files import remove_leftovers
from disdf.datasets import DataFileError
from disdf.fit_memory import InsufficientMemoryError
from experiments.reporting.report import write_protocol
from experiments.running import config as _config  # noqa: F401 - registers the schema
from experiments.running.command_line import DEBUG_ENV, refuse_bad_command_line
from experiments.running.composition import (
    CONFIG_PATH,
    config_hash,
    estimator_specs,
    methods,
    record_grid,
    run_datasets,
)
from experiments.running.preflight import (  # noqa: F401 - check_model and check_protocol: the checks' home
    check_command,
    check_model,
    check_protocol,
    local_workers,
    protocol_pool,
    protocol_split,
)
from experiments.running.protocol import all_units, split_seed
from experiments.running.records import RecordStore
from experiments.running.unit import run_split
from experiments.safety.backends import sweep_backend
from experiments.safety.durable import (
    DiskFullError,
    UnreadableFileError,
    UnwritableFolderError,
    append_json_lines,
    check_free_space,
    read_json_lines,
)
from experiments.safety.folder_lock import FolderInUseError, exclusive_folder
from experiments.safety.guards import claim_sweep_folder, job_output_dir
from experiments.safety.interrupts import (
    FORCE_EXIT_AFTER_SECONDS,
    caused_by_interrupt,
    exit_interrupted,
    stop_requested,
    stop_signals_interrupt,
)
from experiments.safety.provenance import code_commit, library_versions

# Under Hydra this goes to the console and to <hydra run dir>/run.log.
log = logging.getLogger(__name__)
#: Bytes one record needs on disk, generously (a record with warnings is about 1 KB).
RECORD_BYTES = 4096
#: Room for tables, REPORT.md and runs.jsonl beside a split's records.
OUTPUT_FILES_BYTES = 1 << 20


def run_units(cfg: DictConfig, force_exit_after: float | None = None) -> dict:
    """Run every missing unit; return a summary of the run.

    ``force_exit_after``: see :func:`stop_signals_interrupt` (the command line sets it).
    """
    check_command(cfg)
    output = Path(cfg.runtime.output_dir)
    with exclusive_folder(output):
        return _run_units_holding_the_folder(cfg, output, force_exit_after)


def _run_units_holding_the_folder(cfg: DictConfig, output: Path, force_exit_after: float | None) -> dict:
    remove_leftovers(output)
    store = RecordStore(output / "raw")
    digest = config_hash(cfg)
    datasets = run_datasets(cfg)
    units = all_units(
        datasets, list(cfg.protocol.Ns), list(cfg.protocol.Ts), methods(cfg), cfg.protocol.repetitions
    )
    for dataset in datasets:
        store.repair(dataset)
    grid = record_grid(cfg)
    done = set().union(*(store.completed(d, digest, grid) for d in datasets))
    log_lost_runs(output / "runs.jsonl", cfg, digest, recorded=len(done))
    todo = [unit for unit in units if unit.key not in done]
    log.info(
        f"{cfg.experiment_name}: {len(units)} units, {len(done & {u.key for u in units})} already recorded, "
        f"{len(todo)} to run (config {digest}, output {output})"
    )

    pools = {name: protocol_pool(cfg, name) for name in sorted({u.dataset for u in todo})}
    specs = estimator_specs(cfg, methods(cfg))
    context = {"config_hash": digest, "version": disdf.__version__}

    def unit_split(unit, seed):
        return protocol_split(cfg, pools[unit.dataset], unit, seed)

    share = cfg.runtime.share_first_level

    def job(units):
        first = units[0]
        seed = split_seed(first.dataset, first.N, first.repetition, cfg.protocol.seed)
        return delayed(run_split)(units, unit_split(first, seed), specs, seed, context, share)

    # One job per split: its units (every T and method) share level 1's trees.
    splits: dict[tuple, list] = {}
    for unit in todo:
        splits.setdefault((unit.dataset, unit.N, unit.repetition), []).append(unit)

    if todo:
        largest_split = max(map(len, splits.values()))
        check_free_space(output, largest_split * RECORD_BYTES + OUTPUT_FILES_BYTES, "runtime.output_dir")

    started = time.time()
    completed = 0
    interrupted = False
    workers = local_workers(cfg.runtime.n_jobs, len(splits)) if cfg.runtime.backend == "loky" else 0
    if todo:
        try:
            with (
                sweep_backend(cfg.runtime, workers) as n_jobs,
                stop_signals_interrupt(force_exit_after),
                tqdm(total=len(todo), disable=not cfg.runtime.progress, unit="unit", smoothing=0.05) as bar,
            ):
                workers = effective_n_jobs(n_jobs)
                # In submission order, whatever the backend and n_jobs: the raw files are the same for
                # all of them and, after a resume, the same as those of an uninterrupted run.
                results = Parallel(n_jobs=n_jobs, return_as="generator")(
                    job(units) for units in splits.values()
                )
                for records in results:
                    store.append_many(records)
                    say_solver_failures(records)
                    completed += len(records)
                    bar.update(len(records))
                    if stop_requested():  # a signal whose KeyboardInterrupt numba swallowed
                        raise KeyboardInterrupt("a stop was requested")
        except BaseException as error:  # an interrupt inside compiled code arrives wrapped (SystemError)
            if not (caused_by_interrupt(error) or stop_requested()):
                raise
            interrupted = True
            log.warning(
                f"Interrupted: {completed} units of this run are saved; run the same command to resume."
            )
    summary = run_summary(cfg, digest, started, completed, len(units), interrupted, workers)
    if completed:
        append_json_lines(output / "runs.jsonl", [summary])
    return summary


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


def run_summary(cfg, digest, started, completed, units_total, interrupted, workers) -> dict:
    """The line a run appends to runs.jsonl: what ran, how long, where."""
    return {
        "experiment": cfg.experiment_name,
        "config_hash": digest,
        "started": datetime.fromtimestamp(started, timezone.utc).isoformat(timespec="seconds"),
        "wall_seconds": round(time.time() - started, 1),
        "units_run": completed,
        "units_total": units_total,
        "interrupted": interrupted,
        "backend": cfg.runtime.backend,
        "engine": cfg.model.engine,
        "n_jobs": workers,
        "machine": f"{platform.node()} {platform.machine()} {platform.processor()}".strip(),
        "version": disdf.__version__,
        "commit": code_commit(),
        "libraries": library_versions(),
    }


def log_lost_runs(runs_path: Path, cfg: DictConfig, digest: str, recorded: int) -> None:
    """Log in runs.jsonl the units of runs that logged nothing (killed outright, or the write failed).

    ``recorded``: the units of this config on disk. Their wall time is unknown and logged as null;
    REPORT.md says how many units it misses.
    """
    logged = sum(r.get("units_run", 0) for r in read_json_lines(runs_path) if r.get("config_hash") == digest)
    if recorded > logged:
        entry = {
            "experiment": cfg.experiment_name,
            "config_hash": digest,
            "units_run": recorded - logged,
            "wall_seconds": None,
            "lost_summary": True,
            "note": "units recorded by runs that logged no summary (killed, or runs.jsonl not writable)",
            "version": disdf.__version__,
        }
        append_json_lines(runs_path, [entry])
        log.warning(f"{runs_path}: {recorded - logged} recorded units had no run logged; logged them now")


#: Errors of the command, not of the code: reported in one line, without a traceback.
USAGE_ERRORS = (
    ValueError,
    TypeError,
    DataFileError,
    UnwritableFolderError,
    UnreadableFileError,
    DiskFullError,
    FolderInUseError,
    InsufficientMemoryError,
)


@hydra.main(version_base=None, config_path=CONFIG_PATH, config_name="config")
def main(cfg: DictConfig) -> None:
    phase = "checking the command"
    try:
        with stop_signals_interrupt(FORCE_EXIT_AFTER_SECONDS):
            cfg.runtime.output_dir = job_output_dir(cfg, HydraConfig.get())
            check_command(cfg)
            claim_sweep_folder(cfg, HydraConfig.get())
            with exclusive_folder(cfg.runtime.output_dir):
                phase = "running units"
                summary = run_units(cfg, force_exit_after=FORCE_EXIT_AFTER_SECONDS)
                if summary["interrupted"] or stop_requested():
                    exit_interrupted()  # run_units said what is saved
                phase = "writing the tables and REPORT.md"
                write_protocol(cfg)
    except SystemExit:
        raise
    except BaseException as error:
        if caused_by_interrupt(error) or stop_requested():
            # Units are recorded as they finish; tables and REPORT.md are replaced atomically.
            exit_interrupted(
                f"Interrupted while {phase}: every finished unit is recorded; run the same command again."
            )
        if phase == "checking the command" and isinstance(error, USAGE_ERRORS):
            if os.environ.get(DEBUG_ENV) == "1":
                raise
            log.error(f"Nothing was run. {type(error).__name__}: {error}")
            raise SystemExit(2) from None
        # The message in the log file too; Hydra prints the traceback.
        log.error(f"The run failed; the units recorded before it are kept. {type(error).__name__}: {error}")
        raise


if __name__ == "__main__":
    refuse_bad_command_line()
    main()
