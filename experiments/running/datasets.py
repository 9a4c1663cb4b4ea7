"""The reproduction's datasets, one entry each: how a dataset's pool is read (its loader, which checks
the file against its checksum), how the reports name it, and how many rows its one pool holds.

Adding a dataset to the reproduction touches one place: a UCI table is one ``TableSpec`` of
:data:`disdf.datasets.TABLES` (file, checksum, columns, class counts), which becomes an entry here
with its name capitalised; any other dataset is one :func:`register` call with its own loader. A run
then names it in ``datasets`` (the protocol's sizes N, T and the test fraction are the run's), and
every table, figure and section of its report reads its name from :data:`DISPLAY_NAMES`. The
benchmark's KEEL tables are a family of their own (``keel_<name>``,
:mod:`experiments.running.keel`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from disdf import load_dataset, load_mnist, load_subjects
from disdf.datasets import TABLES


@dataclass(frozen=True)
class Pool:
    """Where a dataset's training and test examples are drawn from."""

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray | None = None  # None: draw test examples from the training pool
    y_test: np.ndarray | None = None
    groups: np.ndarray | None = None  # a training-pool row's group (split_groups): never on both sides
    inverted: tuple | None = None  # label_fault=inverted_test: the two classes, swapped in test labels


#: A dataset's loader: (data folder or None for the default, split_groups or None) -> its pool.
Loader = Callable[[str | None, str | None], Pool]


@dataclass(frozen=True)
class DatasetEntry:
    """One dataset of the reproduction.

    ``load`` reads its pool (checking its file's checksum); ``display_name`` is how reports name it;
    ``n_rows`` is the size of its one pool (a UCI table: ``protocol.cap_test_size`` caps its test side
    to the rows N leaves), None when its test examples come from a test split of their own (MNIST).
    """

    name: str
    display_name: str
    load: Loader
    n_rows: int | None = None


#: Every dataset a run may name (besides the KEEL tables), by name.
REGISTRY: dict[str, DatasetEntry] = {}
#: How the reports name each registered dataset (the records use the lower-case keys).
DISPLAY_NAMES: dict[str, str] = {}


def register(entry: DatasetEntry) -> None:
    """Make ``entry`` a dataset runs may name; its name must be new."""
    if entry.name in REGISTRY:
        raise ValueError(f"a dataset named {entry.name!r} is registered already")
    REGISTRY[entry.name] = entry
    DISPLAY_NAMES[entry.name] = entry.display_name


def unregister(name: str) -> None:
    """Remove a registered dataset (a test's toy dataset)."""
    del REGISTRY[name], DISPLAY_NAMES[name]


def _uci_loader(name: str) -> Loader:
    def load(data_dir: str | None, split_groups: str | None) -> Pool:
        X, y = load_dataset(name, data_dir)
        groups = None if split_groups is None else load_subjects(name, data_dir)
        return Pool(X, y, groups=groups)

    return load


def _load_mnist(data_dir: str | None, split_groups: str | None) -> Pool:
    """MNIST: training examples from its training split, test examples from its test split."""
    if split_groups is not None:
        raise ValueError(f"protocol.split_groups={split_groups}: mnist has no {split_groups} groups")
    mnist = load_mnist(data_dir)
    return Pool(mnist["X_train"], mnist["y_train"], mnist["X_test"], mnist["y_test"])


for _name, _spec in TABLES.items():
    register(DatasetEntry(_name, _name.capitalize(), _uci_loader(_name), n_rows=_spec.n_rows))
register(DatasetEntry("mnist", "MNIST", _load_mnist))
