"""Missing data files: fetched once and then read offline; no network means a clear error.

The network is never touched: the fetchers are replaced by fakes.
"""

import types
import urllib.error

import pandas as pd
import pytest

from disdf.datasets._loaders import DataFileError, load_dataset, load_mnist


def fake_ucirepo(frame):
    return lambda id: types.SimpleNamespace(data=types.SimpleNamespace(original=frame))


def test_uci_table_is_fetched_once_then_read_offline(monkeypatch, tmp_path, data_dir):
    import ucimlrepo

    original = pd.read_csv(data_dir / "ecoli.csv")
    calls = []

    def fetch(id):
        calls.append(id)
        return fake_ucirepo(original)(id)

    monkeypatch.setattr(ucimlrepo, "fetch_ucirepo", fetch)
    X, _ = load_dataset("ecoli", tmp_path)
    assert X.shape == (336, 7) and calls == [39]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ecoli.csv"]  # no sidecar: the package vouches
    X_again, _ = load_dataset("ecoli", tmp_path)
    assert calls == [39] and (X_again == X).all()
    with open(tmp_path / "ecoli.csv", "a") as handle:
        handle.write("tampered\n")
    with pytest.raises(DataFileError, match="altered or truncated"):
        load_dataset("ecoli", tmp_path)


def test_uci_table_with_wrong_counts_is_not_written(monkeypatch, tmp_path, data_dir):
    import ucimlrepo

    truncated = pd.read_csv(data_dir / "ionosphere.csv").head(300)
    monkeypatch.setattr(ucimlrepo, "fetch_ucirepo", fake_ucirepo(truncated))
    with pytest.raises(DataFileError, match="300 rows"):
        load_dataset("ionosphere", tmp_path)
    assert not (tmp_path / "ionosphere.csv").exists()


def swap_two_values(frame):
    """Same rows, same class counts, other numbers: only the content check tells."""
    frame = frame.copy()
    frame.loc[[0, 1], "mcg"] = frame.loc[[1, 0], "mcg"].to_numpy()
    return frame


def add_a_column(frame):
    return frame.assign(junk=1.0)


@pytest.mark.parametrize(
    ("rebuild", "message"),
    [
        (
            swap_two_values,
            r"UCI id 39 parses to other values than the original ecoli\.csv\. Not writing .*ecoli\.csv",
        ),
        (add_a_column, r"UCI id 39 has 8 feature columns, expected 7\. Not writing .*ecoli\.csv"),
    ],
    ids=["other values", "extra column"],
)
def test_uci_table_with_other_content_is_not_written(monkeypatch, tmp_path, data_dir, rebuild, message):
    import ucimlrepo

    original = pd.read_csv(data_dir / "ecoli.csv")
    assert original.loc[0, "mcg"] != original.loc[1, "mcg"]
    monkeypatch.setattr(ucimlrepo, "fetch_ucirepo", fake_ucirepo(rebuild(original)))
    with pytest.raises(DataFileError, match=message):
        load_dataset("ecoli", tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_no_network_names_the_file_and_the_fix(monkeypatch, tmp_path):
    import ucimlrepo

    def offline(*args, **kwargs):
        raise ConnectionError("network is unreachable")

    monkeypatch.setattr(ucimlrepo, "fetch_ucirepo", offline)
    with pytest.raises(
        DataFileError, match=r"parkinsons\.csv is missing and could not be downloaded.*DISDF_DATA_DIR"
    ):
        load_dataset("parkinsons", tmp_path)

    def no_route(*args, **kwargs):
        raise urllib.error.URLError("no route to host")

    monkeypatch.setattr("urllib.request.urlopen", no_route)
    with pytest.raises(DataFileError, match=r"train-images-idx3-ubyte\.gz is missing.*no route to host"):
        load_mnist(tmp_path)
    assert list((tmp_path / "mnist").glob("*")) == []


def test_download_can_be_refused(tmp_path):
    with pytest.raises(DataFileError, match=r"ecoli\.csv is missing\. Set DISDF_DATA_DIR"):
        load_dataset("ecoli", tmp_path, download=False)
