"""What a cascade fit needs in memory, estimated and checked before any tree is grown.

A fit that cannot fit is refused at once with the estimate and what would fit,
instead of being killed by the system an hour into growing trees. The estimate
(:func:`fit_memory`) adds, for n training examples of d features, C classes,
M forests of T trees and K folds:

* the process: :data:`PROCESS_BYTES` for the interpreter, numpy, scikit-learn and the
  compiled kernels (measured before a full-MNIST fit, without its images);

* the input: X and the level input (float32, the last level's width);
* growing: the fold models grown at once (one per job; fold-major, :mod:`disdf.cascade._level_growth`),
  each fold's training rows feature-major once, shared by its forests (float32 from
  :data:`~disdf.forests._compiled.forest.FLOAT32_GROWTH_VALUES` values on, else float64), per
  best-split forest its presorted order (int32) and value codes (uint8), and per job the nodes of
  the forest it grows before they are compacted (:func:`growth_bytes_per_node`);
* the held-out leaf rows of a level, ``(n, T)`` int32 per forest
  (:class:`~disdf.forests._tree_leaves.TreeLeaves`), and for DisDF with an exact weight
  solver the rows Q_ij (length T, float64) of every fold model's different-class pairs, eq. (72),
  all held while the level's weights are solved (until 2026-11-28 the estimate counted one fold
  model's, 1/12 of the peak with the default 4 forests and 3 folds);
* the trees: :data:`NODE_BYTES` per node, a fully grown tree on m training examples (at most
  ``max_tree_samples``) taking :func:`nodes_per_example` m nodes (measured on MNIST, 40,000 images:
  completely-random trees 0.55 m, random forests on bootstraps 0.09 m) in the first level and
  :data:`LATER_LEVEL_NODES` of that in each later one, for every level the cascade may keep
  (``max_levels``), or one with ``keep_fitted_levels="disk"``. Out of bag (``out_of_bag=True``) a
  forest is one model on all n examples, and a kind without a bootstrap of its own grows on a
  bootstrap's distinct examples, :data:`BOOTSTRAP_DISTINCT_SHARE` of them.

The job's growing nodes and the later levels' share were added on 2026-11-28, after the memory grid
(``results/bench/memory_estimate.csv``) showed the estimate 1.30-1.43 times the peak with one job at
60,000 rows and 0.69 in disk mode; ``max_tree_samples`` was read from then on too, after the
scale benchmark's capped fits showed it ignored (``results/bench/memory_estimate_holdout.csv``
tests the revised model on those fits). The bootstrap's share out of bag was added on 2026-11-29,
after the grid's out-of-bag rows showed 1.46-1.62 at 60,000 rows (1.03-1.29 with it). The rows of
both files name the model that estimated them.

The available memory is the system's (``MemAvailable``) unless the environment
variable :data:`LIMIT_VARIABLE` sets it (bytes, or with a K, M or G suffix).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np
from joblib import effective_n_jobs

from disdf.forests._compiled.forest import FLOAT32_GROWTH_VALUES
from disdf.forests._specs import FOREST_KINDS, parse_forest_specs

#: The process before any data (measured: 0.3 GiB on Linux, Python 3.11).
PROCESS_BYTES = int(0.3 * 2**30)
#: Bytes of a fitted node: feature (int16), threshold (float32), two child codes relative to the tree's
#: root (int16 while a tree has at most 32,768 nodes, as on all of MNIST; else int32, 14 bytes).
NODE_BYTES = 10
#: A level after the first holds this share of the first level's nodes: its input carries the class
#: vectors, so its trees separate the classes sooner (measured on the memory grid's data at 20,000
#: rows: 0.36-0.45 for completely-random trees, 0.43-0.50 for random forests; 0.5 rounds up).
LATER_LEVEL_NODES = 0.5


def growth_bytes_per_node(n_classes: int) -> int:
    """Bytes per node of a forest while it grows: its growing arrays (feature int32, threshold float64,
    two int64 children, a float64 class row per leaf, about half the nodes) and their trimmed copies."""
    return 2 * (28 + 4 * n_classes)


#: The environment variable that sets the memory a fit may take, instead of the system's.
LIMIT_VARIABLE = "DISDF_MEMORY_LIMIT"
GIB = 2**30


class InsufficientMemoryError(MemoryError):
    """A fit whose estimated memory exceeds what the machine has available."""


@dataclass(frozen=True)
class FitMemory:
    """Bytes a cascade's fit needs at its peak, by part: the process itself, the inputs, the trees
    being grown, the held-out leaf rows, DisDF's pair rows Q_ij, the fitted trees kept, and the
    weight solver's workspace. ``total`` is their sum, ``describe()`` a line that names each part."""

    process: int
    inputs: int
    growing: int
    held_out_leaves: int
    pair_rows: int
    trees: int
    solver_workspace: int = 0  # what the weight solver allocates beyond Q (the QP's canonical form)

    @property
    def total(self) -> int:
        return sum(getattr(self, part.name) for part in fields(self))

    def describe(self) -> str:
        names = {
            "held_out_leaves": "held-out leaf rows",
            "pair_rows": "pair rows Q_ij",
            "solver_workspace": "the weight solver's workspace",
        }
        return ", ".join(
            f"{names.get(part.name, part.name)} {getattr(self, part.name) / GIB:.3g} GiB"
            for part in fields(self)
            if getattr(self, part.name)
        )


