"""The paper's data files: where they are, what they must be, how they are read, and the checks.

Shared by :mod:`disdf.datasets._loaders` (which loads them) and :mod:`disdf.datasets._downloads`
(which fetches a missing one); neither imports the other at module level.

What a file must be is written here, in the package, and nowhere else: a file
is the original if its md5 is the original's (every file), or, for a UCI table
rebuilt by the downloader, if its parsed content has the original's
fingerprint. Nothing placed beside a data file can vouch for it.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import numpy as np

DATA_DIR_ENV = "DISDF_DATA_DIR"


@dataclass(frozen=True)
class TableSpec:
    """A UCI table: its file, md5, target column, columns to drop, UCI id and class counts; its
    number of feature columns and the fingerprint of the original (a hash of its parsed values, which
    a re-exported file with other bytes but the same numbers keeps); and where a row's subject is
    written, if the table has several rows per subject: (column, one of ``drop``; regex whose first
    group is the subject)."""

    filename: str
    md5: str
    target: str
    drop: tuple[str, ...]
    uci_id: int
    class_counts: dict
    n_features: int
    fingerprint: str
    subject: tuple[str, str] | None = None

    def __post_init__(self) -> None:
        if self.subject is not None and self.subject[0] not in self.drop:
            raise ValueError(f"{self.filename}: subject column {self.subject[0]!r} must be one of drop")

    @property
    def n_rows(self) -> int:
        return sum(self.class_counts.values())


TABLES: dict[str, TableSpec] = {
    "parkinsons": TableSpec(
        filename="parkinsons.csv",
        md5="d8355ccd8e9da8171a15bd4952b4d9ab",
        target="status",
        drop=("name",),
        uci_id=174,
        class_counts={"1": 147, "0": 48},
        n_features=22,
        fingerprint="42db59f02037f0f539f800849ab4e0663852a4b4e77a23b922c9f682fee5eac7",
        # 195 voice recordings of 32 subjects: phon_R01_S01_1 is subject S01's first recording
        subject=("name", r"_(S\d+)_\d+$"),
    ),
    "ecoli": TableSpec(
        filename="ecoli.csv",
        md5="df82cb11a945bff38ed6cce61f3608a6",
        target="class",
        drop=("Sequence Name",),
        uci_id=39,
        class_counts={"cp": 143, "im": 77, "pp": 52, "imU": 35, "om": 20, "omL": 5, "imL": 2, "imS": 2},
        n_features=7,
        fingerprint="2669e805d02c75f3d6b7ae47aed83303746d2c3ef74c39a21cd2308607190e17",
    ),
    "ionosphere": TableSpec(
        filename="ionosphere.csv",
        md5="be08e87e8e62fb13faa8bd361b4327f2",
        target="Class",
        drop=(),
        uci_id=52,
        class_counts={"g": 225, "b": 126},
        n_features=34,
        fingerprint="fb1286bf354646dc217714fde961c1669f7b1a42fc468ea0d011bc41217fcc8a",
    ),
}

MNIST_FILES: dict[str, str] = {
    "train-images-idx3-ubyte.gz": "f68b3c2dcbeaaa9fbdd348bbdeb94873",
    "train-labels-idx1-ubyte.gz": "d53e105ee54ea40749a09fcbcd1e9432",
    "t10k-images-idx3-ubyte.gz": "9fb629c4189551a2d022fa330f9573f3",
    "t10k-labels-idx1-ubyte.gz": "ec29112dd5afa0611ce80d1b7f02629c",
}

#: The shape each MNIST file's IDX header must give (uint8 values, so always finite).
MNIST_SHAPES: dict[str, tuple[int, ...]] = {
    "train-images-idx3-ubyte.gz": (60000, 28, 28),
    "train-labels-idx1-ubyte.gz": (60000,),
    "t10k-images-idx3-ubyte.gz": (10000, 28, 28),
    "t10k-labels-idx1-ubyte.gz": (10000,),
}

DATASETS = (*TABLES, "mnist")


class DataFileError(RuntimeError):
    """A data file is missing or is not the published original."""


DEFAULT_DATA_DIR = Path.home() / ".cache" / "disdf"


def data_dir(path: str | os.PathLike | None = None) -> Path:
    """The data directory: ``path``, else ``$DISDF_DATA_DIR``, else ``~/.cache/disdf``; refused, naming
    where it came from, when it is an existing file rather than a folder."""
    chosen = path if path is not None else os.environ.get(DATA_DIR_ENV)
    folder = Path(chosen) if chosen else DEFAULT_DATA_DIR
    if folder.exists() and not folder.is_dir():
        if path is not None:
            given = "the data folder given"
        elif chosen:
            given = DATA_DIR_ENV
        else:
            given = "the default data folder"
        raise DataFileError(
            f"{given} is {folder}, which is a file, not a folder: set it to the folder that holds "
            "the data files"
        )
    return folder


def md5sum(path: Path) -> str:
    digest = hashlib.md5()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def pandas():
    """pandas parses the UCI tables; it comes with the ``data`` extra, not with the estimators."""
    try:
        import pandas
    except ImportError as error:
        raise ImportError("Reading the UCI tables needs pandas: pip install 'disdf[data]'") from error
    return pandas


# ---- checks by checksum -------------------------------------------------------------------------


def present(path: Path, fetch: Callable[[Path], None] | None = None) -> Path:
    """``path`` if it is a file, after ``fetch(path)`` if it was missing and ``fetch`` is given."""
    if not path.is_file() and fetch is not None:
        fetch(path)
    if not path.is_file():
        raise DataFileError(
            f"Data file {path} is missing. Set {DATA_DIR_ENV} to a folder that holds the original file."
        )
    return path


def altered(path: Path, found_md5: str, expected_md5: str, detail: str | None = None) -> DataFileError:
    """The error for a file that is not the original: both checksums, what else is wrong, the fix."""
    because = f"; {detail}" if detail else ""
    return DataFileError(
        f"Data file {path} is altered or truncated: md5 {found_md5}, expected {expected_md5}{because}. "
        f"Replace it with the original, set {DATA_DIR_ENV} to a folder with intact files, "
        "or delete it to have it downloaded again."
    )


def verified(path: Path, expected_md5: str, fetch: Callable[[Path], None] | None = None) -> Path:
    """``path`` if it exists and has the expected md5; otherwise a DataFileError saying how to fix it.

    A missing file is first fetched with ``fetch(path)`` when one is given.
    """
    found = md5sum(present(path, fetch))
    if found != expected_md5:
        raise altered(path, found, expected_md5)
    return path


# ---- UCI tables: parsed, checked, fingerprinted --------------------------------------------------


@dataclass(frozen=True)
class Table:
    """A parsed UCI table: features ``X`` (float64), labels ``y``, the feature column names, and
    the values of the dropped columns (identifiers, subjects) by name, in ``TableSpec.drop``'s order."""

    X: np.ndarray
    y: np.ndarray
    features: tuple[str, ...]
    dropped: dict[str, np.ndarray]


