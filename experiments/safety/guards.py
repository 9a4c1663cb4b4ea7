"""A user's command means what it says: checks made before any work.

* ``results/`` itself, the headline, is written only by ``experiment=paper`` as
  committed (its result config and its grid): any other run that points there
  is refused, so no example command can overwrite the headline's tables;
* in a multirun sweep every job gets its own output folder: ``<output_dir>/<its
  overrides>``, also under a ``runtime.output_dir`` the command chose, unless
  that folder interpolates a value (``results/tau_${model.tau}``); then two jobs
  that resolve to one folder are refused before the second one's work
  (:func:`claim_sweep_folder`), so no job's tables replace another's.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from hydra.types import RunMode
from omegaconf import DictConfig

from experiments.running.composition import compose_config, config_hash
from experiments.running.config import ROOT

HEADLINE_DIR = ROOT / "results"
HEADLINE_EXPERIMENT = "paper"
#: Override keys that say where or how a job runs, not what it computes: left out of a job's folder name.
NOT_IN_FOLDER_NAME = ("experiment", "runtime", "data", "hydra")


def headline_key(cfg: DictConfig) -> dict:
    """What must match experiment=paper for a run to write the headline: result config and grid."""
    return {
        "config hash (model, solver, test_fraction, seed)": config_hash(cfg),
        "datasets": list(cfg.datasets),
        "protocol.Ns": list(cfg.protocol.Ns),
        "protocol.Ts": list(cfg.protocol.Ts),
        "protocol.repetitions": int(cfg.protocol.repetitions),
    }


def writes_headline(output_dir: str | Path) -> bool:
    return Path(output_dir).resolve() == HEADLINE_DIR.resolve()


def check_headline_folder(cfg: DictConfig) -> None:
    """Only the unchanged headline config may write to results/ itself."""
    if not writes_headline(cfg.runtime.output_dir):
        return
    expected, found = headline_key(compose_config(f"experiment={HEADLINE_EXPERIMENT}")), headline_key(cfg)
    differing = [name for name in expected if expected[name] != found[name]]
    if differing:
        raise ValueError(
            f"runtime.output_dir={cfg.runtime.output_dir} is the headline folder, written only by "
            f"`make reproduce` (experiment={HEADLINE_EXPERIMENT} as committed); this run differs in "
            f"{', '.join(differing)}. Choose another folder, e.g. runtime.output_dir=results/"
            f"{cfg.experiment_name}_{found[next(iter(found))]}"
        )


def job_output_dir(cfg: DictConfig, hydra_cfg: DictConfig) -> str:
    """A multirun job's own folder: ``<output_dir>/<its overrides>``; a single run's is unchanged.

    Left as it is when the command set ``runtime.output_dir`` to a value that
    interpolates others (e.g. the swept ones, as the README shows).
    """
    output_dir = str(cfg.runtime.output_dir)
    if hydra_cfg.mode != RunMode.MULTIRUN:
        return output_dir
    overrides = [item.lstrip("+~") for item in hydra_cfg.overrides.task]
    chosen = [item.split("=", 1)[1] for item in overrides if item.startswith("runtime.output_dir=")]
    if chosen and ("${" in chosen[-1] or "$\\{" in chosen[-1]):  # Hydra escapes it in a job
        return output_dir
    return str(Path(output_dir) / (job_folder(overrides) or f"job{hydra_cfg.job.num}"))


def job_folder(overrides: Iterable[str]) -> str:
    """The folder name of a multirun job with these overrides ("" if none says what it computes):
    e.g. ``audit=refit`` for ``experiment=audit audit=refit``."""
    overrides = [item.lstrip("+~") for item in overrides]
    named = sorted(item for item in overrides if item.split("=")[0].split(".")[0] not in NOT_IN_FOLDER_NAME)
    return ",".join(named).replace("/", "_")


SWEEP_CLAIM = ".sweep_job.json"


def claim_sweep_folder(output_dir: str | Path, hydra_cfg: DictConfig) -> None:
    """Refuse a multirun job whose folder an earlier job of the same sweep wrote (one folder per job)."""
    if hydra_cfg.mode != RunMode.MULTIRUN:
        return
    claim = Path(output_dir) / SWEEP_CLAIM
    mine = {"sweep": str(hydra_cfg.sweep.dir), "overrides": sorted(hydra_cfg.overrides.task)}
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
