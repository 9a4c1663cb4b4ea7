"""Shared helpers of the plot scripts: read the tables' CSVs and the single splits behind them, save a
figure, draw the central 95 % of single splits."""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

from disdf.utils import is_leftover, replaced_atomically
from experiments.analysis.cells import DATASET_NAMES
from experiments.running.records import RecordStore
from experiments.running.unit import TIMING_FIELDS
from experiments.safety.generation import (
    MANIFEST,
    IncompleteOutputsError,
    add_to_generation,
    check_generation,
    read_manifest,
    records_digest,
)
from experiments.safety.interrupts import run_interruptible

METHOD_STYLE = {"gcforest": ("gcF", "tab:blue"), "disdf": ("DisDF", "tab:red")}
#: Legend label of the central 95 % of our single splits, drawn beside the paper's single values.
SPLIT_BAND_LABEL = "ours: central 95 % of single splits"
#: What every figure with many intervals says of them.
UNADJUSTED = "95 % CIs per cell, not adjusted for multiplicity"
SPLIT_COLUMNS = ["dataset", "N", "T", "method", "repetition", "accuracy"]


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


def read_splits(results: Path, datasets: Iterable[str]) -> pd.DataFrame:
    """Each split's accuracy (dataset, N, T, method, repetition, accuracy) from the records the folder's
    tables were made from: ``raw/<dataset>.jsonl``, the config hash its manifest names, and only if
    they are those records (their count and digest, timings aside, are the manifest's); else SystemExit."""
    manifest = read_manifest(results) or {}
    source = manifest.get("source") or {}
    if "config_hash" not in source:
        raise SystemExit(
            f"Nothing was drawn. {results / MANIFEST} names no records: run `make tables` first."
        )
    store = RecordStore(results / "raw")
    records = [
        record
        for dataset in sorted(set(datasets))
        for record in store.read(str(dataset))
        if record["config_hash"] == source["config_hash"]
    ]
    frame = pd.DataFrame(records)
    digest = records_digest(frame.to_dict("records"), TIMING_FIELDS) if records else ""
    if len(records) != source.get("records") or digest != source.get("records_digest", digest):
        raise SystemExit(
            f"Nothing was drawn. {results / 'raw'} holds {len(records)} record(s) of config "
            f"{source['config_hash']}, not the {source.get('records')} the tables were made from: "
            "run `make tables` first."
        )
    return frame[SPLIT_COLUMNS]


def draw_split_bands(ax, x, bands: pd.DataFrame, color: str, width: float, label: str | None) -> None:
    """The central 95 % of single splits (``bands``' ``low`` to ``high``, see
    :func:`experiments.analysis.paper_statistics.single_split_bands`) as light bars centred on ``x``,
    behind the means: where one split's accuracy (what the paper reports per cell) falls."""
    bars = ax.bar(
        x,
        bands["high"].to_numpy() - bands["low"].to_numpy(),
        width=width,
        bottom=bands["low"].to_numpy(),
        color=color,
        alpha=0.18,
        linewidth=0,
        zorder=0,
        label=label,
    )
    for bar in bars:  # the axis keeps its margin beyond a band (a bar's base would pin the limit to it)
        bar.sticky_edges.y.clear()


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
