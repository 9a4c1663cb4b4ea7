"""A user's command means what it says: checks made before any work.

* ``results/`` itself, the headline, is written only by ``experiment=paper`` as
  committed (its result config and its grid): any other run that points there
  is refused (:func:`check_headline_folder`), so no example command can overwrite
  the headline's tables;
* in a multirun sweep every job gets its own output folder: ``<output_dir>/<its
  overrides>``, also under a ``runtime.output_dir`` the command chose, unless
  that folder interpolates a value (``results/tau_${model.tau}``); then two jobs
  that resolve to one folder are refused before the second one's work
  (:func:`claim_sweep_folder`), so no job's tables replace another's.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from hydra.types import RunMode
from omegaconf import DictConfig

from experiments.paths import ROOT

HEADLINE_DIR = ROOT / "results"
#: Override keys that say where or how a job runs, not what it computes: left out of a job's folder name.
NOT_IN_FOLDER_NAME = ("experiment", "runtime", "data", "hydra")


def writes_headline(output_dir: str | Path) -> bool:
    return Path(output_dir).resolve() == HEADLINE_DIR.resolve()


def check_headline_folder(output_dir: str | Path, found: dict, expected: dict, experiment_name: str) -> None:
    """A run that writes to results/ itself (:func:`writes_headline`, which the caller asks first, as it
    composes ``expected`` only then) must have the committed headline's result config and grid."""
    differing = [name for name in expected if expected[name] != found[name]]
    if differing:
        raise ValueError(
            f"runtime.output_dir={output_dir} is the headline folder, written only by "
            f"`make reproduce` (experiment=paper as committed); this run differs in "
            f"{', '.join(differing)}. Choose another folder, e.g. runtime.output_dir=results/"
            f"{experiment_name}_{found[next(iter(found))]}"
        )


@dataclass(frozen=True)
class SweepJob:
    """A multirun job as Hydra launched it: its sweep's folder, its overrides and its number."""

    sweep: str
    overrides: tuple[str, ...]
    number: int


def sweep_job(hydra_cfg: DictConfig) -> SweepJob | None:
    """The job of a multirun sweep (None for a single run)."""
    if hydra_cfg.mode != RunMode.MULTIRUN:
        return None
    return SweepJob(str(hydra_cfg.sweep.dir), tuple(hydra_cfg.overrides.task), int(hydra_cfg.job.num))


def job_output_dir(output_dir: str, job: SweepJob | None) -> str:
    """A multirun job's own folder: ``<output_dir>/<its overrides>``; a single run's is unchanged.

    Left as it is when the command set ``runtime.output_dir`` to a value that
    interpolates others (e.g. the swept ones, as the README shows).
    """
    if job is None:
        return output_dir
    overrides = [item.lstrip("+~") for item in job.overrides]
    chosen = [item.split("=", 1)[1] for item in overrides if item.startswith("runtime.output_dir=")]
    if chosen and ("${" in chosen[-1] or "$\\{" in chosen[-1]):  # Hydra escapes it in a job
        return output_dir
    return str(Path(output_dir) / (job_folder(overrides) or f"job{job.number}"))


def job_folder(overrides: Iterable[str]) -> str:
    """The folder name of a multirun job with these overrides ("" if none says what it computes):
    e.g. ``audit=refit`` for ``experiment=audit audit=refit``."""
    overrides = [item.lstrip("+~") for item in overrides]
    named = sorted(item for item in overrides if item.split("=")[0].split(".")[0] not in NOT_IN_FOLDER_NAME)
    return ",".join(named).replace("/", "_")


SWEEP_CLAIM = ".sweep_job.json"


def claim_sweep_folder(output_dir: str | Path, job: SweepJob | None) -> None:
    """Refuse a multirun job whose folder an earlier job of the same sweep wrote (one folder per job)."""
    if job is None:
        return
    claim = Path(output_dir) / SWEEP_CLAIM
    mine = {"sweep": job.sweep, "overrides": sorted(job.overrides)}
    try:
        theirs = json.loads(claim.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        theirs = None
    if isinstance(theirs, dict) and theirs.get("sweep") == mine["sweep"] and theirs != mine:
        raise ValueError(
            f"runtime.output_dir={output_dir} is the folder of this sweep's job "
            f"{theirs.get('overrides')} already: its tables and REPORT.md would be replaced. Give each "
            "job its own folder, e.g. runtime.output_dir=results/sweep/tau_${model.tau} with every swept "
            "key in it, or leave runtime.output_dir unset"
        )
    claim.write_text(json.dumps(mine) + "\n", encoding="utf-8")
