"""Run the protocol: every unit not yet recorded, in parallel, then tables and report.

    python -m experiments.run experiment=table_ecoli
    python -m experiments.run experiment=paper protocol.repetitions=10 model.lambda_=0.1
    python -m experiments.run -m experiment=smoke model.tau=0.5,1.0

Completed units are appended to ``<output_dir>/raw/<dataset>.jsonl`` as they
finish; a re-run skips them, so an interrupted run continues where it stopped.
"""

from __future__ import annotations

from experiments.interrupts import stop_from_the_first_instant

if __name__ == "__main__":
    stop_from_the_first_instant()  # before the imports below, which take seconds

import logging
import os
import platform
import time
import warnings
from datetime import datetime, timezone
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.errors import InstantiationException
from joblib import Parallel, delayed, effective_n_jobs
from omegaconf import DictConfig
from tqdm import tqdm

import disdf
from disdf.atomic_files import remove_leftovers
from disdf.datasets import DATASETS, DataFileError
from disdf.parameters import Boolean, Float, Integer, OneOf, check_parameters
from experiments import config as _config  # noqa: F401 - registers the schema
from experiments.backends import BACKENDS, sweep_backend
from experiments.composition import CONFIG_PATH, config_hash, estimator_specs, run_datasets
from experiments.durable import (
    DiskFullError,
    UnwritableFolderError,
    append_json_lines,
    check_free_space,
    check_writable,
    read_json_lines,
)
from experiments.folder_lock import FolderInUseError, exclusive_folder
from experiments.guards import check_headline_folder, check_known_keys, job_output_dir
from experiments.interrupts import (
    FORCE_EXIT_AFTER_SECONDS,
    caused_by_interrupt,
    exit_interrupted,
    stop_requested,
    stop_signals_interrupt,
)
from experiments.protocol import (
    LABEL_FAULTS,
    SPLIT_GROUPS,
    TRAIN_DRAWS,
    Unit,
    all_units,
    draw_split,
    load_pool,
    split_seed,
    test_size,
)
from experiments.provenance import code_commit, library_versions
from experiments.records import RecordStore
from experiments.tables import write_outputs
from experiments.unit import make_estimator, run_split

# Under Hydra this goes to the console and to <hydra run dir>/run.log.
log = logging.getLogger(__name__)
#: Bytes one record needs on disk, generously (a record with warnings is about 1 KB).
RECORD_BYTES = 4096
#: Room for tables, REPORT.md and runs.jsonl beside a split's records.
OUTPUT_FILES_BYTES = 1 << 20


def methods(cfg: DictConfig) -> list[str]:
    """The methods the protocol compares (protocol.methods), each with its estimator in ``methods``."""
    names = list(cfg.protocol.methods)
    unknown = [name for name in names if name not in cfg.methods]
    if not names or unknown or len(set(names)) < len(names):
        raise ValueError(
            f"protocol.methods must list distinct methods from {sorted(cfg.methods)} (configs/method/); "
            f"got {names}"
        )
    return names


#: The protocol's scalars, by the same tables as the estimators' parameters (disdf.parameters).
PROTOCOL_PARAMETERS = {
    "repetitions": Integer(1),
    "test_fraction": Float(0.0, low_open=True),
    "seed": Integer(0),
    "cap_test_size": Boolean(),
    "train_draw": OneOf(TRAIN_DRAWS),
    "split_groups": OneOf(SPLIT_GROUPS, none=True),
    "label_fault": OneOf(LABEL_FAULTS),
}


def check_protocol(cfg: DictConfig) -> None:
    """Refuse an impossible grid before any work: each message names the setting."""
    unknown = [name for name in run_datasets(cfg) if name not in DATASETS]
    if unknown or not run_datasets(cfg):
        raise ValueError(
            f"datasets must name one or more of {DATASETS}; got {list(cfg.datasets)} (unknown: {unknown})"
        )
    if cfg.runtime.backend not in BACKENDS:
        raise ValueError(f"runtime.backend must be one of {BACKENDS}; got {cfg.runtime.backend!r}")
    protocol = cfg.protocol
    for name in ("Ns", "Ts"):
        values = list(protocol[name])
        if not values or min(values) <= 0:
            raise ValueError(f"protocol.{name} must be a non-empty list of positive integers; got {values}")
    for name, values in (
        ("datasets", run_datasets(cfg)),
        ("protocol.Ns", protocol.Ns),
        ("protocol.Ts", protocol.Ts),
    ):
        repeated = sorted({value for value in values if list(values).count(value) > 1})
        if repeated:
            raise ValueError(
                f"{name} lists {repeated} more than once; got {list(values)} (each would run twice)"
            )
    check_parameters("protocol", PROTOCOL_PARAMETERS, protocol)


