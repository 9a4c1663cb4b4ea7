"""Which code produced a result: the commit and the library builds it ran on, as runs record them."""

from __future__ import annotations

import subprocess
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pandas as pd
from threadpoolctl import threadpool_info

from experiments.paths import ROOT

#: Libraries whose builds can move a result's last digits (BLAS products, compiled kernels).
#: The columns of a stamped CSV that hold short commit hashes: text, even when a hash is all digits.
COMMIT_COLUMNS = ("commit", "version_commit")
LIBRARIES = ("numpy", "scipy", "scikit-learn", "numba", "cvxpy", "joblib")


def code_commit(checkout: Path = ROOT) -> str:
    """The checkout's commit (short hash, "+" if its code has uncommitted changes), or "unknown"."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=checkout, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "disdf", "experiments"],
            cwd=checkout,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + ("+" if dirty else "")


def library_versions() -> dict[str, str]:
    """Installed versions of :data:`LIBRARIES` ("absent" if not installed) and of every BLAS loaded.

    The BLAS entries come from threadpoolctl, one per loaded BLAS, named by the
    implementation and the folder it was loaded from (numpy and scipy wheels each
    bring their own: ``openblas numpy.libs``, ``openblas scipy.libs``); numpy's and
    scipy's linear algebra are imported first so that both are loaded. Solver
    diagnostics differ in their last digits between BLAS builds: a run's record
    of them says which builds produced its numbers.
    """
    import numpy.linalg  # noqa: F401  (loads numpy's BLAS)
    import scipy.linalg  # noqa: F401  (loads scipy's BLAS, if it brings its own)

    versions = {}
    for name in LIBRARIES:
        try:
            versions[name] = version(name)
        except PackageNotFoundError:
            versions[name] = "absent"
    for pool in threadpool_info():
        if pool.get("user_api") == "blas":
            name = f"{pool['internal_api']} {Path(pool['filepath']).parent.name}"
            versions[name] = pool.get("version") or "unknown"
    return versions


def library_summary() -> str:
    """:func:`library_versions` on one line, for a CSV column: "numpy 2.4.6; scipy 1.17.1; ..."."""
    return "; ".join(f"{name} {ver}" for name, ver in library_versions().items())


def measurement_stamp(checkout: Path = ROOT) -> dict[str, str]:
    """What a measurement's row says of when and on what it ran: the UTC date, the ``checkout``'s
    commit (:func:`code_commit`) and the library builds (:func:`library_summary`)."""
    return {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
        "commit": code_commit(checkout),
        "libraries": library_summary(),
    }


def read_measurements(path: Path) -> pd.DataFrame:
    """A CSV of stamped measurements (:func:`measurement_stamp`), its commit columns as text: pandas
    would read a short hash such as 1028691 as a number, and 0123456 as 123456."""
    return pd.read_csv(path, dtype=dict.fromkeys(COMMIT_COLUMNS, str))
