"""The one shape of a REPORT.md section: its name, what it reads, and a render that returns Markdown.

A section module defines ``SECTION = Section(name, reads, render)``. ``render``
takes the :class:`ReportContext` (the checkout, and the folder whose REPORT.md
it writes into) and returns the section as :class:`Rendered` — its Markdown,
the figures it draws and the data files it leaves beside them — or None when
what it reads is not there (the entry point says so). A section never writes
files itself: :mod:`experiments.reporting.report` writes what it returns, so
every section is written the same way (atomically, and recorded in the
folder's manifest). Adding a section is one module plus one line in
:data:`experiments.reporting.report.SECTIONS` (and its name in
:data:`experiments.reporting.report.APPENDIX` or ``PERFORMANCE`` when it belongs to APPENDIX.md, the
statistical detail, or PERFORMANCE.md, the engineering).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from experiments.analysis.cells import load_records
from experiments.running.composition import compose_config
from experiments.running.plan import decide

if TYPE_CHECKING:
    import pandas as pd

    from experiments.running.plan import RunPlan
    from experiments.running.records import RecordGrid


@dataclass(frozen=True)
class ReportContext:
    """Where a section reads (``root``: the checkout) and which REPORT.md it writes into (``folder``).

    One context serves a whole report build: every section asks it for records
    (:meth:`records`, :meth:`folder_records`), and each folder's records are read from disk once
    (the headline's serve the protocol section and the seven sections that compare with it)."""

    root: Path
    folder: Path
    #: The run whose folder it is (the protocol section reads its records; headline sections need none).
    plan: RunPlan | None = None
    _read: dict[tuple[str, str], pd.DataFrame] = field(default_factory=dict, compare=False, repr=False)
    _plans: dict[tuple[str, ...], RunPlan] = field(default_factory=dict, compare=False, repr=False)
    _computed: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def once(self, name: str, compute: Callable[[], Any]) -> Any:
        """``compute()``, computed once per report build: an analysis two sections share (the claims'
        decisions, the benchmark's regimes) is not repeated for the second."""
        if name not in self._computed:
            self._computed[name] = compute()
        return self._computed[name]

    def folder_records(self, folder: Path, grid: RecordGrid) -> pd.DataFrame:
        """The records of ``grid``'s config in ``folder`` (a copy: a section may change its frame)."""
        key = (str(Path(folder).resolve()), repr(grid))
        if key not in self._read:
            self._read[key] = load_records(Path(folder), grid)
        return self._read[key].copy()

    def records(self, experiment: str, *overrides: str, folder: str = "") -> tuple[pd.DataFrame, RunPlan]:
        """The records of an experiment as committed (its config hash, its output folder, or the
        sub-folder ``folder`` of a multirun job) and its plan."""
        # Reading committed records needs the plan's grid, not the checks a run makes before writing.
        key = (experiment, *overrides)
        if key not in self._plans:
            self._plans[key] = decide(compose_config(f"experiment={experiment}", *overrides))
        plan = self._plans[key]
        return self.folder_records(self.root / plan.runtime.output_dir / folder, plan.grid), plan


@dataclass(frozen=True)
class Rendered:
    """A rendered section: Markdown, figures (path under the folder -> a function drawing into a given
    file) and data files (path under the folder -> text).

    ``source``: the records the section is made from, when they start a new generation of the folder's
    outputs (the protocol section); ``replaces``: folders whose other files are not of this generation
    and go (another config's tables), except ``keeps`` (the same config's tables of datasets this run
    did not cover); ``result``: what the caller gets back (the protocol's cells).
    """

    markdown: str
    figures: dict[str, Callable[[Path], None]] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    source: dict | None = None
    replaces: tuple[str, ...] = ()
    keeps: frozenset[str] = frozenset()
    result: Any = None


@dataclass(frozen=True)
class Section:
    """A REPORT.md section: its name (its place in REPORT.md), what it reads, and its render."""

    name: str
    reads: str
    render: Callable[[ReportContext], Rendered | None]
