"""The paper's datasets, read from a local data directory and checked against the package's checksums.

The directory (the ``data_dir`` argument, else ``$DISDF_DATA_DIR``, else
``~/.cache/disdf``) holds ``parkinsons.csv``, ``ecoli.csv``, ``ionosphere.csv``
and ``mnist/*.gz`` in the formats of the project's shared data (UCI tables as
CSV with a header row, MNIST as the original gzip IDX files). Every file is
verified against the md5 of the published original, written in
:mod:`disdf.datasets._files`, before it is used, and its parsed shape and values are
checked.

A missing file is downloaded once (``download=True``, see
:mod:`disdf.datasets._downloads`) and written into the directory, so later runs are
offline. A UCI table rebuilt from ucimlrepo may not have the original's bytes;
it is accepted only if its parsed content has the original's fingerprint (also
written in the package). A ``<file>.md5`` beside a file, written by older
versions, is ignored: nothing in the data folder can vouch for the data.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from disdf.datasets._files import (
    DATA_DIR_ENV,
    DATASETS,
    DEFAULT_DATA_DIR,
    MNIST_FILES,
    MNIST_SHAPES,
    TABLES,
    DataFileError,
    TableSpec,
    data_dir,
    md5sum,
    pandas,
    read_idx,
    verified,
    verified_table,
)

__all__ = [
    "DATASETS",
    "DATA_DIR_ENV",
    "DEFAULT_DATA_DIR",
    "MNIST_FILES",
    "MNIST_SHAPES",
    "TABLES",
    "DataFileError",
    "TableSpec",
    "data_dir",
    "load_dataset",
    "load_mnist",
    "load_subjects",
    "md5sum",
    "mnist_files",
    "verified",
]


def mnist_files(data_dir_path: str | os.PathLike | None = None, download: bool = True) -> dict[str, Path]:
    """MNIST's four IDX files, md5-checked (downloaded first if missing and ``download``), by name."""
    from disdf.datasets._downloads import fetch_mnist_file

    folder = data_dir(data_dir_path) / "mnist"
    return {
        name: verified(folder / name, md5, fetch_mnist_file if download else None)
        for name, md5 in MNIST_FILES.items()
    }


def load_mnist(
    data_dir_path: str | os.PathLike | None = None, download: bool = True
) -> dict[str, np.ndarray]:
    """MNIST's train (60,000) and test (10,000) splits; pixels as float64 in [0, 255]."""
    paths = mnist_files(data_dir_path, download)
    arrays = {name: read_idx(path, MNIST_SHAPES[name]) for name, path in paths.items()}
    return {
        "X_train": arrays["train-images-idx3-ubyte.gz"].reshape(-1, 784).astype(np.float64),
        "y_train": arrays["train-labels-idx1-ubyte.gz"].astype(np.int64),
        "X_test": arrays["t10k-images-idx3-ubyte.gz"].reshape(-1, 784).astype(np.float64),
        "y_test": arrays["t10k-labels-idx1-ubyte.gz"].astype(np.int64),
    }


def load_dataset(
    name: str, data_dir_path: str | os.PathLike | None = None, download: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """X (float64) and y of a UCI table; for ``"mnist"``, the training split."""
    from disdf.datasets._downloads import fetch_uci_table

    if name == "mnist":
        mnist = load_mnist(data_dir_path, download)
        return mnist["X_train"], mnist["y_train"]
    if name not in TABLES:
        raise ValueError(f"Unknown dataset {name!r}; expected one of {DATASETS}")
    spec = TABLES[name]
    fetch = (lambda path: fetch_uci_table(spec, path)) if download else None
    table = verified_table(data_dir(data_dir_path) / spec.filename, spec, fetch)
    return table.X, table.y


def load_subjects(name: str, data_dir_path: str | os.PathLike | None = None) -> np.ndarray:
    """The subject of every row of a UCI table, in :func:`load_dataset`'s row order.

    Only tables with several rows per subject have them (Parkinsons: 195 recordings of 32
    subjects); a ValueError names the others.
    """
    spec = TABLES.get(name)
    if spec is None or spec.subject is None:
        with_subjects = sorted(n for n, s in TABLES.items() if s.subject is not None)
        raise ValueError(f"Dataset {name!r} has no subjects; datasets with subjects: {with_subjects}")
    column, pattern = spec.subject
    path = data_dir(data_dir_path) / spec.filename
    names = pandas().Series(verified_table(path, spec).dropped[column], name=column)
    subjects = names.str.extract(pattern, expand=False)
    if subjects.isna().any():
        raise ValueError(f"{path}: {column} {names[subjects.isna()].iloc[0]!r} does not match {pattern!r}")
    return subjects.to_numpy()
