"""The paper's claim that multi-grained scanning hurts at small N (its section 6; REPORT.md's 15th
sentence), analysed: the paired differences with − without scanning on the headline's MNIST splits,
each cell's test and verdict, the claim's verdict by its rule, and the accuracy-against-size points
with their exact intervals. ``experiments.reporting.sections.mgs`` renders them.

The verdict's rule, fixed before anything is computed (:data:`RULE`): per cell (N, T, method) the
paired difference is *worse* when a Wilcoxon signed-rank test, Holm-corrected over the 16 cells, is
significant with a negative mean; *not worse* when it is significant with a positive mean or a
paired TOST shows it inside the plan's margin; else undecided. Per method the cells are combined by
the majority rule the claims table used until 2026-11-27, and the claim ("deteriorates for DisDF as
well as gcF") by the same rule over the two methods: confirmed if both are, refuted if both are,
otherwise not decided. REPORT.md's claims table decides the sentence at the split, by the rules of
:mod:`experiments.analysis.paper_claims`, from the same pairs (:func:`paired_differences`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from experiments.analysis.cells import LABELS
from experiments.analysis.plan import (
    ALPHA,
    CONFIDENCE,
    CONFIRMED,
    MARGIN_PP,
    NOT_DECIDED_BY_OUR_DATA,
    NOT_WORSE,
    POINTS,
    REFUTED,
    UNDECIDED,
    WORSE,
)
from experiments.analysis.statistics import holm, mean_ci, paired_wilcoxon, tost_paired

#: Each scanning method and the headline method it is paired with.
PAIRS = {"gcforest_mgs": "gcforest", "disdf_mgs": "disdf"}


RULE = (
    "per cell, with − without scanning paired by split: Wilcoxon (Holm over the cells) significant "
    "and negative = worse; significant and positive, or TOST-equivalent within "
    f"±{MARGIN_PP:g} pp = not worse; "
    "else undecided. Per method the majority rule (confirmed if more than half the cells are worse "
    "and none is not worse, refuted if more than half are not worse, else not decided); the claim: "
    "the same rule over the two methods."
)


FULL_MNIST_CSV = "results/mnist_full.csv"


GCFOREST_PUBLISHED = 0.9926  # Zhou & Feng 2017, MNIST, all 60,000 training images, with scanning


MNIST_TEST_IMAGES = 10_000


PUBLISHED_LABEL = "gcForest published (Zhou & Feng 2017), with scanning"


ANCHOR_LABEL = f"our gcF without scanning ({FULL_MNIST_CSV})"


UNIT = ["N", "T", "repetition"]


def paired_differences(scanned: pd.DataFrame, headline: pd.DataFrame) -> pd.DataFrame:
    """One row per (method, N, T, repetition): accuracy with and without scanning and ``d`` (pp).
    Refuses pairs whose split seeds differ (they would not be the same split)."""
    rows = []
    for scanning, plain in PAIRS.items():
        a = scanned[scanned["method"] == scanning][[*UNIT, "seed", "accuracy"]]
        b = headline[(headline["method"] == plain) & (headline["dataset"] == "mnist")][
            [*UNIT, "seed", "accuracy"]
        ]
        both = a.merge(b, on=UNIT, suffixes=("_scan", "_plain"))
        if not (both["seed_scan"] == both["seed_plain"]).all():
            raise ValueError(f"{scanning} and the headline's {plain} records have different split seeds")
        rows.append(both.assign(method=plain, d=POINTS * (both["accuracy_scan"] - both["accuracy_plain"])))
    return pd.concat(rows, ignore_index=True)


def cell_effects(pairs: pd.DataFrame) -> pd.DataFrame:
    """Per (method, N, T): n, mean accuracies, the mean difference with its 95 % CI, Wilcoxon p
    (Holm over all cells), the TOST and the cell's verdict."""
    rows = []
    for (method, N, T), group in pairs.groupby(["method", "N", "T"]):
        d = group["d"].to_numpy()
        mean, half = mean_ci(d)
        rows.append(
            {
                "method": method,
                "N": N,
                "T": T,
                "n": len(d),
                "without": group["accuracy_plain"].mean(),
                "with": group["accuracy_scan"].mean(),
                "d": mean,
                "ci": half,
                "p": paired_wilcoxon(group["accuracy_scan"], group["accuracy_plain"]),
                "equivalent": tost_paired(d, MARGIN_PP, ALPHA)["equivalent"] if len(d) > 1 else False,
            }
        )
    cells = pd.DataFrame(rows)
    cells["p_holm"] = holm(cells["p"].to_numpy())
    significant = cells["p_holm"] < ALPHA
    cells["verdict"] = np.select(
        [significant & (cells["d"] < 0), (significant & (cells["d"] > 0)) | cells["equivalent"]],
        [WORSE, NOT_WORSE],
        UNDECIDED,
    )
    return cells


