"""DF21's parameter names, refused with the disdf parameter that does the same job: a DF21 user who
passes ``n_estimators`` or ``max_layers`` learns what to write instead of reading a bare TypeError."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping

#: Each DF21 ``CascadeForestClassifier`` parameter disdf names otherwise, and what to use
#: (docs/user_guide/from_df21.rst lists them all, with the shared names).
DF21_EQUIVALENTS: dict[str, str] = {
    "n_estimators": "forests (a level's forests, default 2 completely-random + 2 random forests; "
    "DF21's n_estimators is the number of forests of each kind)",
    "max_layers": "max_levels",
    "n_tolerant_rounds": "patience",
    "delta": "tol",
    "use_predictor": "predictor (a classifier instance, e.g. HistGradientBoostingClassifier(); "
    "None for none)",
    "predictor_kwargs": "predictor (pass the classifier instance configured)",
    "bin_type": "engine='binned' with n_bins and bin_subsample (quantile bins)",
    "backend": "engine ('fast', 'binned' or 'sklearn')",
    "partial_mode": "keep_fitted_levels='disk' (with fitted_levels_dir)",
    "criterion": "forests (each forest's spec takes its own tree parameters; the default trees split "
    "on Gini)",
}


def refuse_absent_parameters(
    owner: str, names: Iterable[str], others: Mapping[str, str] | None = None
) -> None:
    """A TypeError naming the first DF21 parameter among ``names`` and its disdf equivalent, or the first
    of ``others`` (a parameter this estimator lacks, though a sibling has it) and why."""
    for name in names:
        if name in DF21_EQUIVALENTS:
            raise TypeError(
                f"{owner} has no parameter {name!r} (a DF21 name): use {DF21_EQUIVALENTS[name]}. "
                "The parameter map: docs/user_guide/from_df21.rst"
            )
        if others and name in others:
            raise TypeError(f"{owner} has no parameter {name!r}: {others[name]}")


def constructor_signature(init: Callable) -> inspect.Signature:
    """``init``'s signature without ``self``: a class that refuses DF21 names in ``__new__`` keeps it as
    its own, so that ``inspect.signature(cls)`` (scikit-learn's estimator checks) still reads the
    parameters rather than ``__new__``'s ``*args, **kwargs``."""
    signature = inspect.signature(init)
    return signature.replace(parameters=list(signature.parameters.values())[1:])
