"""The paper's protocol (section 6): seeds, splits and the units of work.

A unit is one (dataset, N, T, method, repetition). The split and the
estimator's seed depend only on (dataset, N, repetition, protocol seed), so
every T and both methods see the same examples (a paired design) and gcForest
and DisDF grow the same first-level trees.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from functools import cache
from itertools import product

import numpy as np
from sklearn.model_selection import train_test_split

from disdf.utils import Boolean, Float, Integer, OneOf, check_parameters
from experiments.running.cross_validation import FIVE_BY_TWO_REPETITIONS, SPLIT_SCHEMES, five_by_two_folds
from experiments.running.datasets import REGISTRY, DatasetEntry, Pool
from experiments.running.keel import KEEL_PREFIX, KEEL_TABLES, is_keel, keel_rows, load_keel

#: How the N training (and the test) examples are drawn: uniformly, or in the pool's class proportions.
TRAIN_DRAWS = ("random", "stratified")
#: What keeps examples together across the split: whole subjects on one side (Parkinsons).
SPLIT_GROUPS = ("subject",)
#: Data-handling faults the audit simulates: labels shuffled against their rows (once per dataset,
#: as a mis-read file would), or a binary test set's class coding inverted.
LABEL_FAULTS = ("none", "misaligned", "inverted_test")
#: The protocol's scalars, by the same tables as the estimators' parameters (disdf._utils.parameters).
PROTOCOL_PARAMETERS = {
    "repetitions": Integer(1),
    "test_fraction": Float(0.0, low_open=True),
    "seed": Integer(0),
    "cap_test_size": Boolean(),
    "train_draw": OneOf(TRAIN_DRAWS),
    "split_groups": OneOf(SPLIT_GROUPS, none=True),
    "label_fault": OneOf(LABEL_FAULTS),
    "split_scheme": OneOf(SPLIT_SCHEMES),
}


@dataclass(frozen=True)
class Unit:
    dataset: str
    N: int
    T: int
    method: str
    repetition: int

    @property
    def key(self) -> tuple:
        return (self.dataset, self.N, self.T, self.method, self.repetition)


@dataclass(frozen=True)
class ProtocolPlan:
    """Section 6's grid, data and split rule, as a run decided them
    (:func:`experiments.running.plan.plan_run`; see :class:`experiments.running.config.ProtocolConfig`)."""

    methods: tuple[str, ...]
    Ns: tuple[int, ...]
    Ts: tuple[int, ...]
    repetitions: int
    test_fraction: float
    cap_test_size: bool
    seed: int
    train_draw: str
    split_groups: str | None
    label_fault: str
    datasets: tuple[str, ...] = ()
    #: The data folder (None: the library's default).
    data_dir: str | None = None
    #: "holdout" (the paper's) or "5x2cv" (:mod:`experiments.running.cross_validation`; N is the row cap).
    split_scheme: str = "holdout"
    #: Each record carries its confusion counts (:class:`experiments.running.config.ProtocolConfig`).
    record_confusion: bool = False

    def __post_init__(self) -> None:
        """Refuse an impossible grid as the plan is decided: each message names the setting."""
        unknown = [name for name in self.datasets if name not in REGISTRY and not is_keel(name)]
        if unknown or not self.datasets:
            raise ValueError(
                f"datasets must name one or more of {tuple(REGISTRY)} or a KEEL table as keel_<name> "
                f"({', '.join(KEEL_TABLES)}); got {list(self.datasets)} (unknown: {unknown})"
            )
        for name in ("Ns", "Ts"):
            values = getattr(self, name)
            if not values or min(values) <= 0:
                raise ValueError(
                    f"protocol.{name} must be a non-empty list of positive integers; got {list(values)}"
                )
        for name, values in (("datasets", self.datasets), ("protocol.Ns", self.Ns), ("protocol.Ts", self.Ts)):
            repeated = sorted({value for value in values if values.count(value) > 1})
            if repeated:
                raise ValueError(
                    f"{name} lists {repeated} more than once; got {list(values)} (each would run twice)"
                )
        check_parameters("protocol", PROTOCOL_PARAMETERS, vars(self))
        if self.split_scheme == "5x2cv":
            self._check_cross_validation()

    def _check_cross_validation(self) -> None:
        """5 x 2-fold CV: ten repetitions, one pool, no groups; each message names its setting."""
        if self.repetitions > FIVE_BY_TWO_REPETITIONS:  # fewer: the first folds (a sample of the design)
            raise ValueError(
                f"protocol.split_scheme=5x2cv has {FIVE_BY_TWO_REPETITIONS} folds: protocol.repetitions "
                f"must be at most {FIVE_BY_TWO_REPETITIONS}; got {self.repetitions}"
            )
        if self.split_groups is not None or "mnist" in self.datasets:
            raise ValueError(
                "protocol.split_scheme=5x2cv splits one pool without groups: protocol.split_groups must be "
                f"null and datasets must not name mnist; got split_groups={self.split_groups}, "
                f"datasets={list(self.datasets)}"
            )

    def units(self) -> list[Unit]:
        """Every unit, repetition-major (:func:`all_units`)."""
        return all_units(self.datasets, self.Ns, self.Ts, self.methods, self.repetitions)

    def pool(self, dataset: str) -> Pool:
        """A dataset's pool as the protocol asks for it (groups, simulated faults)."""
        return load_pool(dataset, self.data_dir, self.split_groups, self.label_fault)

    def checked_pools(self) -> dict[str, Pool]:
        """Every dataset's pool, once each (N, dataset) is shown to draw a split of the protocol's sizes
        (they do not depend on the seed); else a ValueError naming protocol.Ns or test_fraction."""
        fraction, Ns = self.test_fraction, self.Ns
        for N in Ns:
            if test_size(N, fraction) < 1:
                raise ValueError(
                    f"protocol.test_fraction={fraction:g} gives round({fraction:g} x {N}) = "
                    f"{test_size(N, fraction)} test examples at N={N} (protocol.Ns); a split needs at least 1"
                )
        pools = {name: self.pool(name) for name in self.datasets}
        for name, pool in pools.items():
            for N in Ns:
                try:
                    self.split(pool, Unit(name, N, 0, "", 0), 0)
                except ValueError as error:
                    raise ValueError(f"protocol.Ns={list(Ns)}: {error}") from None
        return pools

    def split_seed(self, unit: Unit) -> int:
        """The seed of ``unit``'s split and estimators: shared by every T and method of a split."""
        return split_seed(unit.dataset, unit.N, unit.repetition, self.seed)

    def split(self, pool: Pool, unit: Unit, seed: int) -> Split:
        """The training and test examples of ``unit``'s split, drawn as the protocol asks."""
        if self.split_scheme == "5x2cv":
            train, test = self.folds(pool, unit.dataset, unit.N)[unit.repetition]
            return with_inversion(
                Split(pool.X_train[train], pool.y_train[train], pool.X_train[test], pool.y_train[test]), pool
            )
        n_test = test_size(unit.N, self.test_fraction)
        return draw_split(pool, unit.N, n_test, seed, unit.dataset, self.cap_test_size, self.train_draw)

    def folds(self, pool: Pool, dataset: str, cap: int) -> list[tuple]:
        """5 x 2-fold CV's ten (train, test) positions of ``dataset`` at row cap ``cap``."""
        subsample_seed = split_seed(dataset, cap, -1, self.seed)
        return five_by_two_folds(pool.y_train, cap, subsample_seed, split_seed(dataset, cap, 0, self.seed))

    def expected_test_size(self, dataset: str, N: int) -> int:
        """The split rule's test-set size: round(test_fraction N), or every remaining example of a UCI
        table too small for both (``cap_test_size``); 5 x 2-fold CV: its largest fold."""
        if self.split_scheme == "5x2cv":
            return max(len(test) for _, test in self.folds(self.pool(dataset), dataset, N))
        n_test = test_size(N, self.test_fraction)
        rows = (
            REGISTRY[dataset].n_rows
            if dataset in REGISTRY
            else keel_rows(dataset)
            if is_keel(dataset)
            else None
        )
        if rows is not None and self.cap_test_size and N < rows:
            n_test = min(n_test, rows - N)
        return n_test