def majority(verdicts: list[str], yes: str, no: str) -> str:
    """The claims table's rule until 2026-11-27: confirmed if more than half are ``yes`` and none
    ``no``; refuted if more than half are ``no``; else not decided."""
    half = len(verdicts) / 2
    if verdicts.count(yes) > half and verdicts.count(no) == 0:
        return CONFIRMED
    if verdicts.count(no) > half:
        return REFUTED
    return NOT_DECIDED_BY_OUR_DATA


def claim_verdict(cells: pd.DataFrame) -> tuple[str, dict[str, str]]:
    """The claim's verdict and each method's (see :data:`RULE`)."""
    per_method = {
        method: majority(list(group["verdict"]), WORSE, NOT_WORSE)
        for method, group in cells.groupby("method")
    }
    return majority(list(per_method.values()), CONFIRMED, REFUTED), per_method


#: experiment=mgs_full's units: 2 methods x N in {50, 80} x T in {100, 1000} x 30 splits.
FULL_SCANNER_UNITS = 240


def full_mnist_row(root: Path) -> pd.Series | None:
    """gcF without scanning on all 60,000 images (results/mnist_full.csv's last such row), if there."""
    path = root / FULL_MNIST_CSV
    if not path.is_file():
        return None
    frame = pd.read_csv(path)
    rows = frame[(frame["method"] == "gcforest") & (frame["n_train"] == 60_000)]
    return rows.iloc[-1] if len(rows) else None


def full_mnist_anchor(root: Path) -> float | None:
    """gcF's test accuracy without scanning on all 60,000 images (results/mnist_full.csv), if there."""
    row = full_mnist_row(root)
    return None if row is None else float(row["test_accuracy"])


def exact_ci(accuracy: float, n_test: int) -> tuple[float, float]:
    """The exact (Clopper-Pearson) 95 % interval of a test accuracy over ``n_test`` images, as
    results/mnist_full.csv's: the test set's sampling, one training set."""
    interval = stats.binomtest(round(accuracy * n_test), int(n_test)).proportion_ci(CONFIDENCE)
    return float(interval.low), float(interval.high)


def size_points(sizes: pd.DataFrame, anchor: pd.Series | None) -> pd.DataFrame:
    """The right panel's points: each measured (method, scanning, n) with its exact CI, and the anchors
    at 60,000 images (gcForest's published accuracy; ours without scanning), each labelled."""
    rows = []
    for row in sizes.itertuples():
        low, high = exact_ci(row.accuracy, row.n_test)
        scan = "with" if row.scanning else "without"
        label = f"{LABELS[row.method]} {scan} scanning (first n images)"
        rows.append(
            {"label": label, "n_train": row.n_train, "accuracy": row.accuracy, "low": low, "high": high}
        )
    low, high = exact_ci(GCFOREST_PUBLISHED, MNIST_TEST_IMAGES)
    rows.append(
        {
            "label": PUBLISHED_LABEL,
            "n_train": 60_000,
            "accuracy": GCFOREST_PUBLISHED,
            "low": low,
            "high": high,
        }
    )
    if anchor is not None:
        rows.append(
            {
                "label": ANCHOR_LABEL,
                "n_train": int(anchor["n_train"]),
                "accuracy": float(anchor["test_accuracy"]),
                "low": float(anchor["accuracy_ci_low"]),
                "high": float(anchor["accuracy_ci_high"]),
            }
        )
    return pd.DataFrame(rows)
