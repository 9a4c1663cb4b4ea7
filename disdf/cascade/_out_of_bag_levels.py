"""Levels of out-of-bag outputs (gcForest's and the regressor's ``out_of_bag=True``): what changes in the
level loop.

Each forest of a level is grown once, on all of the level's examples, every tree on a bootstrap sample
(also the completely-random and extra-trees forests, which draw none by default), and an example's
output joining the next level is the mean of the trees that left it out
(:mod:`disdf.forests._out_of_bag`): DF21's layers, a third of the trees of 3-fold cross-fitting. The
level loop sees one "fold" whose training and held-out rows are all the examples
(:func:`all_rows_fold`); a new example's output is the forest's mean over all its trees.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from disdf._utils.folds import Folds
from disdf._utils.parameters import Boolean, Constraint, InvalidParameterError

#: The values of the parameters that out-of-bag levels do not read, or cannot honour, that they need.
_NEEDS = {"n_folds": 3, "test_vectors": "fold_mean", "level_estimators": None}


@dataclass(frozen=True)
class OutOfBag(Constraint):
    """``out_of_bag``: True or False; True only with the defaults of ``n_folds`` (unread),
    ``test_vectors`` (a refit forest would be the forest itself) and ``level_estimators`` (an estimator
    has no bootstrap to be out of), and no forest spec with ``bootstrap=False``."""

    @property
    def reads(self) -> tuple[str, ...]:
        return (*_NEEDS, "forests")

    def check_in(self, owner: str, name: str, params: Mapping[str, Any]) -> None:
        value = params[name]
        Boolean().check(owner, name, value)
        if not value:
            return
        for other, needed in _NEEDS.items():
            if params[other] != needed:
                raise InvalidParameterError(
                    f"{owner}: out_of_bag=True grows each forest once, on all examples, and reads no "
                    f"{other}; got {other}={params[other]!r} (leave it at {needed!r}, or out_of_bag=False)"
                )
        for position, spec in enumerate(params["forests"] or ()):
            if isinstance(spec, Mapping) and spec.get("bootstrap", True) is False:
                raise InvalidParameterError(
                    f"{owner}: out_of_bag=True needs every tree on a bootstrap sample; forests[{position}] "
                    f"= {spec!r} sets bootstrap=False"
                )


def bootstrapped(specs: list[tuple[Any, dict[str, Any]]]) -> list[tuple[Any, dict[str, Any]]]:
    """The level's forest specs with every tree on a bootstrap sample (``bootstrap=True``)."""
    return [(kind, {**params, "bootstrap": True}) for kind, params in specs]


def all_rows_fold(n_examples: int) -> Folds:
    """The one "fold" of an out-of-bag level: every example trains, every example is held out (by the
    trees that did not draw it)."""
    rows = np.arange(n_examples)
    return [(rows, rows)]
