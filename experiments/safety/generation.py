"""One generation of a folder's outputs: tables, REPORT.md and figures made from one set of records.

Each file is replaced atomically, but a set of files cannot be: a kill between
two of them would leave tables of one set of records beside a REPORT.md of
another. ``outputs.json`` beside them is the manifest that says which files
belong together: the records they come from (config hash, count, digest) and
each file's sha256. A writer first marks the manifest incomplete, writes its
files, then records them (:func:`new_generation`); later writers of the same
folder (figures, other REPORT.md sections) add theirs (:func:`add_to_generation`).
Every reader calls :func:`check_generation`, which refuses a set that an
interrupted write or a hand edit left mixed, naming the file and the command
that rewrites it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from disdf.utils import write_text_atomically
from experiments.safety.guards import writes_headline

MANIFEST = "outputs.json"
#: Output kinds whose files must all be in the manifest (a stray table is another run's table).
LISTED_FOLDERS = ("tables",)
log = logging.getLogger(__name__)


class IncompleteOutputsError(ValueError):
    """A folder's outputs are not one complete generation (an interrupted write, or edited by hand)."""


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def records_digest(records: Iterable[dict], ignored: Iterable[str] = ()) -> str:
    """A digest of records in any order, ``ignored`` fields (e.g. timings) and the records' own
    ``digests`` (of their fields: they add nothing, and the same results keep one digest) left out."""
    skip = {*ignored, "digests"}
    lines = sorted(json.dumps({k: v for k, v in r.items() if k not in skip}, sort_keys=True) for r in records)
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]


def _write(folder: Path, manifest: dict) -> None:
    write_text_atomically(folder / MANIFEST, json.dumps(manifest, indent=1, sort_keys=True) + "\n")


def source_id(source: dict) -> str:
    """A short name for a generation's records (stamped on each file made from them)."""
    return hashlib.sha256(json.dumps(source, sort_keys=True).encode()).hexdigest()[:12]


def read_manifest(folder: str | os.PathLike) -> dict | None:
    path = Path(folder) / MANIFEST
    if not path.is_file():
        return None
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise IncompleteOutputsError(f"{path} is not a manifest ({error})") from error
    if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), dict):
        raise IncompleteOutputsError(f"{path} is not a manifest")
    return manifest


def remedy(folder: Path, manifest: dict | None) -> str:
    """The command that rewrites ``folder``'s outputs from its records, as a user types it: the
    folder and, where its manifest names it, the experiment whose records they are."""
    experiment = (manifest or {}).get("source", {}).get("experiment") or "<its experiment>"
    command = f"make tables figures RESULTS={folder.as_posix()} EXPERIMENT={experiment}"
    if writes_headline(folder):
        command = "make tables figures"
    return f"rewrite them from its records with `{command}`"


def _entries(folder: Path, paths: Iterable[Path], stamp: str) -> dict:
    return {_relative(folder, path): {"sha256": sha256_of(Path(path)), "source": stamp} for path in paths}


@contextmanager
def new_generation(folder: str | os.PathLike, source: dict) -> Iterator[list[Path]]:
    """Mark the folder's outputs incomplete, let the caller write them, then record them.

    The caller appends every file it writes to the yielded list. Files of an
    earlier generation that are still there stay listed with their own stamp,
    so :func:`check_generation` can name them as made from other records.
    """
    folder = Path(folder)
    stamp = source_id(source)
    try:
        previous = read_manifest(folder) or {"files": {}}
    except IncompleteOutputsError as error:  # a corrupt manifest: this generation rewrites it whole
        log.warning(f"{error}: writing a new one")
        previous = {"files": {}}
    kept = {name: entry for name, entry in previous["files"].items() if (folder / name).is_file()}
    _write(folder, {"complete": False, "source": source, "source_id": stamp, "files": kept})
    written: list[Path] = []
    yield written
    during = read_manifest(folder) or {"files": {}}  # sections added while writing (put_section)
    files = {**during["files"], **_entries(folder, written, stamp)}
    # a file removed while writing (another run's table) is not listed: the manifest names what is there
    files = {name: entry for name, entry in files.items() if (folder / name).is_file()}
    _write(folder, {"complete": True, "source": source, "source_id": stamp, "files": files})


def add_to_generation(folder: str | os.PathLike, paths: Iterable[Path]) -> None:
    """Record files made from the folder's current records (figures, REPORT.md sections).

    A folder without a manifest (outputs of one producer that keeps none) gets none.
    """
    folder = Path(folder)
    manifest = read_manifest(folder)
    if manifest is None:
        return
    files = {**manifest["files"], **_entries(folder, paths, manifest.get("source_id", ""))}
    _write(folder, {**manifest, "files": files})


def check_generation(folder: str | os.PathLike, may_be_older: tuple[str, ...] = ()) -> dict:
    """The folder's manifest, after proving its files are one complete generation; else an error.

    ``may_be_older``: path prefixes whose files may come from earlier records (what the caller is
    about to redraw, e.g. ``figures/``). A folder with neither a manifest nor tables passes.
    """
    folder = Path(folder)
    try:
        manifest = read_manifest(folder)
    except IncompleteOutputsError as error:
        raise IncompleteOutputsError(f"{error}; {remedy(folder, None)}") from None
    tables = [path for kind in LISTED_FOLDERS for path in sorted((folder / kind).glob("[!.]*"))]
    redo = remedy(folder, manifest)
    if manifest is None:
        if tables:
            raise IncompleteOutputsError(f"{folder} has tables but no {MANIFEST}; {redo}")
        return {}
    if not manifest.get("complete"):
        raise IncompleteOutputsError(
            f"{folder}: its outputs are incomplete (a write was interrupted); {redo}"
        )
    for name, entry in manifest["files"].items():
        path = folder / name
        if not path.is_file() or sha256_of(path) != entry.get("sha256"):
            raise IncompleteOutputsError(
                f"{path} is not the file {MANIFEST} lists (an interrupted write or a hand edit); {redo}"
            )
        if entry.get("source") != manifest.get("source_id") and not name.startswith(may_be_older):
            raise IncompleteOutputsError(f"{path} was made from earlier records than the tables; {redo}")
    stray = [path for path in tables if _relative(folder, path) not in manifest["files"]]
    if stray:
        raise IncompleteOutputsError(
            f"{stray[0]} is not of this folder's records (config {manifest['source'].get('config_hash')}); "
            f"remove it, or {redo}"
        )
    return manifest


def _relative(folder: Path, path: Path) -> str:
    return Path(path).resolve().relative_to(folder.resolve()).as_posix()