@dataclass(frozen=True)
class FitShape:
    """What the estimate reads: the data's size and the cascade's settings."""

    n_samples: int
    n_features: int
    n_classes: int
    n_trees: int
    kinds: tuple[str, ...]  # the level's forest kinds
    n_folds: int
    max_levels: int
    n_jobs: int
    augmentation: str = "cumulative"
    max_depth: int | None = None
    max_tree_samples: int | None = None  # each tree grows on at most this many examples
    regression: bool = False  # regression trees: a leaf row (n_classes = outputs) per leaf, no sharing
    out_of_bag: bool = False  # one model per forest, on all n examples (out_of_bag=True)


def different_class_pairs_per_fold(class_counts: np.ndarray, n_folds: int) -> int:
    """Different-class pairs among one fold model's held-out examples (a stratified 1/K of each class)."""
    per_fold = np.asarray(class_counts, dtype=float) / n_folds
    total = per_fold.sum()
    return int((total**2 - np.sum(per_fold**2)) / 2)


def nodes_per_example(kind: str, regression: bool = False) -> float:
    """Internal nodes of a fully grown tree of ``kind`` per training example of its fold model (the
    kind's entry, :class:`~disdf.forests._specs.ForestKind`); 1 for a level member that is no forest."""
    forest_kind = FOREST_KINDS.get(kind)
    if forest_kind is None:
        return 1.0
    return forest_kind.regression_nodes_per_example if regression else forest_kind.nodes_per_example


#: The share of n examples a bootstrap of n draws holds, 1 - 1/e for large n: out of bag, a kind that
#: draws no bootstrap by default (completely-random, extra trees) grows on that many distinct examples,
#: and so has that share of its nodes (measured on the memory grid's data at 20,000 rows: 0.64 for
#: completely-random trees; the random forest's coefficient already counts its bootstrap).
BOOTSTRAP_DISTINCT_SHARE = 1 - math.exp(-1)


def distinct_share(kind: str, out_of_bag: bool) -> float:
    """The share of a tree's drawn examples that are distinct, against its kind's fold-model trees."""
    forest_kind = FOREST_KINDS.get(kind)
    return BOOTSTRAP_DISTINCT_SHARE if out_of_bag and forest_kind and not forest_kind.bootstrap else 1.0


def nodes_per_tree(kind: str, n_train: float, max_depth: int | None, regression: bool = False) -> float:
    """Estimated nodes of one tree of the kind on n_train examples (fewer than n_train in any tree); none
    for a level member."""
    if kind == MEMBER_KIND:
        return 0.0
    nodes = nodes_per_example(kind, regression) * n_train
    return max(1.0, nodes if max_depth is None else min(nodes, 2.0**max_depth - 1))


def growth_bytes_per_value(kinds: tuple[str, ...], n_folds: int, n_tasks: int, value_bytes: int) -> int:
    """Bytes per training value of the fold models grown at once: the most that ``n_tasks`` consecutive
    tasks of the fold-major order hold, one feature-major copy per fold among them (``value_bytes`` per
    value) and per random forest its presorted order and codes (5)."""
    order = [(k, kind) for k in range(n_folds) for kind in kinds]
    windows = (order[start : start + n_tasks] for start in range(max(1, len(order) - n_tasks + 1)))
    return max(
        value_bytes * len({k for k, _ in window}) + 5 * sum(kind == "random_forest" for _, kind in window)
        for window in windows
    )