@dataclass(frozen=True)
class Split:
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray


def load_pool(
    name: str, data_dir: str | None, split_groups: str | None = None, label_fault: str = "none"
) -> Pool:
    """The pool of a registered dataset (:mod:`experiments.running.datasets`: MNIST's training and test
    splits, a UCI table's one pool) or of a KEEL table (one pool).

    ``split_groups="subject"`` attaches each row's subject (Parkinsons); ``label_fault`` applies
    one of :data:`LABEL_FAULTS` (the audit's simulated faults; "none" reads the data as it is).
    """
    source = None if is_keel(name) else REGISTRY[name]  # a name registered anew reads its new entry
    return _read_pool(name, source, data_dir, split_groups, label_fault)


@cache  # the command's checks and its run read the same files: once
def _read_pool(
    name: str, source: DatasetEntry | None, data_dir: str | None, split_groups: str | None, label_fault: str
) -> Pool:
    if source is None:  # the benchmark's KEEL tables: one pool, as the paper's UCI tables
        if split_groups is not None:
            raise ValueError(f"protocol.split_groups={split_groups}: {name} has no {split_groups} groups")
        table = load_keel(name.removeprefix(KEEL_PREFIX))
        return with_label_fault(Pool(table.X, table.y), label_fault, name)
    return with_label_fault(source.load(data_dir, split_groups), label_fault, name)


