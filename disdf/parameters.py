"""Declarative parameter checks, one table per estimator or solver, run before any work.

The pattern of scikit-learn's ``_parameter_constraints``, stricter where a
research run needs it: a bool is never accepted where a number is meant
(``n_trees=True`` is not one tree), and a float must be finite (``tol=nan``
compares false with everything and silently changes the algorithm).
Each error names the owner and the parameter, the expected type or range and
the value given.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any

import numpy as np


def _describe(value: Any) -> str:
    return f"{value!r} ({type(value).__name__})"


@dataclass(frozen=True)
class Integer:
    """An int (numpy integers too, never a bool) in [low, high], optionally None; ``forbid`` excluded."""

    low: int | None = None
    high: int | None = None
    none: bool = False
    forbid: tuple[int, ...] = ()

    def check(self, owner: str, name: str, value: Any) -> None:
        if value is None and self.none:
            return
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, Integral):
            raise TypeError(f"{owner}: {name} must be an int{self._range()}; got {_describe(value)}")
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
            raise ValueError(f"{owner}: {name} must be an int{self._range()}; got {value!r}")
        if value in self.forbid:
            raise ValueError(f"{owner}: {name} must not be {value!r}")

    def _range(self) -> str:
        low = "-inf" if self.low is None else self.low
        high = "inf" if self.high is None else self.high
        return f" in [{low}, {high}]" + (" or None" if self.none else "")


@dataclass(frozen=True)
class Float:
    """A finite real number (never a bool) above ``low`` (> if ``low_open``, else >=) and at most
    ``high``, optionally None."""

    low: float | None = None
    low_open: bool = False
    none: bool = False
    high: float | None = None

    def check(self, owner: str, name: str, value: Any) -> None:
        if value is None and self.none:
            return
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real):
            raise TypeError(f"{owner}: {name} must be a finite number{self._range()}; got {_describe(value)}")
        if not math.isfinite(value):
            raise ValueError(f"{owner}: {name} must be a finite number{self._range()}; got {value!r}")
        if self.low is not None and (value <= self.low if self.low_open else value < self.low):
            raise ValueError(f"{owner}: {name} must be a finite number{self._range()}; got {value!r}")
        if self.high is not None and value > self.high:
            raise ValueError(f"{owner}: {name} must be a finite number{self._range()}; got {value!r}")

    def _range(self) -> str:
        if self.high is not None:  # both ends, as Integer states its range
            low = "(-inf" if self.low is None else f"{'(' if self.low_open else '['}{self.low:g}"
            bound = f" in {low}, {self.high:g}]"
        else:
            bound = "" if self.low is None else f" {'>' if self.low_open else '>='} {self.low:g}"
        return bound + (" or None" if self.none else "")


@dataclass(frozen=True)
class Boolean:
    """True or False (numpy's too)."""

    def check(self, owner: str, name: str, value: Any) -> None:
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{owner}: {name} must be True or False; got {_describe(value)}")


@dataclass(frozen=True)
class OneOf:
    """One of a fixed set of values (compared with ==), optionally None."""

    options: tuple[Any, ...]
    none: bool = False

    def check(self, owner: str, name: str, value: Any) -> None:
        if value is None and self.none:
            return
        if isinstance(value, str) and value in self.options:
            return
        if not isinstance(value, str) and any(value is option for option in self.options):
            return
        allowed = f"{list(self.options)}{' or None' if self.none else ''}"
        raise ValueError(f"{owner}: {name} must be one of {allowed}; got {value!r}")


Constraint = Integer | Float | Boolean | OneOf


def check_parameters(owner: str, table: Mapping[str, Constraint], values: Mapping[str, Any]) -> None:
    """Check ``values[name]`` against ``table[name]`` for every name of the table present in ``values``."""
    for name, constraint in table.items():
        if name in values:
            constraint.check(owner, name, values[name])


@dataclass(frozen=True)
class DictParameter:
    """A dict-valued parameter whose entries ``set_params`` sets one at a time, as ``name__key=value``.

    scikit-learn reads ``name__key`` as a nested estimator's parameter; a dict has no
    ``set_params``. ``keys`` are the keys it may have (None: any, checked by fit);
    ``default`` is what None stands for.
    """

    keys: tuple[str, ...] | None = None
    default: Mapping[str, Any] = field(default_factory=dict)

    def updated(self, owner: str, name: str, current: Any, entries: Mapping[str, Any]) -> dict[str, Any]:
        """A copy of ``current`` (None: of ``default``) with ``entries`` set; the estimator's own
        dict, which a clone may share with its original, is never changed in place."""
        if self.keys is not None and not set(entries) <= set(self.keys):
            unknown = sorted(set(entries) - set(self.keys))
            named = ", ".join(repr(f"{name}__{key}") for key in unknown)
            raise ValueError(f"{owner}: cannot set {named}: {name} has the keys {list(self.keys)}")
        if current is not None and not isinstance(current, Mapping):
            raise ValueError(f"{owner}: cannot set {name}__<key>: {name} is {_describe(current)}, not a dict")
        return {**(self.default if current is None else current), **entries}


def split_nested_params(
    owner: str,
    params: Mapping[str, Any],
    names: Sequence[str],
    current: Mapping[str, Any],
    dicts: Mapping[str, DictParameter],
) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """``set_params``'s arguments, split into scikit-learn's (plain and nested-estimator ones) and
    the entries of each dict parameter. ``name__key`` for a parameter that is neither a dict
    parameter nor an estimator (its value, after this call, has no ``set_params``) is refused by
    name; names that are no parameter at all are left to scikit-learn's own error."""
    plain: dict[str, Any] = {}
    entries: dict[str, dict[str, Any]] = {}
    for key, value in params.items():
        name, delim, sub_key = key.partition("__")
        if not delim or name not in names:
            plain[key] = value
        elif name in dicts:
            entries.setdefault(name, {})[sub_key] = value
        elif hasattr(params.get(name, current[name]), "set_params"):
            plain[key] = value
        else:
            dict_names = f"; only {sorted(dicts)} take name__key" if dicts else ""
            raise ValueError(
                f"{owner}: cannot set {key!r}: {name} is not an estimator{dict_names}; set {name} itself"
            )
    return plain, entries
