"""What a data file must be is written in the package, not beside the file.

A file passes with the original's md5, or (a UCI table rebuilt by the downloader)
with the original's parsed content; a ``<file>.md5`` beside it counts for
nothing. The parsers' shape and finiteness checks are shown to fire with their
messages even when the checksum passes (the expected md5 monkeypatched).
"""

import csv
import gzip
import struct
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from disdf.datasets._files import (
    MNIST_FILES,
    MNIST_SHAPES,
    TABLES,
    DataFileError,
    md5sum,
    parse_table,
    read_idx,
    table_fingerprint,
)
from disdf.datasets._loaders import load_dataset, load_mnist, load_subjects

ECOLI_EXPECTED_MD5 = TABLES["ecoli"].md5


def with_sidecar(path):
    """The attack: the altered file's own md5 written beside it, as the old downloader did."""
    path.with_name(path.name + ".md5").write_text(f"{md5sum(path)}  {path.name} (rebuilt by ucimlrepo)\n")
    return path


@pytest.mark.parametrize("name", sorted(TABLES))
def test_the_fingerprint_constants_are_those_of_the_shared_originals(data_dir, name):
    spec = TABLES[name]
    path = data_dir / spec.filename
    assert md5sum(path) == spec.md5
    assert table_fingerprint(parse_table(path, spec)) == spec.fingerprint


def test_a_sidecar_md5_cannot_vouch_for_an_altered_file(data_dir, tmp_path):
    """The reported attack: a junk column added to ecoli.csv and its md5 put in ecoli.csv.md5."""
    frame = pd.read_csv(data_dir / "ecoli.csv")
    frame.insert(1, "junk", np.arange(len(frame)) % 7)
    frame.to_csv(tmp_path / "ecoli.csv", index=False)
    with_sidecar(tmp_path / "ecoli.csv")
    with pytest.raises(DataFileError) as refused:
        load_dataset("ecoli", tmp_path, download=False)
    assert str(refused.value) == (
        f"Data file {tmp_path / 'ecoli.csv'} is altered or truncated: md5 {md5sum(tmp_path / 'ecoli.csv')}, "
        f"expected {ECOLI_EXPECTED_MD5}; ecoli.csv has 8 feature columns, expected 7. Replace it with "
        "the original, set DISDF_DATA_DIR to a folder with intact files, or delete it to have it "
        "downloaded again."
    )


@pytest.mark.parametrize("name", sorted(TABLES))
def test_a_reserialised_table_with_the_same_content_is_accepted(data_dir, tmp_path, name):
    """Other quoting, float formatting and line endings, the same parsed values: the same arrays."""
    spec = TABLES[name]
    frame = pd.read_csv(data_dir / spec.filename)
    frame.to_csv(
        tmp_path / spec.filename,
        index=False,
        quoting=csv.QUOTE_ALL,
        float_format="%.17g",
        lineterminator="\r\n",
    )
    assert md5sum(tmp_path / spec.filename) != spec.md5
    X, y = load_dataset(name, tmp_path, download=False)
    X_original, y_original = load_dataset(name, data_dir, download=False)
    assert X.tobytes() == X_original.tobytes() and y.dtype == y_original.dtype
    assert y.tolist() == y_original.tolist()
    if spec.subject is not None:
        assert load_subjects(name, tmp_path).tolist() == load_subjects(name, data_dir).tolist()


def change_a_value(frame):
    frame.loc[16, "mcg"] = round(frame.loc[16, "mcg"] + 0.01, 2)
    return frame


def change_a_label(frame):
    frame.loc[16, "class"] = "pp" if frame.loc[16, "class"] != "pp" else "cp"
    return frame


def add_a_column(frame):
    frame.insert(2, "junk", 0.5)
    return frame


def drop_a_row(frame):
    return frame.drop(index=16)


def rename_an_identifier(frame):
    frame.loc[1, "Sequence Name"] = "AC9A_ECOLI"
    return frame


def rename_a_subject(frame):
    frame.loc[0, "name"] = frame.loc[0, "name"].replace("_S01_", "_S02_")
    return frame


ALTERATIONS = {
    "one value changed": ("ecoli", change_a_value, r"its parsed content is not the original's either"),
    "one label changed": ("ecoli", change_a_label, r"its parsed content is not the original's either"),
    "extra column": ("ecoli", add_a_column, r"ecoli\.csv has 8 feature columns, expected 7"),
    "dropped row": ("ecoli", drop_a_row, r"ecoli\.csv has 335 rows, expected 336"),
    "identifier changed": ("ecoli", rename_an_identifier, r"its parsed content is not the original's either"),
    "subject renamed": ("parkinsons", rename_a_subject, r"its parsed content is not the original's either"),
}


@pytest.mark.parametrize("alteration", sorted(ALTERATIONS))
def test_a_reserialised_table_with_other_content_is_refused_even_with_a_sidecar(
    data_dir, tmp_path, alteration
):
    name, alter, detail = ALTERATIONS[alteration]
    spec = TABLES[name]
    frame = alter(pd.read_csv(data_dir / spec.filename))
    frame.to_csv(tmp_path / spec.filename, index=False, quoting=csv.QUOTE_ALL)
    with_sidecar(tmp_path / spec.filename)
    message = (
        rf"{spec.filename} is altered or truncated: md5 [0-9a-f]{{32}}, expected {spec.md5}; {detail}\. "
    )
    load = load_subjects if alteration == "subject renamed" else load_dataset
    with pytest.raises(DataFileError, match=message):
        load(name, tmp_path)