def check_model(cfg: DictConfig) -> None:
    """Validate the estimators' parameters (model.*, solver.*) before any work, not in the first split."""
    specs = estimator_specs(cfg, methods(cfg))
    for method in specs:
        try:
            estimator = make_estimator(Unit("check", 1, min(cfg.protocol.Ts), method, 0), specs, 0)
        except InstantiationException as error:
            raise ValueError(f"methods.{method} does not build an estimator: {error}") from error
        if not hasattr(estimator, "_validate_hyperparameters"):
            continue  # e.g. a scikit-learn pipeline: its own checks run at fit
        try:
            estimator._validate_hyperparameters()
        except (ValueError, TypeError) as error:
            raise type(error)(f"Invalid model/solver config for {method}: {error}") from error


def run_units(cfg: DictConfig, force_exit_after: float | None = None) -> dict:
    """Run every missing unit; return a summary of the run.

    ``force_exit_after``: see :func:`stop_signals_interrupt` (the command line sets it).
    """
    check_config(cfg)
    output = check_writable(cfg.runtime.output_dir, "runtime.output_dir")
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
    done = set().union(*(store.completed(d, digest) for d in datasets))
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

    # Fail on an impossible split size now, before hours of work (sizes do not depend on the seed).
    for unit in {(u.dataset, u.N): u for u in todo}.values():
        unit_split(unit, 0)
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


def protocol_split(cfg: DictConfig, pool, unit: Unit, seed: int):
    """The training and test examples of ``unit``'s split, drawn as the protocol asks."""
    protocol = cfg.protocol
    n_test = test_size(unit.N, protocol.test_fraction)
    return draw_split(pool, unit.N, n_test, seed, unit.dataset, protocol.cap_test_size, protocol.train_draw)


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


def local_workers(n_jobs: int, n_splits: int) -> int:
    """Worker processes for ``runtime.n_jobs`` on this machine: never more than its cores or the splits."""
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs == 0:
        raise ValueError(f"runtime.n_jobs must be a nonzero integer (-1: every core); got {n_jobs!r}")
    cores = os.cpu_count() or 1
    if n_jobs < -cores:
        raise ValueError(f"runtime.n_jobs={n_jobs} asks for {cores + 1 + n_jobs} cores of {cores}")
    wanted = effective_n_jobs(n_jobs)
    if wanted > cores:
        warnings.warn(f"runtime.n_jobs={n_jobs} is more than the {cores} cores: using {cores}", stacklevel=2)
    return max(1, min(wanted, cores, n_splits))


#: Errors of the command, not of the code: reported in one line, without a traceback.
USAGE_ERRORS = (ValueError, TypeError, DataFileError, UnwritableFolderError, DiskFullError, FolderInUseError)


def check_config(cfg: DictConfig) -> None:
    """The config's checks, before any work: keys, headline folder, grid, estimators, n_jobs."""
    check_known_keys(cfg)
    check_headline_folder(cfg)
    check_protocol(cfg)
    check_model(cfg)
    local_workers(cfg.runtime.n_jobs, 1)


def check_command(cfg: DictConfig) -> None:
    """Everything that can be checked before any work: the config, the output folder, the data files."""
    check_config(cfg)
    check_writable(cfg.runtime.output_dir, "runtime.output_dir")
    for name in run_datasets(cfg):
        protocol_pool(cfg, name)


def protocol_pool(cfg: DictConfig, name: str):
    """A dataset's pool as the protocol asks for it (groups, simulated faults); errors name the setting."""
    return load_pool(name, cfg.data.dir, cfg.protocol.split_groups, cfg.protocol.label_fault)


@hydra.main(version_base=None, config_path=CONFIG_PATH, config_name="config")
def main(cfg: DictConfig) -> None:
    cfg.runtime.output_dir = job_output_dir(cfg, HydraConfig.get())
    phase = "checking the command"
    try:
        with stop_signals_interrupt(FORCE_EXIT_AFTER_SECONDS):
            check_command(cfg)
            with exclusive_folder(cfg.runtime.output_dir):
                phase = "running units"
                summary = run_units(cfg, force_exit_after=FORCE_EXIT_AFTER_SECONDS)
                if summary["interrupted"] or stop_requested():
                    exit_interrupted()  # run_units said what is saved
                phase = "writing the tables and REPORT.md"
                write_outputs(cfg)
    except SystemExit:
        raise
    except BaseException as error:
        if caused_by_interrupt(error) or stop_requested():
            # Units are recorded as they finish; tables and REPORT.md are replaced atomically.
            exit_interrupted(
                f"Interrupted while {phase}: every finished unit is recorded; run the same command again."
            )
        if phase == "checking the command" and isinstance(error, USAGE_ERRORS):
            log.error(f"Nothing was run. {type(error).__name__}: {error}")
            raise SystemExit(2) from None
        # The message in the log file too; Hydra prints the traceback.
        log.error(f"The run failed; the units recorded before it are kept. {type(error).__name__}: {error}")
        raise


if __name__ == "__main__":
    main()