def _where(name: str, row: int, column: str) -> str:
    """A cell, as a reader finds it: row 1 is the first data row, on line 2 after the header."""
    return f"{name} row {row + 1} (line {row + 2}), column {column!r}"


def _require_columns(frame, columns: tuple[str, ...], name: str) -> None:
    missing = [column for column in columns if column not in frame.columns]
    if missing:
        raise DataFileError(f"{name} has no column {missing[0]!r}; its columns: {list(frame.columns)}")


def _as_float64(features, name: str) -> np.ndarray:
    """The feature matrix as float64 (pandas' own conversion); a cell that is no number is named."""
    try:
        return features.to_numpy(dtype=np.float64)
    except (TypeError, ValueError):
        for column in features.columns:
            for row, value in enumerate(features[column]):
                try:
                    float(value)
                except (TypeError, ValueError):
                    raise DataFileError(f"{_where(name, row, column)}: {value!r} is not a number") from None
        raise


def _require_finite(X: np.ndarray, columns: tuple[str, ...], name: str) -> None:
    bad = np.argwhere(~np.isfinite(X))
    if len(bad):
        row, column = bad[0]
        value = X[row, column]
        raise DataFileError(f"{_where(name, row, columns[column])}: {'NaN' if np.isnan(value) else value}")


#: pandas 3 parses floats correctly rounded by default (and deprecates the option); pandas 2's default
#: parser does not round-trip 17 significant digits, so a rewritten table would parse to other values.
_CORRECTLY_ROUNDED: dict[str, str] = {"float_precision": "round_trip"}


