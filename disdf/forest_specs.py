"""Forest specifications: which forests make up one cascade level.

A spec is a name or a dict ``{"kind": name, **sklearn_params}``:

* ``"completely_random"``: completely-random tree forest of gcForest, i.e.
  scikit-learn's ExtraTreesClassifier with ``max_features=1`` (one random
  feature per node, a random threshold between its min and max);
* ``"random_forest"``: RandomForestClassifier with ``max_features="sqrt"``.

Trees are fully grown unless the estimator's ``max_depth``,
``min_samples_split`` or ``min_samples_leaf`` (or the spec's own) say otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sklearn.base import ClassifierMixin
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier

FOREST_KINDS: dict[str, tuple[type, dict[str, Any]]] = {
    "completely_random": (ExtraTreesClassifier, {"max_features": 1}),
    "random_forest": (RandomForestClassifier, {"max_features": "sqrt"}),
}

#: The paper's level: 2 completely-random tree forests and 2 random forests.
DEFAULT_FORESTS: tuple[str, ...] = (
    "completely_random",
    "completely_random",
    "random_forest",
    "random_forest",
)


def parse_forest_specs(forests: Sequence[str | Mapping[str, Any]] | None) -> list[tuple[str, dict[str, Any]]]:
    """Validate ``forests`` and return ``(kind, extra_params)`` per forest."""
    if forests is None:
        forests = DEFAULT_FORESTS
    if isinstance(forests, (str, Mapping)) or not isinstance(forests, Sequence) or len(forests) == 0:
        raise ValueError(
            "forests must be a non-empty list of forest specs (names or dicts with a 'kind'); "
            f"got {forests!r}"
        )
    parsed = []
    for position, spec in enumerate(forests):
        if isinstance(spec, str):
            kind, params = spec, {}
        elif isinstance(spec, Mapping) and "kind" in spec:
            params = dict(spec)
            kind = params.pop("kind")
        else:
            raise ValueError(
                f"forests[{position}] = {spec!r} is not a forest spec: use a name or a dict with 'kind'"
            )
        if kind not in FOREST_KINDS:
            raise ValueError(
                f"Unknown forest spec {kind!r} at forests[{position}]; expected one of {sorted(FOREST_KINDS)}"
            )
        for reserved in ("n_estimators", "random_state", "n_jobs"):
            if reserved in params:
                raise ValueError(
                    f"forests[{position}] sets {reserved!r}, which the cascade controls "
                    "(use n_trees, random_state, n_jobs of the estimator)"
                )
        parsed.append((kind, params))
    return parsed


def make_forest(
    kind: str,
    params: Mapping[str, Any],
    *,
    n_trees: int,
    random_state: int,
    tree_params: Mapping[str, Any],
) -> ClassifierMixin:
    """An unfitted single-threaded scikit-learn forest for one fold model."""
    cls, defaults = FOREST_KINDS[kind]
    kwargs = {**defaults, **tree_params, **params}
    return cls(n_estimators=n_trees, random_state=random_state, n_jobs=1, **kwargs)
