"""REPORT.md and everything beside it, built by one entry point from the sections of
:data:`SECTIONS` (each a :class:`experiments.reporting.section.Section`).

    python -m experiments.reporting.report                    # every section of the headline (make tables)
    python -m experiments.reporting.report --section audit    # one section (make audit)
    python -m experiments.reporting.report experiment=quick   # another run's folder: its protocol section

Each section's text is kept in ``<folder>/report/<name>.md`` and REPORT.md is
rewritten whole (atomically) from the sections present, in the order of
:data:`SECTIONS`, so regenerating one section never loses another. The files
and figures a section returns are written here, each atomically, and recorded
in the folder's manifest (:mod:`experiments.safety.generation`); the
protocol section's records start a new generation.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Iterable
from pathlib import Path

import pandas as pd
from omegaconf import DictConfig

from disdf.atomic_files import remove_leftovers, replaced_atomically, write_text_atomically
from experiments.reporting.section import Rendered, ReportContext, Section
from experiments.reporting.sections import (
    audit,
    baselines,
    metric,
    mgs,
    mnist_full,
    protocol,
    speed,
    weight_fitting,
)
from experiments.running.config import ROOT
from experiments.safety.folder_lock import FolderInUseError, exclusive_folder
from experiments.safety.generation import add_to_generation, new_generation
from experiments.safety.guards import check_headline_folder, writes_headline
from experiments.safety.interrupts import run_interruptible

log = logging.getLogger(__name__)

#: Every section, in REPORT.md's order.
SECTIONS: tuple[Section, ...] = (
    protocol.SECTION,
    weight_fitting.SECTION,
    baselines.SECTION,
    metric.SECTION,
    audit.SECTION,
    mgs.SECTION,
    mnist_full.SECTION,
    speed.SECTION,
)
SECTION_ORDER = tuple(section.name for section in SECTIONS)
BY_NAME = {section.name: section for section in SECTIONS}
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


def write_sections(context: ReportContext, names: Iterable[str]) -> dict[str, Rendered | None]:
    """Render and write the named sections into ``context.folder``; each one's Rendered (None: not there)."""
    written = {}
    for name in names:
        section = BY_NAME[name]
        rendered = section.render(context)
        if rendered is None:
            log.warning(f"REPORT.md section {name!r} not written: nothing to read ({section.reads})")
        elif rendered.source is not None:
            with new_generation(context.folder, rendered.source) as paths:
                paths += _write(context.folder, name, rendered)
        else:
            add_to_generation(context.folder, _write(context.folder, name, rendered))
        written[name] = rendered
    return written


def _write(folder: Path, name: str, rendered: Rendered) -> list[Path]:
    """The section's files, figures and text, each replaced atomically; returns the files written."""
    _remove_others(folder, rendered)
    paths = []
    for relative, text in rendered.files.items():
        write_text_atomically(folder / relative, text)
        paths.append(folder / relative)
    for relative, draw in rendered.figures.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        with replaced_atomically(folder / relative) as temporary:  # a kill never leaves half a PNG
            draw(temporary)
        paths.append(folder / relative)
    put_section(folder, name, rendered.markdown)
    return paths


def _remove_others(folder: Path, rendered: Rendered) -> None:
    """Files under ``rendered.replaces`` that this section does not write are another run's: they go,
    said in the log, so they never sit beside the new ones unannounced."""
    for prefix in rendered.replaces:
        others = sorted(
            path
            for path in (folder / prefix).glob("[!.]*")
            if path.is_file() and path.relative_to(folder).as_posix() not in rendered.files
        )
        for path in others:
            path.unlink()
        if others:
            log.warning(
                f"Removed {len(others)} file(s) of other runs from {folder / prefix} "
                f"({', '.join(path.name for path in others)}): not made from these records"
            )


def write_protocol(cfg: DictConfig) -> pd.DataFrame | None:
    """The protocol section and tables of ``cfg``'s folder (what the runner writes after its units)."""
    check_headline_folder(cfg)
    folder = Path(cfg.runtime.output_dir)
    with exclusive_folder(folder):
        remove_leftovers(folder)
        rendered = write_sections(ReportContext(ROOT, folder, cfg), ["protocol"])["protocol"]
    if rendered is None:
        return None
    log.info(f"Wrote {folder / 'tables'} and {folder / 'REPORT.md'}")
    return rendered.result


def write_report(cfg: DictConfig, names: list[str] | None) -> None:
    """``names`` (default: all that apply) into ``cfg``'s folder; the headline's sections only in results/."""
    folder = Path(cfg.runtime.output_dir)
    headline = writes_headline(folder)
    names = names or (list(SECTION_ORDER) if headline else ["protocol"])
    if not headline and set(names) - {"protocol", "mnist_full"}:
        raise ValueError(
            f"runtime.output_dir={folder}: sections {sorted(set(names) - {'protocol', 'mnist_full'})} belong "
            "to the headline's REPORT.md (results/); this folder has only its protocol section"
        )
    if "protocol" in names:
        write_protocol(cfg)
    write_sections(ReportContext(ROOT, folder, cfg), [name for name in names if name != "protocol"])
    log.info(f"REPORT.md of {folder}: {', '.join(names)}")


def main(argv: list[str] | None = None) -> None:
    from experiments.running.composition import compose_config

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--section", action="append", choices=SECTION_ORDER, help="a section (repeatable)")
    parser.add_argument("overrides", nargs="*", help="Hydra overrides of the run (default: experiment=paper)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    os.chdir(ROOT)  # output folders are relative to the checkout, as under `make`
    try:
        cfg = compose_config(*(args.overrides or ["experiment=paper"]))
        run_interruptible(lambda: write_report(cfg, args.section), "REPORT.md")
    except (ValueError, FolderInUseError) as error:
        print(f"Nothing was written. {type(error).__name__}: {' '.join(str(error).split())}", file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
