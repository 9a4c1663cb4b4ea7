"""REPORT.md of an output folder: one owner that takes sections.

Each section is the text of one producer: the protocol's tables and statistics
(:mod:`experiments.reporting.tables`), DisDF's two weight fittings side by side
(:mod:`experiments.reporting.sections.weight_fitting`), the paper audit
(:mod:`experiments.reporting.sections.audit`) and the run on the full MNIST training set
(:mod:`experiments.running.full_mnist`). A producer hands its section to
:func:`put_section`, which keeps it in ``<output>/report/<name>.md`` and
rewrites REPORT.md whole (atomically) as the sections present, in
:data:`SECTION_ORDER`. No producer reads or edits REPORT.md itself, so
regenerating one section never loses another. Each section and REPORT.md
are recorded in the folder's manifest (:mod:`experiments.safety.generation`) when it
has one.
"""

from __future__ import annotations

import os
from pathlib import Path

from disdf.atomic_files import write_text_atomically
from experiments.safety.generation import add_to_generation

SECTION_ORDER = ("protocol", "weight_fitting", "baselines", "metric", "audit", "mnist_full", "speed")
SECTIONS_DIR = "report"


def section_path(output_dir: str | os.PathLike, name: str) -> Path:
    if name not in SECTION_ORDER:
        raise ValueError(f"Unknown REPORT.md section {name!r}; expected one of {SECTION_ORDER}")
    return Path(output_dir) / SECTIONS_DIR / f"{name}.md"


def put_section(output_dir: str | os.PathLike, name: str, text: str) -> Path:
    """Replace section ``name`` and rewrite REPORT.md from every section present; return its path."""
    write_text_atomically(section_path(output_dir, name), text.rstrip("\n") + "\n")
    sections = [section_path(output_dir, n) for n in SECTION_ORDER]
    report = Path(output_dir) / "REPORT.md"
    write_text_atomically(report, "\n".join(p.read_text(encoding="utf-8") for p in sections if p.exists()))
    add_to_generation(output_dir, [section_path(output_dir, name), report])
    return report
