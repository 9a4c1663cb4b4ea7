"""Shared helpers of the plot scripts: read the tables' CSVs, save a figure."""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

from disdf._utils.atomic_files import is_leftover, replaced_atomically
from experiments.safety.generation import IncompleteOutputsError, add_to_generation, check_generation
from experiments.safety.interrupts import run_interruptible

METHOD_STYLE = {"gcforest": ("gcF", "tab:blue"), "disdf": ("DisDF", "tab:red")}
DATASET_NAMES = {"parkinsons": "Parkinsons", "ecoli": "Ecoli", "ionosphere": "Ionosphere", "mnist": "MNIST"}


def dataset_name(dataset: str) -> str:
    """How the figures name a dataset ("Parkinsons", "MNIST")."""
    return DATASET_NAMES.get(str(dataset), str(dataset))


def parse_results_dir(description: str) -> Path:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--results", type=Path, default=Path("results"), help="output dir of a run")
    return parser.parse_args().results


def read_cells(results: Path) -> pd.DataFrame:
    """Every dataset's cell table (results/tables/<dataset>.csv) in one frame, once the folder's
    outputs are proven one generation (figures are drawn only from complete tables)."""
    try:
        check_generation(results, may_be_older=("figures/",))
    except IncompleteOutputsError as error:
        raise SystemExit(f"Nothing was drawn. {error}") from None
    # A table's temporary (".ecoli.csv.<random>.tmp.csv", left by a kill) is never a table.
    paths = sorted(path for path in (results / "tables").glob("*.csv") if not is_leftover(path))
    if not paths:
        raise SystemExit(f"No tables under {results / 'tables'}: run `make tables` (or a run) first.")
    return pd.concat([pd.read_csv(path) for path in paths], ignore_index=True)


def repetitions_label(counts: pd.Series) -> str:
    """ "100 repetitions", or "2–3 repetitions" when the cells differ."""
    low, high = int(counts.min()), int(counts.max())
    return f"{low} repetitions" if low == high else f"{low}–{high} repetitions"


def save(figure: plt.Figure, results: Path, name: str) -> None:
    out = results / "figures" / name
    with replaced_atomically(out) as temporary:  # a killed plot never leaves half a PNG
        figure.savefig(temporary, dpi=120, bbox_inches="tight")
    plt.close(figure)
    add_to_generation(results, [out])  # the figure belongs to the tables it was drawn from
    print(f"wrote {out}")


def run_plot(main) -> None:
    """Run a plot script's ``main``: Ctrl-C or SIGTERM exits 130 with one line, never half a PNG."""
    run_interruptible(main, "the figures")