def fit_memory(
    shape: FitShape, pair_rows: int = 0, kept_levels: int | None = None, solver_workspace: int = 0
) -> FitMemory:
    """The estimated peak of a fit (module docstring); ``kept_levels``: levels whose trees are held
    at once (default ``max_levels``); ``pair_rows``: Q rows held at once; ``solver_workspace``: bytes
    the weight solves allocate beyond them."""
    s = shape
    n_forests = len(s.kinds)
    width = s.n_features + n_forests * s.n_classes * (
        (s.max_levels - 1) if s.augmentation == "cumulative" else min(1, s.max_levels - 1)
    )
    models = 1 if s.out_of_bag else s.n_folds  # per forest
    n_train = s.n_samples if s.out_of_bag else s.n_samples - s.n_samples // s.n_folds
    value_bytes = 4 if n_train * width >= FLOAT32_GROWTH_VALUES else 8
    tasks = max(1, min(s.n_jobs, n_forests * models))
    tree_rows = n_train if s.max_tree_samples is None else min(n_train, s.max_tree_samples)
    tree_nodes = {
        kind: nodes_per_tree(kind, tree_rows * distinct_share(kind, s.out_of_bag), s.max_depth, s.regression)
        for kind in s.kinds
    }
    # a regression tree's every leaf has its own row of n_outputs means (about one leaf per node)
    node_bytes = NODE_BYTES + (8 * s.n_classes if s.regression else 0)
    later_share = 1.0 if s.regression else LATER_LEVEL_NODES  # a leaf per example at every level
    level_nodes = models * s.n_trees * sum(tree_nodes[kind] for kind in s.kinds)
    levels = s.max_levels if kept_levels is None else kept_levels
    # each task grows one fold model's forest at a time: the largest kind's nodes, as they grow
    growing_nodes = tasks * s.n_trees * max(tree_nodes.values()) * growth_bytes_per_node(s.n_classes)
    return FitMemory(
        process=PROCESS_BYTES,
        inputs=4 * s.n_samples * (s.n_features + width),
        growing=int(
            n_train * width * growth_bytes_per_value(s.kinds, models, tasks, value_bytes) + growing_nodes
        ),
        held_out_leaves=(5 if s.out_of_bag else 4) * n_forests * s.n_samples * s.n_trees,  # + bagging masks
        pair_rows=8 * pair_rows * s.n_trees,
        trees=int(node_bytes * level_nodes * (1 + later_share * (levels - 1))),
        solver_workspace=solver_workspace,
    )


def parse_bytes(text: str) -> int:
    """'3G', '512M', '100K' or a number of bytes, as bytes: a positive, finite size, else a ValueError
    naming :data:`LIMIT_VARIABLE` (``inf``, ``1e999``, ``-1G`` and ``0`` are no memory limit)."""
    given = text
    text = text.strip().upper().removesuffix("B").removesuffix("I")
    scale = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}.get(text[-1:], 1)
    try:
        value = float(text[:-1] if scale > 1 else text) * scale
    except ValueError:
        value = float("nan")
    if not math.isfinite(value) or value < 1:
        raise ValueError(
            f"{LIMIT_VARIABLE}={given!r} is not a positive finite size such as 3G, 512M or 1000000"
        )
    return int(value)


def available_memory_bytes() -> int | None:
    """Memory a fit may take: :data:`LIMIT_VARIABLE` if set, else the system's (Linux MemAvailable;
    elsewhere physical memory), or None."""
    if os.environ.get(LIMIT_VARIABLE):
        return parse_bytes(os.environ[LIMIT_VARIABLE])
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def check_fit_memory(
    memory: FitMemory,
    what: str,
    remedies: list[tuple[str, FitMemory]],
    otherwise: str,
    available: int | None = None,
) -> None:
    """Raise :class:`InsufficientMemoryError` if ``memory`` exceeds the available memory, naming the
    estimate by part and the first of ``remedies`` (a setting and its estimate) that fits, else
    ``otherwise``."""
    available = available_memory_bytes() if available is None else available
    if available is None or memory.total <= available:
        return
    fitting = [
        f"{setting} (about {alternative.total / GIB:.3g} GiB) would fit"
        for setting, alternative in remedies
        if alternative.total <= available
    ]
    raise InsufficientMemoryError(
        f"{what}: the fit needs about {memory.total / GIB:.3g} GiB ({memory.describe()}), more than "
        f"the {available / GIB:.3g} GiB available ({LIMIT_VARIABLE} sets the limit); "
        f"{fitting[0] if fitting else otherwise}"
    )


#: The kind a level member (``level_estimators``) counts as: its columns widen the next level's input;
#: its estimator's own memory is not estimated (it holds no trees of the cascade's).
MEMBER_KIND = "level_member"


def level_kinds(estimator: Any) -> tuple[str, ...]:
    """The kinds of a cascade estimator's level members: its forests', then one :data:`MEMBER_KIND` per
    entry of ``level_estimators``."""
    members = len(getattr(estimator, "level_estimators", None) or ())
    regression = getattr(estimator, "_regression", False)
    forests = parse_forest_specs(estimator.forests, estimator.engine, regression, members > 0)
    return tuple(kind for kind, _ in forests) + (MEMBER_KIND,) * members


