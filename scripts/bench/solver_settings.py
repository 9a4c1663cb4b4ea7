"""A weight-solver setting named on the command line, so that no benchmark pins a retired one.

``--against support_newton newton_every=20 newton_adds_trees=false`` is the setting
``support_newton`` with those options; without a leading name the options are the name.
Options are checked against the solver's (``disdf.weights.check_solver_options``) before any
work, so a typo fails at once, not after the problems were recorded.
"""

from __future__ import annotations

import argparse
import ast
from collections.abc import Sequence
from typing import Any

from disdf.weights import check_solver_options

#: Lower-case spellings a shell user types for Python's literals.
WORDS = {"true": True, "false": False, "none": None}


def option_value(text: str) -> Any:
    """``"20"`` -> 20, ``"1e-6"`` -> 1e-06, ``"false"``/``"False"`` -> False; other text stays text."""
    if text.lower() in WORDS:
        return WORDS[text.lower()]
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def parse_setting(words: Sequence[str], solver: str = "frank_wolfe_away") -> tuple[str, dict[str, Any]]:
    """(name, options) of ``[NAME] OPTION=VALUE ...`` for ``solver``; ValueError if it is not one."""
    name, pairs = (words[0], words[1:]) if words and "=" not in words[0] else (None, words)
    if not pairs:
        raise ValueError(f"a setting needs OPTION=VALUE pairs; got {' '.join(words)!r}")
    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"{pair!r} is not OPTION=VALUE")
        options[key] = option_value(value)
    try:
        check_solver_options(solver, options)
    except TypeError as error:  # an option of the wrong type: still a malformed setting
        raise ValueError(str(error)) from None
    return name or " ".join(pairs), options


def add_setting_argument(parser: argparse.ArgumentParser, flag: str, help: str) -> None:
    """A repeatable ``flag [NAME] OPTION=VALUE ...``; :func:`parsed_settings` reads it."""
    parser.add_argument(
        flag, nargs="+", action="append", default=[], metavar="[NAME] OPTION=VALUE", help=help
    )


def parsed_settings(
    parser: argparse.ArgumentParser, groups: list[list[str]], solver: str = "frank_wolfe_away"
) -> dict[str, dict[str, Any]]:
    """Every setting given, by name; a malformed one exits with the parser's usage message."""
    settings = {}
    for words in groups:
        try:
            name, options = parse_setting(words, solver)
        except ValueError as error:
            parser.error(str(error))
        settings[name] = options
    return settings
