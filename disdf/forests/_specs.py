"""Forest specifications: which forests make up one cascade level.

A spec is a name or a dict ``{"kind": name, **sklearn_params}``:

* ``"completely_random"``: completely-random tree forest of gcForest, i.e.
  scikit-learn's ExtraTreesClassifier with ``max_features=1`` (one random
  feature per node, a random threshold between its min and max);
* ``"random_forest"``: RandomForestClassifier with ``max_features="sqrt"``.

Trees are fully grown unless the estimator's ``max_depth``,
``min_samples_split`` or ``min_samples_leaf`` (or the spec's own) say otherwise.

Three engines grow them: ``"sklearn"`` (the reference, scikit-learn's forests),
``"fast"`` (:mod:`disdf.forests._compiled`, compiled, the same split rules), which
implements the parameters in ``disdf.forests._compiled.forest.SUPPORTED_PARAMS``, and
``"binned"``: ``"fast"`` where a feature of more than ``n_bins + 1`` distinct values
(default :data:`MAX_BINS` + 1 = 256) splits, at nodes of at least 64 examples, between
bins of about equal counts (at most ``n_bins``; DF21's and LightGBM's approach), their edges
placed on all the forest's examples or on ``bin_subsample`` of them. On 256 examples or
fewer (every forest of the paper's protocol), or features of fewer values, it grows the
trees ``"fast"`` grows. ``n_bins`` and ``bin_subsample`` come with the tree parameters
(:data:`BINNING_PARAMS`) and are the binned engine's only. ``max_tree_samples``, the compiled
engines' (:data:`SAMPLE_CAP_PARAMS`), caps the examples a tree draws for large data (a random
forest's bootstrap draws min(n, max_tree_samples), a completely-random tree takes that many
distinct examples); on n <= max_tree_samples the trees of no cap.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.ensemble import (
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)

from disdf._utils.parameters import Constraint, Integer, InvalidParameterError
from disdf.forests._compiled import FastForest, FastForestParams
from disdf.forests._compiled.regression_forest import FastRegressionForest
from disdf.forests._tree_leaves import SklearnFoldModel, SklearnRegressionFoldModel


@dataclass(frozen=True)
class ForestKind:
    """One kind of forest a cascade level may hold, and everything disdf reads of it.

    ``classifier`` and ``regressor`` are scikit-learn's forests for ``engine="sklearn"`` (the cascade
    regressor's: the same candidate features, squared-error splits); ``params`` what the kind sets
    beyond their defaults; ``bootstrap`` and ``random_splits`` (a random threshold per candidate
    feature, ExtraTrees' splitter) the scikit-learn behaviour the compiled engines reproduce;
    ``nodes_per_example`` the memory model's internal nodes of a fully grown tree per training example
    of its fold model (measured on MNIST), ``regression_nodes_per_example`` a regression tree's (about a
    leaf per distinct example: all of them, or a bootstrap's 63 %)."""

    classifier: type
    regressor: type
    params: dict[str, Any]
    bootstrap: bool
    random_splits: bool
    nodes_per_example: float
    regression_nodes_per_example: float


#: Every forest kind, by name: a new kind is one entry here.
FOREST_KINDS: dict[str, ForestKind] = {
    "completely_random": ForestKind(
        ExtraTreesClassifier, ExtraTreesRegressor, {"max_features": 1}, False, True, 0.55, 1.0
    ),
    "random_forest": ForestKind(
        RandomForestClassifier, RandomForestRegressor, {"max_features": "sqrt"}, True, False, 0.09, 0.632
    ),
    # Extremely randomised trees as scikit-learn's default: a random threshold on each of sqrt(d)
    # candidate features (completely-random trees are the same with one candidate).
    "extra_trees": ForestKind(
        ExtraTreesClassifier, ExtraTreesRegressor, {"max_features": "sqrt"}, False, True, 0.55, 1.0
    ),
}

ENGINES = ("sklearn", "fast", "binned")
#: Bins of a feature with engine="binned" (DF21's default), the most ``n_bins`` takes.
MAX_BINS = 255
#: The tree parameters that are the binned engine's: its bins per feature, the examples its edges
#: are placed on (None: all), with their defaults (today's bins).
BINNING_PARAMS: dict[str, Any] = {"n_bins": MAX_BINS, "bin_subsample": None}
#: The compiled engines' cap on a tree's examples, with its default (none: every tree on all n).
SAMPLE_CAP_PARAMS: dict[str, Any] = {"max_tree_samples": None}
#: The tree parameters scikit-learn's forests do not read: the binned engine's and the cap.
ENGINE_TREE_PARAMS: dict[str, Any] = {**BINNING_PARAMS, **SAMPLE_CAP_PARAMS}
#: The fewest examples ``bin_subsample`` may take: a forest bins only on more than 256 examples.
MIN_BIN_SUBSAMPLE = 256
#: The engines of disdf.forests._compiled, and their max_bins.
COMPILED_ENGINES = {"fast": 0, "binned": MAX_BINS}

#: The paper's level: 2 completely-random tree forests and 2 random forests.
DEFAULT_FORESTS: tuple[str, ...] = (
    "completely_random",
    "completely_random",
    "random_forest",
    "random_forest",
)


def parse_forest_specs(
    forests: Sequence[str | Mapping[str, Any]] | None,
    engine: str = "sklearn",
    regression: bool = False,
    allow_empty: bool = False,
) -> list[tuple[str, dict[str, Any]]]:
    """Validate ``forests`` (for ``engine``; of regression trees with ``regression``) and return
    ``(kind, extra_params)`` per forest; an empty list only with ``allow_empty`` (a level of other
    members, ``level_estimators``).

    Raises
    ------
    InvalidParameterError
        (a ValueError) naming the forest spec and what is wrong with it.
    """
    if engine not in ENGINES:
        raise InvalidParameterError(f"engine must be one of {ENGINES}; got {engine!r}")
    if forests is None:
        forests = DEFAULT_FORESTS
    if (
        isinstance(forests, (str, Mapping))
        or not isinstance(forests, Sequence)
        or (len(forests) == 0 and not allow_empty)
    ):
        raise InvalidParameterError(
            "forests must be a non-empty list of forest specs (names or dicts with a 'kind'; empty only "
            f"with level_estimators); got {forests!r}"
        )
    parsed = []
    for position, spec in enumerate(forests):
        if isinstance(spec, str):
            kind, params = spec, {}
        elif isinstance(spec, Mapping) and "kind" in spec:
            params = dict(spec)
            kind = params.pop("kind")
        else:
            raise InvalidParameterError(
                f"forests[{position}] = {spec!r} is not a forest spec: use a name or a dict with 'kind'"
            )
        if kind not in FOREST_KINDS:
            raise InvalidParameterError(
                f"Unknown forest spec {kind!r} at forests[{position}]; expected one of {sorted(FOREST_KINDS)}"
            )
        for reserved in ("n_estimators", "random_state", "n_jobs"):
            if reserved in params:
                raise InvalidParameterError(
                    f"forests[{position}] sets {reserved!r}, which the cascade controls "
                    "(use n_trees, random_state, n_jobs of the estimator)"
                )
        if engine in COMPILED_ENGINES:
            try:
                _fast_params(kind, params, {}, engine, regression)
            except ValueError as error:  # FastForestParams' refusal, named by position
                raise InvalidParameterError(f"forests[{position}] = {spec!r}: {error}") from None
        parsed.append((kind, params))
    return parsed


@dataclass(frozen=True)
class BinningParameter(Constraint):
    """``n_bins`` (an int in [2, :data:`MAX_BINS`]) or ``bin_subsample`` (None or an int >= 256),
    read by ``engine="binned"`` only: another value than the default with another engine is refused
    (it would change nothing)."""

    @property
    def reads(self) -> tuple[str, ...]:
        return ("engine",)

    def check_in(self, owner: str, name: str, params: Mapping[str, Any]) -> None:
        value = params[name]
        if name == "n_bins":
            Integer(2, MAX_BINS).check(owner, name, value)
        else:
            Integer(MIN_BIN_SUBSAMPLE, none=True).check(owner, name, value)
        if params["engine"] != "binned" and value != BINNING_PARAMS[name]:
            raise InvalidParameterError(
                f"{owner}: {name} is read only with engine='binned'; got {name}={value!r} with "
                f"engine={params['engine']!r} (leave it at {BINNING_PARAMS[name]!r}, or use engine='binned')"
            )


@dataclass(frozen=True)
class TreeSampleCap(Constraint):
    """``max_tree_samples``: None or an int >= 1, read by the compiled engines only: a cap with
    engine="sklearn" is refused (its completely-random forests cannot subsample without bootstrap)."""

    @property
    def reads(self) -> tuple[str, ...]:
        return ("engine",)

    def check_in(self, owner: str, name: str, params: Mapping[str, Any]) -> None:
        value = params[name]
        Integer(1, none=True).check(owner, name, value)
        if value is not None and params["engine"] not in COMPILED_ENGINES:
            raise InvalidParameterError(
                f"{owner}: {name} is read only by the compiled engines; got {name}={value!r} with "
                f"engine={params['engine']!r} (leave it None, or use engine='fast' or 'binned')"
            )


@dataclass(frozen=True)
class ForestSpecs(Constraint):
    """A level's forests (:func:`parse_forest_specs`), for the engine named by the parameter ``engine``."""

    engine: str = "engine"
    regression: bool = False  # the cascade regressor's forests
    #: The parameter of the level's other members: with some, the forests may be none.
    members: str = "level_estimators"

    @property
    def reads(self) -> tuple[str, ...]:
        return (self.engine, self.members)

    def check_in(self, owner: str, name: str, params: Mapping[str, Any]) -> None:
        parse_forest_specs(params[name], params[self.engine], self.regression, bool(params.get(self.members)))


def split_engine_params(tree_params: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the compiled engines' :data:`ENGINE_TREE_PARAMS`, their defaults where absent; the tree
    parameters scikit-learn's forests read too)."""
    given = {k: v for k, v in tree_params.items() if k in ENGINE_TREE_PARAMS}
    others = {k: v for k, v in tree_params.items() if k not in ENGINE_TREE_PARAMS}
    return {**ENGINE_TREE_PARAMS, **given}, others


def make_forest(
    kind: str,
    params: Mapping[str, Any],
    *,
    n_trees: int,
    random_state: int,
    tree_params: Mapping[str, Any],
    regression: bool = False,
) -> ClassifierMixin | RegressorMixin:
    """An unfitted single-threaded scikit-learn forest for one fold model (``tree_params`` without the
    compiled engines' :data:`ENGINE_TREE_PARAMS`): a classifier, or with ``regression`` a regressor."""
    forest_kind = FOREST_KINDS[kind]
    cls, defaults = (forest_kind.regressor if regression else forest_kind.classifier), forest_kind.params
    _, tree_params = split_engine_params(tree_params)
    kwargs = {**defaults, **tree_params, **params}
    return cls(n_estimators=n_trees, random_state=random_state, n_jobs=1, **kwargs)


def _fast_params(
    kind: str,
    params: Mapping[str, Any],
    tree_params: Mapping[str, Any],
    engine: str,
    regression: bool = False,
) -> FastForestParams:
    forest_kind = FOREST_KINDS[kind]
    defaults = {"bootstrap": forest_kind.bootstrap, **forest_kind.params}  # the same for the regressors
    engine_params, tree_params = split_engine_params(tree_params)
    binned = COMPILED_ENGINES[engine] > 0
    return FastForestParams.from_sklearn(
        forest_kind.random_splits,
        {**defaults, **tree_params, **params},
        engine_params["n_bins"] if binned else 0,
        engine_params["bin_subsample"] if binned else None,
        engine_params["max_tree_samples"],
        "squared_error" if regression else "gini",
    )


def fit_fold_model(
    kind: str,
    params: Mapping[str, Any],
    engine: str,
    X: np.ndarray,
    y_code: np.ndarray,
    *,
    n_classes: int,
    n_trees: int,
    random_state: int,
    tree_params: Mapping[str, Any],
    rows: np.ndarray | None = None,
    feature_major_rows: np.ndarray | None = None,
    sample_weight: np.ndarray | None = None,
    regression: bool = False,
) -> SklearnFoldModel | FastForest:
    """Grow one fold model's forest on class codes; return it as per-tree probability provider.
    With ``regression``: a regression forest on ``y_code``, float targets of shape (n,) or (n, n_outputs),
    ``n_classes`` their columns, its trees' predictions in place of the class probabilities
    (squared-error splits on every engine).

    ``rows``: grow on those examples of (X, y_code) only (the compiled engines read them from X
    without an example-major copy). Both return types offer ``probabilities(X)`` (n, T, C),
    ``tree_leaves(X)``, ``weighted_probabilities(X, w)`` and ``first(T)``, with classes aligned
    to ``range(n_classes)``. ``feature_major_rows``: for a compiled engine, the copy of the rows it
    grows on, made by :func:`~disdf.forests._compiled.forest.feature_major` (shared by the fold's forests).
    ``sample_weight``: one weight per example of X (its ``rows`` are read), in every tree's split
    criterion and leaf values on either engine; None is no weights (each engine's trees of old).
    ``tree_params``: max_depth, min_samples_split, min_samples_leaf and the compiled engines'
    :data:`ENGINE_TREE_PARAMS` (absent: their defaults; the binning read by ``engine="binned"`` only).
    """
    if engine in COMPILED_ENGINES:
        grower = FastRegressionForest if regression else FastForest
        forest = grower(
            _fast_params(kind, params, tree_params, engine, regression), n_trees, random_state, n_classes
        )
        return forest.fit(X, y_code, rows, feature_major_rows, sample_weight)
    if rows is not None:
        X, y_code = X[rows], y_code[rows]
        sample_weight = None if sample_weight is None else sample_weight[rows]
    forest = make_forest(
        kind,
        params,
        n_trees=n_trees,
        random_state=random_state,
        tree_params=tree_params,
        regression=regression,
    )
    if regression:
        targets = y_code.ravel() if y_code.ndim == 2 and y_code.shape[1] == 1 else y_code  # no warning
        return SklearnRegressionFoldModel(forest.fit(X, targets, sample_weight=sample_weight))
    # None is not passed on: scikit-learn's forests then grow exactly the trees they grew before weights
    fitted = (
        forest.fit(X, y_code) if sample_weight is None else forest.fit(X, y_code, sample_weight=sample_weight)
    )
    return SklearnFoldModel(fitted, n_classes)