def put_nan(frame):
    frame.loc[16, "mcg"] = np.nan  # written as an empty field
    return frame


def put_inf(frame):
    frame.loc[3, "alm2"] = -np.inf
    return frame


def put_text(frame):
    frame["lip"] = frame["lip"].astype(object)
    frame.loc[4, "lip"] = "0.48x"
    return frame


def drop_the_target(frame):
    return frame.drop(columns=["class"])


PARSE_CHECKS = {
    "NaN": (put_nan, r"ecoli\.csv row 17 \(line 18\), column 'mcg': NaN$"),
    "infinite": (put_inf, r"ecoli\.csv row 4 \(line 5\), column 'alm2': -inf$"),
    "not a number": (put_text, r"ecoli\.csv row 5 \(line 6\), column 'lip': '0\.48x' is not a number$"),
    "extra column": (add_a_column, r"ecoli\.csv has 8 feature columns, expected 7$"),
    "dropped row": (drop_a_row, r"ecoli\.csv has 335 rows, expected 336$"),
    "no target": (drop_the_target, r"ecoli\.csv has no column 'class'; its columns: \['Sequence Name', "),
}


@pytest.mark.parametrize("check", sorted(PARSE_CHECKS))
def test_each_parse_check_fires_even_when_the_checksum_passes(data_dir, tmp_path, monkeypatch, check):
    """The md5 usually refuses such a file first; with the file's own md5 expected, the parse still does."""
    damage, message = PARSE_CHECKS[check]
    path = tmp_path / "ecoli.csv"
    damage(pd.read_csv(data_dir / "ecoli.csv")).to_csv(path, index=False)
    monkeypatch.setitem(TABLES, "ecoli", replace(TABLES["ecoli"], md5=md5sum(path)))
    with pytest.raises(DataFileError, match=message):
        load_dataset("ecoli", tmp_path, download=False)


def test_a_truncated_table_is_refused_with_its_row_count(data_dir, tmp_path):
    path = tmp_path / "ecoli.csv"
    path.write_bytes((data_dir / "ecoli.csv").read_bytes()[:-500])
    with pytest.raises(DataFileError, match=r"ecoli\.csv has 326 rows, expected 336$"):
        parse_table(path, TABLES["ecoli"], "ecoli.csv")


def write_idx(path, magic, shape, n_values=None):
    n_values = int(np.prod(shape)) if n_values is None else n_values
    header = struct.pack(f">I{len(shape)}I", magic, *shape)
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wb") as handle:
        handle.write(header + bytes(n_values))
    return path


def test_mnist_files_of_another_shape_are_refused_even_when_the_checksum_passes(tmp_path, monkeypatch):
    for name, shape in MNIST_SHAPES.items():
        small = (5, *shape[1:])
        path = write_idx(tmp_path / "mnist" / name, 0x0800 + len(shape), small)
        monkeypatch.setitem(MNIST_FILES, name, md5sum(path))
    with pytest.raises(
        DataFileError,
        match=r"train-images-idx3-ubyte\.gz holds 5 x 28 x 28 values \(IDX magic 2051\), "
        r"expected 60000 x 28 x 28 \(IDX magic 2051\)$",
    ):
        load_mnist(tmp_path, download=False)


@pytest.mark.parametrize(
    ("magic", "shape", "n_values", "message"),
    [
        (
            2049,
            (10000,),
            9999,
            r"t10k-labels-idx1-ubyte\.gz has 9999 bytes of values, expected 10000 for 10000$",
        ),
        (
            0x0D01,
            (10000,),
            None,
            r"holds 10000 values \(IDX magic 3329\), expected 10000 \(IDX magic 2049\)$",
        ),
    ],
    ids=["truncated", "not uint8"],
)
def test_an_idx_file_must_hold_its_shape_in_uint8(tmp_path, magic, shape, n_values, message):
    path = write_idx(tmp_path / "t10k-labels-idx1-ubyte.gz", magic, shape, n_values)
    with pytest.raises(DataFileError, match=message):
        read_idx(path, MNIST_SHAPES[path.name])


def test_an_idx_file_that_is_not_gzip_is_refused(tmp_path):
    path = tmp_path / "t10k-labels-idx1-ubyte.gz"
    path.write_bytes(b"not gzip at all")
    with pytest.raises(DataFileError, match=r"t10k-labels-idx1-ubyte\.gz is not a readable gzip file"):
        read_idx(path, MNIST_SHAPES[path.name])


@pytest.mark.parametrize("through", ["argument", "environment"])
def test_a_data_folder_that_is_a_file_is_named_as_such(tmp_path, monkeypatch, through):
    not_a_folder = tmp_path / "data.csv"
    not_a_folder.write_text("x\n")
    monkeypatch.setenv("DISDF_DATA_DIR", str(not_a_folder))
    given = {"argument": "the data folder given", "environment": "DISDF_DATA_DIR"}[through]
    with pytest.raises(DataFileError, match=f"{given} is .*data.csv, which is a file, not a folder"):
        load_dataset("ecoli", not_a_folder if through == "argument" else None)
