"""Real data from DISDF_DATA_DIR (../shared/data under `make test`)."""

import shutil

import numpy as np
import pytest
from sklearn.model_selection import train_test_split

from disdf import CascadeForestClassifier, DisDFClassifier
from disdf.datasets._loaders import DataFileError, load_dataset, load_mnist

EXPECTED_SHAPES = {"parkinsons": (195, 22, 2), "ecoli": (336, 7, 8), "ionosphere": (351, 34, 2)}


@pytest.mark.parametrize("name", sorted(EXPECTED_SHAPES))
def test_uci_tables_load(data_dir, name):
    X, y = load_dataset(name, data_dir)
    n, d, c = EXPECTED_SHAPES[name]
    assert X.shape == (n, d) and X.dtype == np.float64 and np.isfinite(X).all()
    assert len(np.unique(y)) == c


def test_mnist_loads(data_dir):
    mnist = load_mnist(data_dir)
    assert mnist["X_train"].shape == (60000, 784) and mnist["X_test"].shape == (10000, 784)
    assert np.bincount(mnist["y_test"]).tolist() == [980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009]
    assert mnist["X_train"].max() == 255


def test_altered_file_is_refused_with_both_checksums(data_dir, tmp_path):
    shutil.copy(data_dir / "ecoli.csv", tmp_path / "ecoli.csv")
    with open(tmp_path / "ecoli.csv", "r+b") as handle:
        handle.seek(100)
        handle.write(b"9")
    with pytest.raises(
        DataFileError, match=r"ecoli\.csv.*md5 [0-9a-f]{32}, expected df82cb11a945bff38ed6cce61f3608a6"
    ):
        load_dataset("ecoli", tmp_path)


def test_missing_file_and_unknown_dataset(tmp_path):
    with pytest.raises(DataFileError, match=r"ionosphere\.csv is missing.*DISDF_DATA_DIR"):
        load_dataset("ionosphere", tmp_path, download=False)
    with pytest.raises(ValueError, match="Unknown dataset 'iris'"):
        load_dataset("iris", tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("split_seed", [0, 1, 2])
@pytest.mark.parametrize("estimator", [CascadeForestClassifier, DisDFClassifier])
def test_ionosphere_accuracy(data_dir, estimator, split_seed):
    """N = 120 training and 80 test examples, T = 100: both estimators above 0.85."""
    X, y = load_dataset("ionosphere", data_dir)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, train_size=120, test_size=80, random_state=split_seed
    )
    model = estimator(n_trees=100, random_state=split_seed).fit(X_train, y_train)
    assert model.score(X_test, y_test) > 0.85
