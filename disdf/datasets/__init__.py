"""The paper's datasets (Parkinsons, Ecoli, Ionosphere, MNIST), read from ``DISDF_DATA_DIR`` and
checked against their checksums; a missing file is fetched once.

Each table is one entry of :data:`TABLES` (its file, checksum, columns and source); MNIST's four
files are read by :func:`mnist_files` and :func:`read_idx`, with the shapes :data:`MNIST_SHAPES`.
"""

from disdf.datasets._files import (
    DATA_DIR_ENV,
    DATASETS,
    MNIST_SHAPES,
    TABLES,
    DataFileError,
    TableSpec,
    read_idx,
)
from disdf.datasets._loaders import load_dataset, load_mnist, load_subjects, mnist_files

__all__ = [
    "DATASETS",
    "DATA_DIR_ENV",
    "MNIST_SHAPES",
    "TABLES",
    "DataFileError",
    "TableSpec",
    "load_dataset",
    "load_mnist",
    "load_subjects",
    "mnist_files",
    "read_idx",
]
