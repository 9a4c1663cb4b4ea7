"""Declarative parameter checks, one table per estimator or solver, run before any work.

The pattern of scikit-learn's ``_parameter_constraints``, stricter where a
research run needs it: a bool is never accepted where a number is meant
(``n_trees=True`` is not one tree), and a float must be finite (``tol=nan``
compares false with everything and silently changes the algorithm).
Each error names the owner and the parameter, the expected type or range and
the value given, and is scikit-learn's ``InvalidParameterError`` (a ValueError
and a TypeError at once, as scikit-learn's own parameter errors are).

A table maps every parameter's name to a :class:`Constraint`. Most judge the
value alone; a constraint that depends on other parameters (a solver's options
on the solver) names them in ``reads`` and is judged among all the parameters,
after them: a table lists the parameters a constraint reads before it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any, cast

import numpy as np
from sklearn.utils._param_validation import InvalidParameterError

__all__ = [
    "Boolean",
    "Constraint",
    "DictParameter",
    "Float",
    "Grid",
    "Integer",
    "InvalidParameterError",
    "MaxFeatures",
    "OneOf",
    "RandomSeed",
    "check_parameters",
    "split_nested_params",
]


def _describe(value: Any) -> str:
    return f"{value!r} ({type(value).__name__})"


def _is_bool(value: Any) -> bool:
    return isinstance(value, (bool, np.bool_))


class Constraint:
    """What one parameter may be. Subclasses judge a value alone (``check``) or, when they depend
    on other parameters (``reads``), a value among all the parameters (``check_in``)."""

    @property
    def reads(self) -> tuple[str, ...]:
        """The other parameters this constraint depends on (they come before it in its table)."""
        return ()

    def check(self, owner: str, name: str, value: Any) -> None:
        """Raise :class:`InvalidParameterError` naming ``owner`` and ``name`` unless ``value`` is allowed."""
        raise NotImplementedError(f"{type(self).__name__} judges {name} among the other parameters")

    def check_in(self, owner: str, name: str, params: Mapping[str, Any]) -> None:
        """Judge ``params[name]`` among ``params`` (every parameter of its owner): by default alone."""
        self.check(owner, name, params[name])


@dataclass(frozen=True)
class Integer(Constraint):
    """An int (numpy integers too, never a bool unless ``bools``: then True and False count as 1 and
    0) in [low, high], optionally None; ``forbid`` excluded."""

    low: int | None = None
    high: int | None = None
    none: bool = False
    forbid: tuple[int, ...] = ()
    bools: bool = False

    def check(self, owner: str, name: str, value: Any) -> None:
        if value is None and self.none:
            return
        if _is_bool(value) and self.bools:
            value = int(value)
        if _is_bool(value) or not isinstance(value, Integral):
            raise InvalidParameterError(
                f"{owner}: {name} must be an int{self._range()}; got {_describe(value)}"
            )
        # typeshed's numbers.Integral has no __gt__ (nor int's __lt__ an Integral): compare it as an int
        if (self.low is not None and value < self.low) or (
            self.high is not None and cast(int, value) > self.high
        ):
            raise InvalidParameterError(f"{owner}: {name} must be an int{self._range()}; got {value!r}")
        if value in self.forbid:
            raise InvalidParameterError(f"{owner}: {name} must not be {value!r}")

    def _range(self) -> str:
        low = "-inf" if self.low is None else self.low
        high = "inf" if self.high is None else self.high
        return f" in [{low}, {high}]" + (" or None" if self.none else "")


@dataclass(frozen=True)
class Float(Constraint):
    """A finite real number (never a bool) above ``low`` (> if ``low_open``, else >=) and at most
    ``high``, optionally None."""

    low: float | None = None
    low_open: bool = False
    none: bool = False
    high: float | None = None

    def check(self, owner: str, name: str, value: Any) -> None:
        if value is None and self.none:
            return
        if _is_bool(value) or not isinstance(value, Real):
            raise InvalidParameterError(
                f"{owner}: {name} must be a finite number{self._range()}; got {_describe(value)}"
            )
        below = self.low is not None and (value <= self.low if self.low_open else value < self.low)
        # typeshed's numbers.Real has no __gt__: compare it as the float it stands for
        if not math.isfinite(value) or below or (self.high is not None and cast(float, value) > self.high):
            raise InvalidParameterError(
                f"{owner}: {name} must be a finite number{self._range()}; got {value!r}"
            )

    def _range(self) -> str:
        if self.high is not None:  # both ends, as Integer states its range
            low = "(-inf" if self.low is None else f"{'(' if self.low_open else '['}{self.low:g}"
            bound = f" in {low}, {self.high:g}]"
        else:
            bound = "" if self.low is None else f" {'>' if self.low_open else '>='} {self.low:g}"
        return bound + (" or None" if self.none else "")


@dataclass(frozen=True)
class NJobs(Constraint):
    """joblib's ``n_jobs`` on this machine: None, an int >= 1, or -1 to -(cores) (-1: every core,
    -2: all but one...); 0 and a negative count beyond the cores (which joblib would quietly
    turn into one job) are refused."""

    def check(self, owner: str, name: str, value: Any) -> None:
        cores = os.cpu_count() or 1
        Integer(none=True, forbid=(0,)).check(owner, name, value)
        if value is not None and value < -cores:
            raise InvalidParameterError(
                f"{owner}: {name} must be None, an int >= 1 or between -1 and -{cores} (this machine's "
                f"{cores} cores: -1 is every core); got {value!r}"
            )


@dataclass(frozen=True)
class Boolean(Constraint):
    """True or False (numpy's too)."""

    def check(self, owner: str, name: str, value: Any) -> None:
        if not _is_bool(value):
            raise InvalidParameterError(f"{owner}: {name} must be True or False; got {_describe(value)}")


@dataclass(frozen=True)
class OneOf(Constraint):
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
        raise InvalidParameterError(f"{owner}: {name} must be one of {allowed}; got {value!r}")


#: The largest seed numpy's RandomState takes.
_SEED_MAX = 2**32 - 1


@dataclass(frozen=True)
class RandomSeed(Constraint):
    """What seeds a random stream (scikit-learn's ``check_random_state``): None, an int in
    [0, 2**32 - 1] (numpy's seeds; never a bool) or a numpy RandomState."""

    def check(self, owner: str, name: str, value: Any) -> None:
        if value is None or isinstance(value, np.random.RandomState):
            return
        # cast: typeshed's numbers.Integral compares only through its own __lt__/__le__
        if isinstance(value, Integral) and not _is_bool(value) and 0 <= cast(int, value) <= _SEED_MAX:
            return
        raise InvalidParameterError(
            f"{owner}: {name} must be None, an int in [0, {_SEED_MAX}] or a numpy RandomState; "
            f"got {_describe(value)}"
        )


@dataclass(frozen=True)
class MaxFeatures(Constraint):
    """A forest's candidate features per node, as scikit-learn reads ``max_features``: None (all),
    "sqrt", "log2", an int >= 1 (never a bool) or a float in (0, 1] (a share of the features)."""

    def check(self, owner: str, name: str, value: Any) -> None:
        if value is None or (isinstance(value, str) and value in ("sqrt", "log2")):
            return
        # cast: typeshed's numbers.Integral and Real compare only through their own __lt__/__le__
        if isinstance(value, Integral) and not _is_bool(value) and cast(int, value) >= 1:
            return
        if isinstance(value, Real) and not isinstance(value, Integral) and 0.0 < cast(float, value) <= 1.0:
            return
        raise InvalidParameterError(
            f"{owner}: {name} must be None, 'sqrt', 'log2', an int >= 1 or a float in (0, 1]; "
            f"got {_describe(value)}"
        )


@dataclass(frozen=True)
class Grid(Constraint):
    """The points of a grid search: a dict with exactly the keys of ``axes``, each a non-empty list
    of values that the key's constraint accepts; None stands for a default grid. Judged only while
    the parameter ``when`` is true (a grid nobody searches is not read)."""

    axes: Mapping[str, Constraint]
    when: str | None = None
    none: bool = True

    @property
    def reads(self) -> tuple[str, ...]:
        return () if self.when is None else (self.when,)

    def check_in(self, owner: str, name: str, params: Mapping[str, Any]) -> None:
        if self.when is None or params[self.when]:
            self.check(owner, name, params[name])

    def check(self, owner: str, name: str, value: Any) -> None:
        if value is None and self.none:
            return
        if not isinstance(value, Mapping) or set(value) != set(self.axes):
            keys = " and ".join(repr(key) for key in self.axes)
            raise InvalidParameterError(f"{name} must be a dict with keys {keys}; got {value!r}")
        for key, constraint in self.axes.items():
            values = value[key]
            if isinstance(values, (str, bytes)) or not (
                isinstance(values, Sequence) or (isinstance(values, np.ndarray) and values.ndim == 1)
            ):
                raise InvalidParameterError(
                    f"{name}[{key!r}] must be a list of values; got {_describe(values)}"
                )
            for entry in values:
                constraint.check(owner, f"{name}[{key!r}] entry", entry)
        if any(len(value[key]) == 0 for key in self.axes):
            raise InvalidParameterError(f"{name} lists must be non-empty; got {value!r}")


def check_parameters(owner: str, table: Mapping[str, Constraint], values: Mapping[str, Any]) -> None:
    """Check every parameter of ``table`` present in ``values``, in the table's order, each against
    its constraint (among all of ``values``: a constraint may read the parameters before it)."""
    for name, constraint in table.items():
        if name in values:
            constraint.check_in(owner, name, values)


def validate_estimator(estimator: Any) -> bool:
    """Check a disdf estimator's parameters as its ``fit`` would, before any work.

    Raises :class:`InvalidParameterError` (or ``TypeError``) naming the first wrong parameter. An
    estimator that is not disdf's is left to its own checks at fit: False is returned.

    Examples
    --------
    >>> from disdf import DisDFClassifier
    >>> from disdf.utils import validate_estimator
    >>> validate_estimator(DisDFClassifier(n_trees=10))
    True
    """
    validate = getattr(estimator, "_validate_hyperparameters", None)
    if validate is None:
        return False
    validate()
    return True


def check_estimator_parameters(estimator: Any) -> None:
    """Check an estimator's parameters against its ``_parameter_table``, naming the estimator's class."""
    check_parameters(type(estimator).__name__, estimator._parameter_table, estimator.get_params(deep=False))


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
            raise InvalidParameterError(f"{owner}: cannot set {named}: {name} has the keys {list(self.keys)}")
        if current is not None and not isinstance(current, Mapping):
            raise InvalidParameterError(
                f"{owner}: cannot set {name}__<key>: {name} is {_describe(current)}, not a dict"
            )
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
            raise InvalidParameterError(
                f"{owner}: cannot set {key!r}: {name} is not an estimator{dict_names}; set {name} itself"
            )
    return plain, entries
