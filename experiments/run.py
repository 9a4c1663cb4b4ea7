"""The command line: plan the run, run its missing units, then write its tables and REPORT.md.

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

import errno
import logging
import os
from typing import Any

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig

from disdf import DataFileError, InsufficientMemoryError
from experiments.reporting.report import write_protocol
from experiments.running import config as _config  # noqa: F401 - registers the schema
from experiments.running.command_line import DEBUG_ENV, refuse_bad_command_line
from experiments.running.composition import CONFIG_PATH
from experiments.running.folder_configs import record_config
from experiments.running.plan import RunPlan, plan_run
from experiments.running.preflight import check_before_work
from experiments.running.runner import run_units
from experiments.safety.durable import DiskFullError, UnreadableFileError, UnwritableFolderError
from experiments.safety.folder_lock import FolderInUseError
from experiments.safety.guards import sweep_job
from experiments.safety.interrupts import (
    FORCE_EXIT_AFTER_SECONDS,
    caused_by_interrupt,
    exit_interrupted,
    stop_requested,
    stop_signals_interrupt,
)

# Under Hydra this goes to the console and to <hydra run dir>/run.log.
log = logging.getLogger(__name__)

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
    run_command(cfg, HydraConfig.get())


def run_command(cfg: DictConfig, hydra_cfg: Any) -> None:
    """Plan ``cfg`` (a multirun job in its own folder), run its missing units, write its report."""
    phase = "checking the command"

    def report(plan: RunPlan) -> None:
        nonlocal phase
        phase = "writing the tables and REPORT.md"
        write_protocol(plan)

    try:
        with stop_signals_interrupt(FORCE_EXIT_AFTER_SECONDS):
            # The config, decided once: what follows reads the plan.
            plan = plan_run(cfg, sweep_job(hydra_cfg))
            pools = check_before_work(plan)
            # which config the folder's records are of, before the first: make tables re-renders it
            record_config(
                plan.runtime.output_dir, plan.config_hash, plan.experiment_name, hydra_cfg.overrides.task
            )
            phase = "running units"
            summary = run_units(plan, FORCE_EXIT_AFTER_SECONDS, pools, then=report)
            if summary["interrupted"] or stop_requested():
                exit_interrupted()  # run_units said what is saved
    except SystemExit:
        raise
    except BaseException as error:
        if caused_by_interrupt(error) or stop_requested():
            # Units are recorded as they finish; tables and REPORT.md are replaced atomically.
            exit_interrupted(
                f"Interrupted while {phase}: every finished unit is recorded; run the same command again."
            )
        # A busy folder is found before any unit runs, whatever the phase: a refusal, not a failure.
        if isinstance(error, FolderInUseError) or (
            phase == "checking the command" and isinstance(error, USAGE_ERRORS)
        ):
            if os.environ.get(DEBUG_ENV) == "1":
                raise
            log.error(f"Nothing was run. {type(error).__name__}: {error}")
            raise SystemExit(2) from None
        if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
            # The disk filled while writing: the file is named, what was there is intact.
            log.error(
                f"The run stopped while {phase}: {error}. Every finished unit is recorded and the "
                "earlier outputs are intact; free space and run the same command again."
            )
            raise SystemExit(1) from None
        # The message in the log file too; Hydra prints the traceback.
        log.error(f"The run failed; the units recorded before it are kept. {type(error).__name__}: {error}")
        raise


if __name__ == "__main__":
    refuse_bad_command_line()
    main()
