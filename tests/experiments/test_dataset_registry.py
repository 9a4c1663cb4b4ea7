"""Adding a dataset to the reproduction is one entry (experiments/running/datasets.py): a toy dataset,
registered with its loader and checksum, runs through the smoke pipeline and its report names it."""

import hashlib

import numpy as np
import pytest
from sklearn.datasets import load_wine

from disdf import DataFileError
from experiments.reporting.report import write_protocol
from experiments.running.composition import compose_config
from experiments.running.datasets import DISPLAY_NAMES, REGISTRY, DatasetEntry, Pool, register, unregister
from experiments.running.plan import plan_run
from experiments.running.records import RecordStore
from experiments.running.runner import run_units


def csv_loader(path, md5):
    """A toy loader: the table in ``path`` (last column: the label), refused unless its md5 is ``md5``."""

    def load(data_dir, split_groups):
        found = hashlib.md5(path.read_bytes()).hexdigest()
        if found != md5:
            raise DataFileError(f"{path}: md5 {found}, expected {md5}")
        table = np.loadtxt(path, delimiter=",")
        return Pool(table[:, :-1], table[:, -1].astype(int))

    return load


@pytest.fixture
def toy(tmp_path):
    X, y = load_wine(return_X_y=True)
    path = tmp_path / "toy.csv"
    np.savetxt(path, np.column_stack([X, y]), delimiter=",")
    md5 = hashlib.md5(path.read_bytes()).hexdigest()
    register(DatasetEntry("toy", "Toy wine", csv_loader(path, md5), n_rows=len(y)))
    yield path
    unregister("toy")


def smoke(output_dir):
    return compose_config(
        "experiment=smoke",
        "datasets=[toy]",
        f"runtime.output_dir={output_dir}",
        "runtime.progress=false",
        "runtime.n_jobs=1",
    )


def test_a_registered_dataset_runs_through_the_smoke_pipeline_and_is_named_by_its_report(toy, tmp_path):
    output = tmp_path / "run"
    summary = run_units(plan_run(smoke(output)))
    write_protocol(plan_run(smoke(output)))
    records = RecordStore(output / "raw").read("toy")
    assert summary["units_run"] == len(records) == 2 * 2  # methods x repetitions
    assert {r["method"] for r in records} == {"gcforest", "disdf"}
    assert all(r["n_test"] == 20 and 0 <= r["accuracy"] <= 1 for r in records)
    assert (output / "tables" / "toy.md").stat().st_size > 0
    assert "Toy wine" in (output / "REPORT.md").read_text()


def test_a_registered_dataset_whose_file_changed_is_refused_by_its_checksum(toy, tmp_path):
    toy.write_text(toy.read_text() + toy.read_text().splitlines()[0] + "\n")
    with pytest.raises(DataFileError, match=r"toy\.csv: md5"):
        run_units(plan_run(smoke(tmp_path / "run")))


def test_the_paper_datasets_are_entries_and_names_are_unique(toy):
    assert {"parkinsons", "ecoli", "ionosphere", "mnist", "toy"} <= set(REGISTRY)
    assert DISPLAY_NAMES["mnist"] == "MNIST" and DISPLAY_NAMES["ionosphere"] == "Ionosphere"
    with pytest.raises(ValueError, match="registered already"):
        register(REGISTRY["toy"])