def parse_table(source: Path | IO[bytes], spec: TableSpec, name: str | None = None) -> Table:
    """Parse a UCI table's CSV and check its shape against ``spec`` and that every feature is finite.

    Parameters
    ----------
    source : path or binary file
        The CSV, with a header row.
    spec : TableSpec
        The table it must be.
    name : str, optional
        What error messages call it; by default ``source``'s path.

    Raises
    ------
    DataFileError
        Naming the file and, for a bad value, its row and column: a missing target or dropped
        column, a row count other than the class counts' total, a feature column count
        other than ``spec.n_features``, a feature that is no number, NaN or infinite.
    """
    name = name if name is not None else str(source)
    try:
        pd = pandas()
        options = _CORRECTLY_ROUNDED if int(pd.__version__.split(".")[0]) < 3 else {}
        frame = pd.read_csv(source, **options)
    except (ValueError, UnicodeDecodeError) as error:  # pandas' ParserError and EmptyDataError
        raise DataFileError(f"{name} is not a readable CSV table: {error}") from error
    _require_columns(frame, (spec.target, *spec.drop), name)
    if len(frame) != spec.n_rows:
        raise DataFileError(f"{name} has {len(frame)} rows, expected {spec.n_rows}")
    dropped = {column: frame[column].to_numpy() for column in spec.drop}
    y = frame.pop(spec.target).to_numpy()
    features = frame.drop(columns=list(spec.drop))
    if features.shape[1] != spec.n_features:
        raise DataFileError(f"{name} has {features.shape[1]} feature columns, expected {spec.n_features}")
    columns = tuple(str(column) for column in features.columns)
    X = _as_float64(features, name)
    _require_finite(X, columns, name)
    return Table(X, y, columns, dropped)


def table_fingerprint(table: Table) -> str:
    """sha256 of a parsed table, in order: the feature column names, the features as float64
    C-order little-endian bytes, the labels as strings, then each dropped column's name and values
    as strings (identifiers, and the subjects :func:`disdf.load_subjects` reads). Each part
    is length-prefixed, so no two contents share a byte stream."""
    parts = [
        json.dumps(list(table.features)).encode(),
        np.ascontiguousarray(table.X, dtype="<f8").tobytes(),
        json.dumps([str(label) for label in table.y]).encode(),
    ]
    for column, values in table.dropped.items():
        parts.append(json.dumps([column, *(str(value) for value in values)]).encode())
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "little"))
        digest.update(part)
    return digest.hexdigest()


def verified_table(path: Path, spec: TableSpec, fetch: Callable[[Path], None] | None = None) -> Table:
    """The parsed table at ``path`` if it is the original: the original's md5, or (a table rebuilt
    by the downloader, whose bytes may differ) the original's parsed content.

    A missing file is first fetched with ``fetch(path)`` when one is given. An altered file is
    refused with both md5s and, when its parse says so, what is wrong with it.
    """
    found = md5sum(present(path, fetch))
    if found == spec.md5:  # the original's bytes: the checks pass, unless the spec itself is wrong
        return parse_table(path, spec)
    try:
        table = parse_table(path, spec, path.name)
    except DataFileError as error:
        raise altered(path, found, spec.md5, str(error)) from error
    if table_fingerprint(table) != spec.fingerprint:
        raise altered(path, found, spec.md5, "its parsed content is not the original's either")
    return table


# ---- MNIST ---------------------------------------------------------------------------------------


def _shape_text(shape: tuple[int, ...]) -> str:
    return " x ".join(str(size) for size in shape)


def read_idx(path: Path, shape: tuple[int, ...]) -> np.ndarray:
    """A gzip IDX file of uint8 values, which must hold ``shape``: the IDX header and the bytes after it.

    Raises
    ------
    DataFileError
        Naming the file: not gzip, another IDX type or shape in the header, or too few or too many
        bytes of values for that shape.
    """
    try:
        with gzip.open(path, "rb") as handle:
            raw = handle.read()
    except (OSError, EOFError) as error:  # gzip.BadGzipFile is an OSError
        raise DataFileError(f"{path} is not a readable gzip file: {error}") from error
    magic = int.from_bytes(raw[:4], "big")
    n_dims = magic & 0xFF
    found = tuple(int.from_bytes(raw[4 + 4 * d : 8 + 4 * d], "big") for d in range(n_dims))
    if magic != 0x0800 + len(shape) or found != shape:
        raise DataFileError(
            f"{path} holds {_shape_text(found)} values (IDX magic {magic}), "
            f"expected {_shape_text(shape)} (IDX magic {0x0800 + len(shape)})"
        )
    header = 4 + 4 * n_dims
    if len(raw) - header != math.prod(shape):
        raise DataFileError(
            f"{path} has {len(raw) - header} bytes of values, expected {math.prod(shape)} "
            f"for {_shape_text(shape)}"
        )
    return np.frombuffer(raw, dtype=np.uint8, offset=header).reshape(shape)