def estimator_fit_shape(estimator: Any, class_counts: np.ndarray, n_features: int) -> FitShape:
    """The :class:`FitShape` of a cascade estimator's fit on data of these class counts and features."""
    e = estimator
    counts = np.asarray(class_counts)
    kinds = level_kinds(e)
    return FitShape(
        int(counts.sum()), n_features, len(counts), e.n_trees, kinds, e.n_folds, e.max_levels,
        effective_n_jobs(e.n_jobs), e.augmentation, e.max_depth, getattr(e, "max_tree_samples", None),
        getattr(e, "_regression", False), bool(getattr(e, "_out_of_bag", False)),
    )  # fmt: skip


def estimator_fit_memory(
    estimator: Any, class_counts: np.ndarray, n_features: int, levels: int | None = None
) -> FitMemory:
    """The estimated peak memory of a cascade's fit, as the check before any tree grows reads it.

    Parameters
    ----------
    estimator : CascadeForestClassifier, DisDFClassifier or CascadeForestRegressor
        The unfitted estimator, with the settings the fit would use.
    class_counts : array-like of int
        Examples per class of the training data (a regressor: one entry per output whose sum is the
        number of examples).
    n_features : int
        Features of the training data.
    levels : int, default=None
        Levels the fit grows; None: ``max_levels``, the most it may. With
        ``keep_fitted_levels="disk"`` one level is held at a time.

    Returns
    -------
    FitMemory
        The estimate in bytes, by part; ``total`` is their sum.

    Examples
    --------
    >>> from disdf import CascadeForestClassifier
    >>> from disdf.cascade import estimator_fit_memory
    >>> estimate = estimator_fit_memory(CascadeForestClassifier(), [500, 500], n_features=20, levels=3)
    >>> estimate.total > estimate.trees > 0
    True
    """
    shape = estimator_fit_shape(estimator, class_counts, n_features)
    grown = estimator.max_levels if levels is None else levels
    kept = 1 if estimator.keep_fitted_levels == "disk" else grown
    counts = np.asarray(class_counts)
    return fit_memory(
        shape, estimator._pair_rows(counts), kept, estimator._solver_workspace(counts, shape.n_jobs)
    )


def check_estimator_memory(
    estimator: Any, class_counts: np.ndarray, n_features: int, available: int | None = None
) -> None:
    """Refuse, before any tree grows, a cascade's fit whose estimated peak exceeds the available memory.

    The check every cascade's ``fit`` makes first, for data of these class counts and features; the
    error names the estimate by part and settings that would fit.

    Parameters
    ----------
    estimator : CascadeForestClassifier, DisDFClassifier or CascadeForestRegressor
        The unfitted estimator, with the settings the fit would use.
    class_counts : array-like of int
        Training examples per class (a regressor: one entry whose value is the number of examples).
    n_features : int
        Features of the training data.
    available : int, default=None
        Bytes available; None: the environment variable ``DISDF_MEMORY_LIMIT``, else the system's.

    Raises
    ------
    disdf.InsufficientMemoryError

    Examples
    --------
    >>> from disdf import CascadeForestClassifier, InsufficientMemoryError
    >>> from disdf.cascade import check_estimator_memory
    >>> check_estimator_memory(CascadeForestClassifier(), [500, 500], n_features=20)
    >>> try:
    ...     check_estimator_memory(CascadeForestClassifier(), [500, 500], n_features=20, available=10**6)
    ... except InsufficientMemoryError:
    ...     print("refused")
    refused
    """
    e = estimator
    counts = np.asarray(class_counts)
    shape = estimator_fit_shape(e, counts, n_features)
    pairs, kept = e._pair_rows(counts), 1 if e.keep_fitted_levels == "disk" else e.max_levels
    one_job = replace(shape, n_jobs=1)
    workspace, one_job_workspace = e._solver_workspace(counts, shape.n_jobs), e._solver_workspace(counts, 1)
    check_fit_memory(
        estimator_fit_memory(e, counts, n_features),
        f"{type(e).__name__}(n_trees={e.n_trees}, max_levels={e.max_levels}, n_jobs={e.n_jobs}, "
        f"keep_fitted_levels={e.keep_fitted_levels!r}) on {int(counts.sum())} examples of "
        f"{n_features} features and {e._describe_columns(len(counts))}",
        [
            ("keep_fitted_levels='disk'", fit_memory(shape, pairs, 1, workspace)),
            ("n_jobs=1", fit_memory(one_job, pairs, kept, one_job_workspace)),
            ("keep_fitted_levels='disk' and n_jobs=1", fit_memory(one_job, pairs, 1, one_job_workspace)),
        ],
        e._memory_remedy(),
        available,
    )
