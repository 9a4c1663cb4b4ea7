"""The paper's data files: where they are, what they must be (md5), and the check that says so.

Shared by :mod:`disdf.datasets` (which parses them) and :mod:`disdf.downloads`
(which fetches a missing one); neither imports the other at module level.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

DATA_DIR_ENV = "DISDF_DATA_DIR"


@dataclass(frozen=True)
class TableSpec:
    """A UCI table: its file, md5, target column, columns to drop, UCI id and class counts, and
    where a row's subject is written, if the table has several rows per subject: (column, regex
    whose first group is the subject)."""

    filename: str
    md5: str
    target: str
    drop: tuple[str, ...]
    uci_id: int
    class_counts: dict
    subject: tuple[str, str] | None = None

    @property
    def n_rows(self) -> int:
        return sum(self.class_counts.values())


TABLES: dict[str, TableSpec] = {
    "parkinsons": TableSpec(
        "parkinsons.csv",
        "d8355ccd8e9da8171a15bd4952b4d9ab",
        "status",
        ("name",),
        174,
        {"1": 147, "0": 48},
        # 195 voice recordings of 32 subjects: phon_R01_S01_1 is subject S01's first recording
        subject=("name", r"_(S\d+)_\d+$"),
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
