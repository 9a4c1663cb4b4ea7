"""The paper's datasets (Parkinsons, Ecoli, Ionosphere, MNIST), read from ``DISDF_DATA_DIR`` and
checked against their checksums; a missing file is fetched once."""

from disdf.datasets._files import DATASETS, DataFileError
from disdf.datasets._loaders import load_dataset, load_mnist, load_subjects

__all__ = ["DATASETS", "DataFileError", "load_dataset", "load_mnist", "load_subjects"]
