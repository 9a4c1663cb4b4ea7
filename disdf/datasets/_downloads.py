"""Fetch a missing dataset file once, into the data directory (see :mod:`disdf.datasets._loaders`).

MNIST's four original gzip files come from public mirrors and must match the
original md5. UCI tables come through ucimlrepo; the rebuilt CSV is checked
against the published row and class counts, and written only if it parses to
the original's content (the fingerprint in :mod:`disdf.datasets._files`), which is
what later reads check it against.
Every file is written to a temporary name and renamed, so a failed download
never leaves a partial file behind.
"""

from __future__ import annotations

import io
import urllib.error
import urllib.request
from pathlib import Path

from disdf._utils.atomic_files import write_bytes_atomically
from disdf.datasets._files import (
    DATA_DIR_ENV,
    MNIST_FILES,
    DataFileError,
    TableSpec,
    md5sum,
    parse_table,
    table_fingerprint,
)

MNIST_MIRRORS = (
    "https://ossci-datasets.s3.amazonaws.com/mnist/",
    "https://storage.googleapis.com/cvdf-datasets/mnist/",
)


def _unavailable(path: Path, reason: object) -> DataFileError:
    return DataFileError(
        f"Data file {path} is missing and could not be downloaded ({reason}). Without network access, "
        f"set {DATA_DIR_ENV} to a folder that holds the original files."
    )


def fetch_mnist_file(path: Path) -> None:
    """Download one original MNIST file into ``path``; its md5 must be the original's."""
    expected = MNIST_FILES[path.name]
    errors = []
    for mirror in MNIST_MIRRORS:
        try:
            with urllib.request.urlopen(mirror + path.name, timeout=60) as response:
                data = response.read()
        except (urllib.error.URLError, OSError) as exc:
            errors.append(f"{mirror}: {exc}")
            continue
        write_bytes_atomically(path, data)
        if md5sum(path) == expected:
            return
        path.unlink()
        errors.append(f"{mirror}: md5 mismatch")
    raise _unavailable(path, "; ".join(errors))


def fetch_uci_table(spec: TableSpec, path: Path) -> None:
    """Rebuild a UCI table with ucimlrepo, check its counts and parsed content, and write it."""
    try:
        from ucimlrepo import fetch_ucirepo

        dataset = fetch_ucirepo(id=spec.uci_id)
    except Exception as exc:  # ucimlrepo raises ConnectionError and others without network
        raise _unavailable(path, f"ucimlrepo, UCI id {spec.uci_id}: {exc}") from exc
    frame = dataset.data.original
    if spec.target not in frame.columns:
        raise DataFileError(
            f"ucimlrepo's table for UCI id {spec.uci_id} has no column {spec.target!r}; not writing {path}."
        )
    counts = frame[spec.target].astype(str).value_counts().to_dict()
    if len(frame) != spec.n_rows or counts != spec.class_counts:
        raise DataFileError(
            f"ucimlrepo returned {len(frame)} rows with classes {counts} for UCI id {spec.uci_id}; "
            f"expected {spec.n_rows} rows with {spec.class_counts}. Not writing {path}."
        )
    data = frame.to_csv(index=False, lineterminator="\n").encode()
    _require_original_content(data, spec, path)
    write_bytes_atomically(path, data)


def _require_original_content(data: bytes, spec: TableSpec, path: Path) -> None:
    """Refuse a rebuilt CSV that parses to anything but the original: it would be refused when read."""
    source = f"ucimlrepo's table for UCI id {spec.uci_id}"
    try:
        table = parse_table(io.BytesIO(data), spec, source)
    except DataFileError as error:
        raise DataFileError(f"{error}. Not writing {path}.") from error
    if table_fingerprint(table) != spec.fingerprint:
        raise DataFileError(
            f"{source} parses to other values than the original {spec.filename}. Not writing {path}."
        )
