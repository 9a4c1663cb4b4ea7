"""The paper's protocol (section 6): seeds, splits and the units of work.

A unit is one (dataset, N, T, method, repetition). The split and the
estimator's seed depend only on (dataset, N, repetition, protocol seed), so
every T and both methods see the same examples (a paired design) and gcForest
and DisDF grow the same first-level trees.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from itertools import product

import numpy as np

from disdf.datasets import load_dataset, load_mnist

METHODS = ("gcforest", "disdf")


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
class Pool:
    """Where a dataset's training and test examples are drawn from."""

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray | None = None  # None: draw test examples from the training pool
    y_test: np.ndarray | None = None


@dataclass(frozen=True)
class Split:
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray


@cache  # the command's checks and its run read the same files: once
def load_pool(name: str, data_dir: str | None) -> Pool:
    """MNIST: train from its training split, test from its test split; UCI: one pool."""
    if name == "mnist":
        mnist = load_mnist(data_dir)
        return Pool(mnist["X_train"], mnist["y_train"], mnist["X_test"], mnist["y_test"])
    X, y = load_dataset(name, data_dir)
    return Pool(X, y)


def test_size(N: int, test_fraction: float) -> int:
    """round(2N/3) test examples for the paper's test_fraction = 2/3."""
    return round(test_fraction * N)


def split_seed(dataset: str, N: int, repetition: int, base_seed: int) -> int:
    """A 31-bit seed derived from (dataset, N, repetition, base seed), stable across runs and machines."""
    digest = hashlib.sha256(f"{dataset}|{N}|{repetition}|{base_seed}".encode()).digest()
    return int.from_bytes(digest[:4], "little") & 0x7FFFFFFF


def draw_split(
    pool: Pool, N: int, n_test: int, seed: int, dataset: str = "dataset", cap_test: bool = False
) -> Split:
    """N training and n_test test examples, without replacement.

    With ``cap_test``, a pool too small for N + n_test gives all its remaining
    examples to the test set (Parkinsons has 195 examples, so N = 120 leaves
    75, not round(2N/3) = 80); otherwise that is an error.
    """
    rng = np.random.default_rng(seed)
    if pool.X_test is None:
        available = len(pool.y_train)
        if cap_test and N < available:
            n_test = min(n_test, available - N)
        if N + n_test > available:
            raise ValueError(
                f"{dataset}: N={N} training + {n_test} test examples exceed its {available} examples"
                + ("" if cap_test else " (protocol.cap_test_size=true would test on the remaining ones)")
            )
        order = rng.permutation(len(pool.y_train))
        train, test = order[:N], order[N : N + n_test]
        return Split(pool.X_train[train], pool.y_train[train], pool.X_train[test], pool.y_train[test])
    if N > len(pool.y_train) or n_test > len(pool.y_test):
        raise ValueError(
            f"{dataset}: N={N} / {n_test} test examples exceed its {len(pool.y_train)} training / "
            f"{len(pool.y_test)} test examples"
        )
    train = rng.choice(len(pool.y_train), size=N, replace=False)
    test = rng.choice(len(pool.y_test), size=n_test, replace=False)
    return Split(pool.X_train[train], pool.y_train[train], pool.X_test[test], pool.y_test[test])


def all_units(datasets, Ns, Ts, methods, repetitions: int) -> list[Unit]:
    """Every unit, repetition-major: a run stopped early covers every cell about equally."""
    return [
        Unit(dataset, N, T, method, r)
        for r, dataset, N, T, method in product(range(repetitions), datasets, Ns, Ts, methods)
    ]