def with_label_fault(pool: Pool, fault: str, name: str) -> Pool:
    """The pool with a simulated data-handling fault (see :data:`LABEL_FAULTS`)."""
    if fault == "none":
        return pool
    if fault == "misaligned":  # one fixed shuffle per dataset: every split sees the same wrong file
        order = np.random.default_rng(split_seed(name, 0, 0, 0)).permutation(len(pool.y_train))
        return replace(pool, y_train=pool.y_train[order])
    if fault == "inverted_test":
        classes = np.unique(pool.y_train)
        if len(classes) != 2:
            raise ValueError(
                f"protocol.label_fault=inverted_test needs two classes; {name} has {len(classes)}"
            )
        return replace(pool, inverted=tuple(classes))
    raise ValueError(f"protocol.label_fault must be one of {list(LABEL_FAULTS)}; got {fault!r}")


def test_size(N: int, test_fraction: float) -> int:
    """round(2N/3) test examples for the paper's test_fraction = 2/3."""
    return round(test_fraction * N)


def split_seed(dataset: str, N: int, repetition: int, base_seed: int) -> int:
    """A 31-bit seed derived from (dataset, N, repetition, base seed), stable across runs and machines."""
    digest = hashlib.sha256(f"{dataset}|{N}|{repetition}|{base_seed}".encode()).digest()
    return int.from_bytes(digest[:4], "little") & 0x7FFFFFFF


def draw_split(
    pool: Pool,
    N: int,
    n_test: int,
    seed: int,
    dataset: str = "dataset",
    cap_test: bool = False,
    train_draw: str = "random",
) -> Split:
    """N training and n_test test examples, without replacement.

    With ``cap_test``, a pool too small for N + n_test gives all its remaining
    examples to the test set (Parkinsons has 195 examples, so N = 120 leaves
    75, not round(2N/3) = 80); otherwise that is an error.
    ``train_draw="stratified"`` draws both sides in the pool's class
    proportions (scikit-learn's stratified shuffle split); a pool with
    ``groups`` is split by :func:`group_split`.
    """
    if pool.groups is not None:
        split = group_split(pool, N, n_test, seed, dataset, cap_test)
    elif pool.X_test is None:
        split = _one_pool_split(pool, N, n_test, seed, dataset, cap_test, train_draw)
    else:
        split = _two_pool_split(pool, N, n_test, seed, dataset, train_draw)
    return with_inversion(split, pool)


def with_inversion(split: Split, pool: Pool) -> Split:
    """The split with the pool's simulated inversion of a binary test set's labels, if it has one."""
    if pool.inverted is None:
        return split
    a, b = pool.inverted
    return replace(split, y_test=np.where(split.y_test == a, b, a))


def _capped_test_size(N: int, n_test: int, available: int, dataset: str, cap_test: bool) -> int:
    if cap_test and N < available:
        n_test = min(n_test, available - N)
    if N + n_test > available:
        raise ValueError(
            f"{dataset}: N={N} training + {n_test} test examples exceed its {available} examples"
            + ("" if cap_test else " (protocol.cap_test_size=true would test on the remaining ones)")
        )
    return n_test


def _one_pool_split(pool, N, n_test, seed, dataset, cap_test, train_draw) -> Split:
    n_test = _capped_test_size(N, n_test, len(pool.y_train), dataset, cap_test)
    if train_draw == "stratified":
        train, test = train_test_split(
            np.arange(len(pool.y_train)),
            train_size=N,
            test_size=n_test,
            stratify=pool.y_train,
            random_state=seed,
        )
    else:
        order = np.random.default_rng(seed).permutation(len(pool.y_train))
        train, test = order[:N], order[N : N + n_test]
    return Split(pool.X_train[train], pool.y_train[train], pool.X_train[test], pool.y_train[test])


