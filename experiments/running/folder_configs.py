"""Which configs made a results folder: ``configs.json`` beside its records.

A run writes, before its first unit, its config hash with the overrides that compose it (those of
the command line but those that change no record: ``runtime.*``, ``hydra.*``, ``data.dir``), so that
``make tables RESULTS=<folder>`` re-renders that config's tables without the user repeating them
(:func:`report_overrides`). A folder of several configs is refused in one line listing them and the
override that picks one (``CONFIG=<hash>``); overrides given that compose a config the folder does
not hold are refused too, so its tables are never replaced by another config's.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from disdf.utils import write_text_atomically

#: The file of a results folder that names its configs.
CONFIGS_FILE = "configs.json"
#: Overrides that change no record (where it runs, where the checksummed data lie): not a folder's config.
RUNTIME_KEYS = ("runtime.", "hydra.", "data.dir")


def _key(override: str) -> str:
    return override.split("=", 1)[0].lstrip("+~")


def result_overrides(overrides: Iterable[str]) -> list[str]:
    """The overrides that make the config (the runtime's set aside), in their order."""
    return [o for o in overrides if not _key(o).startswith(RUNTIME_KEYS)]


def folder_configs(folder: str | Path) -> dict[str, dict]:
    """The configs a folder says made it: config hash -> {"experiment", "overrides"} (empty: none said)."""
    path = Path(folder) / CONFIGS_FILE
    if not path.exists():
        return {}
    try:
        configs = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path} is not readable JSON ({error}): restore it from git") from None
    if not isinstance(configs, dict):
        raise ValueError(f"{path} is not a table of configs: restore it from git")
    return configs


def record_config(folder: str | Path, config_hash: str, experiment: str, overrides: Iterable[str]) -> None:
    """Say in ``folder`` that the config ``config_hash`` is composed by these overrides."""
    configs = folder_configs(folder)
    configs[config_hash] = {"experiment": experiment, "overrides": result_overrides(overrides)}
    Path(folder).mkdir(parents=True, exist_ok=True)
    write_text_atomically(Path(folder) / CONFIGS_FILE, json.dumps(configs, indent=2, sort_keys=True) + "\n")


def _listed(configs: dict[str, dict]) -> str:
    return "; ".join(
        f"{h} ({' '.join(c['overrides']) or 'no overrides'})" for h, c in sorted(configs.items())
    )


def report_overrides(folder: str | Path, given: Sequence[str], config: str | None = None) -> list[str]:
    """The overrides that re-render ``folder``: its one config's (or ``config``'s), the ``given`` ones
    replacing theirs key by key. A folder that says no config takes ``given`` as they are."""
    configs = folder_configs(folder)
    if not configs:
        if config is not None:
            raise ValueError(
                f"{folder} says no config ({CONFIGS_FILE} is missing): CONFIG={config} picks nothing"
            )
        return list(given)
    if config is None and len(configs) > 1:
        raise ValueError(
            f"{folder} holds {len(configs)} configs: {_listed(configs)}; pick one with CONFIG=<hash> "
            "(python -m experiments.reporting.report --config <hash>)"
        )
    chosen = config if config is not None else next(iter(configs))
    if chosen not in configs:
        raise ValueError(f"{folder} holds no config {chosen}; it holds {_listed(configs)}")
    given_keys = {_key(o) for o in given}
    return [o for o in configs[chosen]["overrides"] if _key(o) not in given_keys] + list(given)


def report_command(given: Sequence[str], config: str | None = None) -> list[str]:
    """The overrides a report composes: ``given`` as they are when they name an experiment (and no
    ``config``), else the config of their folder (``runtime.output_dir``, default results/) with them;
    experiment=paper where neither names one (a folder that says no config: the headline's default)."""
    from experiments.running.composition import compose_config

    if config is None and any(_key(o) == "experiment" for o in given):
        return list(given)
    folders = [o.split("=", 1)[1].strip("'\"") for o in given if _key(o) == "runtime.output_dir"]
    folder = folders[-1] if folders else str(compose_config(*given).runtime.output_dir)
    overrides = report_overrides(folder, given, config)
    return overrides if any(_key(o) == "experiment" for o in overrides) else ["experiment=paper", *overrides]


def check_folder_holds(folder: str | Path, config_hash: str) -> None:
    """Refuse to render into a folder that says which configs made it a config it does not hold."""
    configs = folder_configs(folder)
    if configs and config_hash not in configs:
        raise ValueError(
            f"these overrides compose config {config_hash}, which {folder} does not hold (it holds "
            f"{_listed(configs)}): give no experiment to re-render its own, or its overrides"
        )
