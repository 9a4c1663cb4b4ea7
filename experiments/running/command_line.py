"""A command line Hydra would refuse, refused in one line before Hydra starts.

Hydra reports a bad override (``model.lamda=1``) in several lines with a hint
about ``+`` and exits 1; a SLURM launcher without SLURM fails with a traceback
from inside the launcher. The runner's commands promise one line,
``Nothing was run. <reason>``, and exit status 2 for every refused command:
:func:`refuse_bad_command_line` composes the config the command asks for (the
first value of each swept key) and checks what the launcher needs, before
Hydra runs anything. ``DISDF_DEBUG=1`` shows the traceback instead.
"""

from __future__ import annotations

import difflib
import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import cast

from omegaconf import DictConfig, OmegaConf

#: Set to 1 for the traceback of a refused command instead of its one line.
DEBUG_ENV = "DISDF_DEBUG"
#: Hydra's flags that take a value (the value is not an override).
FLAGS_WITH_VALUE = {"--config-path", "-cp", "--config-name", "-cn", "--config-dir", "-cd", "--package", "-p"}
#: What each SLURM launcher needs on PATH on the machine that submits.
LAUNCHER_COMMANDS = {"slurm": ("sbatch", "srun")}


class BadCommandLineError(ValueError):
    """A command line that cannot compose a config or launch its jobs."""


def refuse(reason: str) -> None:
    """Print ``Nothing was run. <reason>`` on stderr, on one line, and exit 2."""
    print(f"Nothing was run. {' '.join(reason.split())}", file=sys.stderr)
    raise SystemExit(2)


def overrides_of(argv: Sequence[str]) -> list[str]:
    """The overrides of a command line, without Hydra's flags and their values."""
    overrides, skip = [], False
    for argument in argv:
        if skip:
            skip = False
        elif argument in FLAGS_WITH_VALUE:
            skip = True
        elif not argument.startswith("-"):
            overrides.append(argument)
    return overrides


def first_job_overrides(overrides: Sequence[str]) -> list[str]:
    """The overrides of a sweep's first job (each swept key at its first value); Hydra's own left out."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    try:
        parsed = OverridesParser.create().parse_overrides(list(overrides))
    except Exception as error:  # Hydra's grammar errors carry the offending text
        unquoted = [item for item in overrides if not item.isascii() and "'" not in item and '"' not in item]
        if unquoted:
            key, _, value = unquoted[0].partition("=")
            raise BadCommandLineError(
                f"cannot parse the override {unquoted[0]}: Hydra's override grammar takes characters "
                f"beyond ASCII only inside quotes; write {key}='{value}' (in a shell: \"{key}='{value}'\")"
            ) from error
        raise BadCommandLineError(f"cannot parse the overrides: {error}") from error
    first = []
    for override in parsed:
        if override.key_or_group.startswith("hydra"):
            continue
        if override.is_sweep_override():
            first.append(f"{override.get_key_element()}={next(override.sweep_string_iterator())}")
        else:
            first.append(cast(str, override.input_line))  # a parsed override keeps its text
    return first


def nearest_keys(cfg: DictConfig, dotted: str) -> str:
    """' (did you mean a.b?); the keys of a are [...]' for a key ``dotted`` that ``cfg`` lacks."""
    parent, _, name = dotted.lstrip("+~").rpartition(".")
    node = OmegaConf.select(cfg, parent) if parent else cfg
    if not OmegaConf.is_dict(node):
        return ""
    known = sorted(str(key) for key in node.keys())
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
    where = f"{parent}." if parent else ""
    hint = f" (did you mean {', '.join(where + key for key in close)}?)" if close else ""
    return f"{hint}; the keys of {parent or 'the config'} are {known}"


def unknown_keys(overrides: Sequence[str], cfg: DictConfig) -> list[str]:
    """Override keys (not config groups) that the composed config does not hold."""
    from experiments.running.composition import CONFIG_PATH

    unknown = []
    for item in overrides:
        key = item.split("=", 1)[0].lstrip("+~")
        if "/" in key or "@" in key or key.startswith("hydra") or (Path(CONFIG_PATH) / key).is_dir():
            continue
        if OmegaConf.select(cfg, key, default="__missing__") == "__missing__":
            unknown.append(key)
    return unknown


def check_launcher(overrides: Sequence[str]) -> None:
    for item in overrides:
        key, _, value = item.partition("=")
        if key.lstrip("+") == "hydra/launcher" and value in LAUNCHER_COMMANDS:
            missing = [command for command in LAUNCHER_COMMANDS[value] if shutil.which(command) is None]
            if missing:
                raise BadCommandLineError(
                    f"hydra/launcher={value} submits through SLURM, but {' and '.join(missing)} "
                    f"{'is' if len(missing) == 1 else 'are'} not on PATH here: run it on a SLURM login "
                    "node, or drop hydra/launcher to run locally"
                )


def check_command_line(argv: Sequence[str]) -> None:
    """Raise :class:`BadCommandLineError` for a command line Hydra or its launcher would refuse."""
    from experiments.running.composition import compose_config

    overrides = overrides_of(argv)
    check_launcher(overrides)
    first = first_job_overrides(overrides)
    try:
        compose_config(*first)
    except Exception as error:
        try:
            base = compose_config(*[item for item in first if item.split("=")[0].lstrip("+") == "experiment"])
        except Exception:
            base = compose_config()
        unknown = unknown_keys(first, base)
        if unknown:
            raise BadCommandLineError(
                f"Unknown config key {unknown[0]}{nearest_keys(base, unknown[0])}"
            ) from None
        message = " ".join(str(error).split())
        raise BadCommandLineError(f"the overrides do not compose a config: {message}") from None


def refuse_bad_command_line(argv: Sequence[str] | None = None) -> None:
    """Exit 2 with one line for a command line that cannot run (see :func:`check_command_line`)."""
    argv = sys.argv[1:] if argv is None else argv
    if any(flag in argv for flag in ("--help", "-h", "--hydra-help", "--info", "-i", "--cfg", "-c")):
        return  # Hydra's own informational flags
    try:
        check_command_line(argv)
    except BadCommandLineError as error:
        if os.environ.get(DEBUG_ENV) == "1":
            raise
        refuse(str(error))
