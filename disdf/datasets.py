"""The paper's datasets, read from a local data directory and checked by md5.

The directory (the ``data_dir`` argument, else ``$DISDF_DATA_DIR``, else
``~/.cache/disdf``) holds ``parkinsons.csv``, ``ecoli.csv``, ``ionosphere.csv``
and ``mnist/*.gz`` in the formats of the project's shared data (UCI tables as
CSV with a header row, MNIST as the original gzip IDX files). Every file is
verified against the md5 of the published original before it is parsed.

A missing file is downloaded once (``download=True``, see
:mod:`disdf.downloads`) and written into the directory, so later runs are
offline. A UCI table rebuilt from ucimlrepo cannot have the original's bytes;
it is checked against the published row and class counts instead, and its
own md5 is recorded beside it (``<file>.md5``) so later reads still detect a
truncated or altered file.
"""

from __future__ import annotations

import gzip
import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

DATA_DIR_ENV = "DISDF_DATA_DIR"


@dataclass(frozen=True)
class TableSpec:
    """A UCI table: its file, md5, target column, columns to drop, UCI id and class counts."""

    filename: str
    md5: str
    target: str
    drop: tuple[str, ...]
    uci_id: int
    class_counts: dict

    @property
    def n_rows(self) -> int:
        return sum(self.class_counts.values())


TABLES: dict[str, TableSpec] = {
    "parkinsons": TableSpec(
        "parkinsons.csv", "d8355ccd8e9da8171a15bd4952b4d9ab", "status", ("name",), 174, {"1": 147, "0": 48}
    ),
    "ecoli": TableSpec(
        "ecoli.csv",
        "df82cb11a945bff38ed6cce61f3608a6",
        "class",
        ("Sequence Name",),
        39,
        {"cp": 143, "im": 77, "pp": 52, "imU": 35, "om": 20, "omL": 5, "imL": 2, "imS": 2},
    ),
    "ionosphere": TableSpec(
        "ionosphere.csv", "be08e87e8e62fb13faa8bd361b4327f2", "Class", (), 52, {"g": 225, "b": 126}
    ),
}

MNIST_FILES: dict[str, str] = {
    "train-images-idx3-ubyte.gz": "f68b3c2dcbeaaa9fbdd348bbdeb94873",
    "train-labels-idx1-ubyte.gz": "d53e105ee54ea40749a09fcbcd1e9432",
    "t10k-images-idx3-ubyte.gz": "9fb629c4189551a2d022fa330f9573f3",
    "t10k-labels-idx1-ubyte.gz": "ec29112dd5afa0611ce80d1b7f02629c",
}

DATASETS = (*TABLES, "mnist")


class DataFileError(RuntimeError):
    """A data file is missing or is not the published original."""


DEFAULT_DATA_DIR = Path.home() / ".cache" / "disdf"


def data_dir(path: str | os.PathLike | None = None) -> Path:
    """The data directory: ``path``, else ``$DISDF_DATA_DIR``, else ``~/.cache/disdf``."""
    chosen = path if path is not None else os.environ.get(DATA_DIR_ENV)
    return Path(chosen) if chosen else DEFAULT_DATA_DIR


def md5sum(path: Path) -> str:
    digest = hashlib.md5()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def recorded_md5(path: Path) -> str | None:
    """The md5 our downloader recorded beside a file it rebuilt, if any."""
    sidecar = path.with_name(path.name + ".md5")
    return sidecar.read_text().split()[0] if sidecar.is_file() else None


def verified(path: Path, expected_md5: str, fetch: Callable[[Path], None] | None = None) -> Path:
    """``path`` if it exists and has the expected md5; otherwise a DataFileError saying how to fix it.

    A missing file is first fetched with ``fetch(path)`` when one is given.
    """
    if not path.is_file() and fetch is not None:
        fetch(path)
    if not path.is_file():
        raise DataFileError(
            f"Data file {path} is missing. Set {DATA_DIR_ENV} to a folder that holds the original file."
        )
    found = md5sum(path)
    if found != expected_md5 and found != recorded_md5(path):
        raise DataFileError(
            f"Data file {path} is altered or truncated: md5 {found}, expected {expected_md5}. "
            f"Replace it with the original, or set {DATA_DIR_ENV} to a folder with intact files."
        )
    return path


def _read_idx(path: Path) -> np.ndarray:
    with gzip.open(path, "rb") as handle:
        raw = handle.read()
    magic = int.from_bytes(raw[:4], "big")
    n_dims = magic & 0xFF
    shape = tuple(int.from_bytes(raw[4 + 4 * d : 8 + 4 * d], "big") for d in range(n_dims))
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * n_dims).reshape(shape)


def mnist_files(data_dir_path: str | os.PathLike | None = None, download: bool = True) -> dict[str, Path]:
    """MNIST's four IDX files, md5-checked (downloaded first if missing and ``download``), by name."""
    from disdf.downloads import fetch_mnist_file

    folder = data_dir(data_dir_path) / "mnist"
    return {
        name: verified(folder / name, md5, fetch_mnist_file if download else None)
        for name, md5 in MNIST_FILES.items()
    }


def load_mnist(
    data_dir_path: str | os.PathLike | None = None, download: bool = True
) -> dict[str, np.ndarray]:
    """MNIST's train (60,000) and test (10,000) splits; pixels as float64 in [0, 255]."""
    arrays = {name: _read_idx(path) for name, path in mnist_files(data_dir_path, download).items()}
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
    from disdf.downloads import fetch_uci_table

    if name == "mnist":
        mnist = load_mnist(data_dir_path, download)
        return mnist["X_train"], mnist["y_train"]
    if name not in TABLES:
        raise ValueError(f"Unknown dataset {name!r}; expected one of {DATASETS}")
    spec = TABLES[name]
    fetch = (lambda path: fetch_uci_table(spec, path)) if download else None
    path = verified(data_dir(data_dir_path) / spec.filename, spec.md5, fetch)
    frame = pd.read_csv(path)
    y = frame.pop(spec.target).to_numpy()
    X = frame.drop(columns=list(spec.drop)).to_numpy(dtype=np.float64)
    return X, y
