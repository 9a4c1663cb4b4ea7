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
from collections.abc import Mapping
from dataclasses import dataclass
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