def _two_pool_split(pool, N, n_test, seed, dataset, train_draw) -> Split:
    if N > len(pool.y_train) or n_test > len(pool.y_test):
        raise ValueError(
            f"{dataset}: N={N} / {n_test} test examples exceed its {len(pool.y_train)} training / "
            f"{len(pool.y_test)} test examples"
        )
    if train_draw == "stratified":
        train_seed, test_seed = np.random.default_rng(seed).integers(2**31 - 1, size=2)
        train = _stratified_sample(pool.y_train, N, int(train_seed))
        test = _stratified_sample(pool.y_test, n_test, int(test_seed))
    else:
        rng = np.random.default_rng(seed)
        train = rng.choice(len(pool.y_train), size=N, replace=False)
        test = rng.choice(len(pool.y_test), size=n_test, replace=False)
    return Split(pool.X_train[train], pool.y_train[train], pool.X_test[test], pool.y_test[test])


def _stratified_sample(y: np.ndarray, size: int, seed: int) -> np.ndarray:
    """``size`` positions of y in its class proportions (scikit-learn's stratified shuffle split)."""
    indices = np.arange(len(y))
    if size == len(y):
        return indices
    return train_test_split(indices, train_size=size, stratify=y, random_state=seed)[0]


def group_split(
    pool: Pool, N: int, n_test: int, seed: int, dataset: str = "dataset", cap_test: bool = False
) -> Split:
    """N training and n_test test examples such that no group has rows on both sides.

    Groups are taken in a seeded random order that interleaves the groups'
    classes in proportion (a group's class is its rows' most frequent label;
    Parkinsons' subjects each have one), so that every prefix, and hence each
    side, holds groups of every class about as the pool does: at N = 50 a
    uniform order of Parkinsons' 24 ill and 8 healthy subjects often gives a
    training set of one class. Each group's rows are shuffled. The training side
    takes whole groups until the next one would pass N, and then
    the first rows of that group to reach exactly N; the rest of that group is
    used by neither side. The test side does the same from the following groups
    (with ``cap_test``, all of them if they hold fewer than n_test rows). So the
    sizes are the protocol's, and a subject's other recordings never reach the
    test set.
    """
    rng = np.random.default_rng(seed)
    rows = [rng.permutation(np.flatnonzero(pool.groups == g)) for g in _class_interleaved_groups(pool, rng)]
    train, used = _take_rows(rows, N)
    remaining = rows[used:]
    available = sum(len(r) for r in remaining)
    if cap_test:
        n_test = min(n_test, available)
    if len(train) < N or n_test > available or n_test < 1:
        raise ValueError(
            f"{dataset}: N={N} training rows by whole groups leave {available} rows of other groups "
            f"for {n_test} test examples"
        )
    test, _ = _take_rows(remaining, n_test)
    return Split(pool.X_train[train], pool.y_train[train], pool.X_train[test], pool.y_train[test])


def _class_interleaved_groups(pool: Pool, rng: np.random.Generator) -> np.ndarray:
    """The pool's groups in a random order in which each class's groups are spread evenly: the
    i-th of a class's n groups (shuffled) gets the position (i + u) / n, u uniform in [0, 1)."""
    if pool.groups is None:
        raise ValueError("splitting by subject needs the pool's groups (a table with a subject column)")
    groups = np.unique(pool.groups)
    labels = np.array([_most_frequent(pool.y_train[pool.groups == g]) for g in groups])
    position = np.empty(len(groups))
    for label in np.unique(labels):
        members = rng.permutation(np.flatnonzero(labels == label))
        position[members] = (np.arange(len(members)) + rng.random(len(members))) / len(members)
    return groups[np.argsort(position, kind="stable")]


def _most_frequent(values: np.ndarray):
    kinds, counts = np.unique(values, return_counts=True)
    return kinds[np.argmax(counts)]


def _take_rows(groups_rows: list[np.ndarray], size: int) -> tuple[np.ndarray, int]:
    """The first ``size`` rows of the concatenated groups, and how many groups they touch."""
    taken, count = [], 0
    for used, rows in enumerate(groups_rows, start=1):
        taken.append(rows[: size - count])
        count += len(taken[-1])
        if count == size:
            return np.concatenate(taken), used
    return np.concatenate(taken) if taken else np.empty(0, dtype=int), len(groups_rows)


def all_units(datasets, Ns, Ts, methods, repetitions: int) -> list[Unit]:
    """Every unit, repetition-major: a run stopped early covers every cell about equally."""
    return [
        Unit(dataset, N, T, method, r)
        for r, dataset, N, T, method in product(range(repetitions), datasets, Ns, Ts, methods)
    ]
