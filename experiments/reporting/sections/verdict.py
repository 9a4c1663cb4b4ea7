"""REPORT.md's opening: the verdict (a conclusion of at most 200 words), the effect-size table and the
summary figure, a forest plot of every cell's DisDF − gcF with the paper's values.

    python -m experiments.reporting.report --section verdict     # after make reproduce, audit, baselines

The effect of a dataset is DisDF − gcF in points averaged over its 16 cells: per split the mean over
the T (they share the split), then over the independent N
(:func:`experiments.analysis.paper_claims.contrast`). Its equivalence verdict is a TOST at
:data:`MARGIN_PP`, declared in :mod:`experiments.analysis.paper_claims` on 2026-11-22, after the
first 100-repetition records had been read (the Method section tells the history). Beside it: the
Nadeau–Bengio interval for new data and the predictive check of the paper's table
(:mod:`experiments.analysis.paper_as_samples`). The conclusion and the table also go to
``report/summary.md``, which
:mod:`experiments.reporting.report` copies into README.md's generated block.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.analysis.benchmark import contrasts, dataset_accuracies
from experiments.analysis.cells import DATASET_NAMES, PAPER_TABLES
from experiments.analysis.dataset_effects import change_under, effect_rows
from experiments.analysis.paper_as_samples import scope_intervals
from experiments.analysis.paper_claims import cells_of, paper_differences, split_differences, verdict_counts
from experiments.analysis.paper_sentences import is_method_sentence
from experiments.analysis.plan import ALPHA, CONFIRMED, INTERVAL_LEVEL, MARGIN_PP
from experiments.analysis.statistics import mean_ci
from experiments.reporting.claims_text import counts_text
from experiments.reporting.formatting import probability
from experiments.reporting.section import Rendered, ReportContext, Section
from experiments.reporting.sections.audit import mechanism_records
from experiments.reporting.sections.baselines import against_baseline
from experiments.reporting.sections.claims import decisions_of
from experiments.reporting.sections.paper_samples import shared_check

FIGURE = "figures/difference_forest.png"
#: The level of every interval here: that of the one-sided decisions at α (90 %).
LEVEL = f"{INTERVAL_LEVEL:.0%}"
SUMMARY = "report/summary.md"
#: The most words the conclusion may have.
MAX_WORDS = 200


def _reading(row) -> str:
    """The dataset's verdict by the claims' one threshold: inside ±m (TOST), beyond it, or neither
    (not decided), with the side of 0 where the interval excludes it."""
    m = f"{MARGIN_PP:g}"
    side = "" if not row.significant else (", DisDF ahead" if row.mean > 0 else ", DisDF behind")
    if row.equivalent:
        return f"equivalent (TOST ±{m}){side}"
    if row.above or row.below:
        return f"DisDF {'better' if row.above else 'worse'} by more than {m}"
    return f"not decided at ±{m}{side}"


def effect_table(rows: pd.DataFrame) -> str:
    """The effect-size table in Markdown: ours given the file, for new data, the paper's, the verdict,
    and how likely a table like the paper's is from our splits."""
    table = pd.DataFrame(
        {
            "dataset": [DATASET_NAMES.get(d, d) for d in rows["dataset"]],
            f"DisDF − gcF (points), {LEVEL} CI given the file": [
                f"{r.mean:+.2f} [{r.ci_low:+.2f}, {r.ci_high:+.2f}]" for r in rows.itertuples()
            ],
            f"new data: Nadeau–Bengio, {LEVEL}": [
                f"[{r.nb_low:+.2f}, {r.nb_high:+.2f}]" for r in rows.itertuples()
            ],
            "paper": [f"{p:+.2f}" for p in rows["paper"]],
            f"verdict at ±{MARGIN_PP:g}": [_reading(r) for r in rows.itertuples()],
            "P(paper's table): λ = 1 / λ on test": [
                f"{probability(r.p_fixed)} / {probability(r.p_chosen)}" for r in rows.itertuples()
            ],
        }
    )
    return table.to_markdown(index=False, disable_numparse=True)


def _possessive(name: str) -> str:
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def _names(datasets) -> str:
    names = [DATASET_NAMES.get(d, d) for d in datasets]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _change(headline: pd.DataFrame, mechanism: pd.DataFrame, dataset: str) -> str:
    """DisDF − gcF under a mechanism at T = 100, with its interval (the claim qualifiers' split-paired
    change is APPENDIX.md's)."""
    level = change_under(mechanism, dataset)
    return f"{level['mean']:+.2f} [{level['ci_low']:+.2f}, {level['ci_high']:+.2f}]"


def conclusion(facts: dict) -> str:
    """The verdict paragraph from computed facts (see ``gather_facts``); at most MAX_WORDS words."""
    rows = facts["effects"]
    same = rows[rows["equivalent"] & ~rows["significant"]]
    small = rows[rows["equivalent"] & rows["significant"]]
    other = rows[~rows["equivalent"]]
    opening = []
    if len(same):
        opening.append(
            f"on {_names(same['dataset'])} DisDF's accuracy is within ±{MARGIN_PP:g} point of gcForest's"
        )
    for r in other.itertuples():
        opening.append(
            f"on {DATASET_NAMES.get(r.dataset, r.dataset)} DisDF is {r.mean:+.2f} [{r.ci_low:+.2f}, "
            f"{r.ci_high:+.2f}] points {'ahead' if r.mean > 0 else 'behind'}, against the paper's "
            f"{r.paper:+.1f}"
        )
    parts = ["**" + "; ".join(opening)[:1].upper() + "; ".join(opening)[1:] + ".**"]
    if len(small):
        said = [
            f"{_possessive(DATASET_NAMES.get(r.dataset, r.dataset))} {r.mean:+.2f} [{r.ci_low:+.2f}, "
            f"{r.ci_high:+.2f}]"
            for r in small.itertuples()
        ]
        sides = {"above" if mean > 0 else "below" for mean in small["mean"]}
        verb = "is" if len(said) == 1 else "are"
        parts.append(f" {' and '.join(said)} {verb} {' or '.join(sorted(sides))} 0 but inside the margin.")
    for r in other.itertuples():
        if r.dataset in facts["mechanisms"]:
            parts.append(
                f" {_possessive(DATASET_NAMES.get(r.dataset, r.dataset))} {facts['mechanisms'][r.dataset]}."
            )
    widest = rows.loc[rows["nb_high"].idxmax()]
    crossing = rows[(rows["nb_low"] < -MARGIN_PP) | (rows["nb_high"] > MARGIN_PP)]
    parts.append(
        f" For new data (Nadeau–Bengio) {len(crossing)} of {len(rows)} intervals reach past "
        f"±{MARGIN_PP:g} ({_possessive(DATASET_NAMES.get(widest.dataset, widest.dataset))} "
        f"[{widest.nb_low:+.2f}, {widest.nb_high:+.2f}])."
    )
    chosen = rows[rows["p_chosen"] >= ALPHA]
    parts.append(
        " The paper's differences are not reproduced: tables of a few of our splits per cell reach its mean "
        "and sign pattern with P ≤ "
        f"{probability(rows['p_fixed'].max())} at λ = τ = 1"
        + (
            f"; choosing λ on the test data, as the paper did (on MNIST: assumed), raises that to "
            f"{probability(chosen['p_chosen'].min())}–{probability(chosen['p_chosen'].max())} "
            f"on {_names(chosen['dataset'])}."
            if len(chosen)
            else f", and choosing λ on the test data, as the paper did, keeps it below {ALPHA:g}."
        )
    )
    parts.append(f" The paper's section-6 sentences: {facts['claims']}.")
    parts.append(
        f" **Take from it:** expect gcForest's accuracy from DisDF{facts['benchmark']}; a forest of "
        f"extremely randomised trees beat both cascades in {facts['baselines']}."
    )
    return "".join(parts)


def with_samples(effects: pd.DataFrame, headline: pd.DataFrame, check: pd.DataFrame) -> pd.DataFrame:
    """The effects with Nadeau and Bengio's standard interval for new data and the predictive check's
    joint P of a table like the paper's (``check``: the rows of
    :func:`~experiments.analysis.paper_as_samples.predictive_check`), the largest over n = 1 and n̂:
    with λ = τ = 1 (``p_fixed``) and with λ chosen on the test data, each split's best (``p_chosen``)."""
    scope = scope_intervals(headline).set_index("dataset")
    joint = check.pivot_table(index="dataset", columns="selection", values="p_joint", aggfunc="max")
    return effects.assign(
        nb_low=effects["dataset"].map(scope["nb_low"]),
        nb_high=effects["dataset"].map(scope["nb_high"]),
        p_fixed=effects["dataset"].map(joint["λ = τ = 1"]),
        p_chosen=effects["dataset"].map(joint.get("λ best per split", joint["λ = τ = 1"] * np.nan)),
    )


def benchmark_phrase(context: ReportContext) -> str:
    """The benchmark's DisDF − gcF verdict across tables (regime a), when its records exist."""
    records, _ = context.records("benchmark")
    if records.empty:
        return ""
    accuracies = dataset_accuracies(records)
    fixed = next(c for c in contrasts(accuracies) if c.treatment == "disdf")
    return (
        f" (across {len(accuracies)} other tables the two are {fixed.verdict} within ±{MARGIN_PP:g} "
        f"point, Bayesian P = {fixed.p_equivalent:.2f})"
    )


def gather_facts(context: ReportContext, headline: pd.DataFrame, paper: pd.DataFrame) -> dict:
    """Every number the conclusion states, from the records (the audit's and baselines' when present)."""
    shared = shared_check(context)
    assert shared is not None  # the verdict renders only with the headline's records
    effects = with_samples(effect_rows(headline, paper), headline, shared.check)
    mechanisms = {}
    for dataset in effects[~effects["equivalent"]]["dataset"]:
        said = []
        for name, words in (
            ("base_code", "the paper's base code"),
            ("subject_groups", "subject-disjoint splits"),
        ):
            records = mechanism_records(name, context)
            if not records.empty and dataset in set(records["dataset"]):
                said.append(f"{_change(headline, records, dataset)} with {words}")
        if said:
            mechanisms[dataset] = "gain at T = 100 is " + " and ".join(said)
    decisions = [d for d in decisions_of(context, headline, paper) if d.counted]
    methods = [d for d in decisions if is_method_sentence(d.sentence)]
    return {
        "effects": effects,
        "mechanisms": mechanisms,
        "repetitions": int(headline.groupby(["dataset", "N", "T"])["repetition"].nunique().min()),
        "benchmark": benchmark_phrase(context),
        "claims": f"{counts_text(verdict_counts(decisions))} of the {len(decisions)} the paper's own tables "
        f"satisfy (DisDF against gcF: {verdict_counts(methods)[CONFIRMED]} of {len(methods)} confirmed" + ")",
        "baselines": baseline_phrase(context, headline),
    }


def baseline_phrase(context: ReportContext, headline: pd.DataFrame) -> str:
    """Where extra trees beat both cascades in every cell (Holm), with the per-cell range of the gap."""
    baselines, _ = context.records("baselines")
    if baselines.empty:
        return "our baseline runs (`make baselines`)"
    extra = baselines[baselines["method"] == "extra_trees"]
    won, gaps = [], []
    for dataset in sorted(set(extra["dataset"])):
        tests = [
            against_baseline(
                headline[(headline["dataset"] == dataset) & (headline["method"] == m)],
                extra[extra["dataset"] == dataset],
            )
            for m in ("gcforest", "disdf")
        ]
        if all(t["worse"].all() for t in tests):
            won.append(dataset)
            gaps += [-d for t in tests for d in t["d"]]
    if not won:
        return "no dataset's every cell"
    return f"every {_names(won)} cell (by {min(gaps):.1f}–{max(gaps):.1f} points)"


#: Room beside a panel's data for the paper's values beyond it (▶ and the value), a fraction of its span.
ANNOTATION_ROOM = 0.55
#: Margin beyond a panel's data, a fraction of its span.
PAD = 0.08
#: Legend label of a paper value beyond a panel's x range.
BEYOND = "paper, beyond the x range (its value)"


def panel_limits(lows: np.ndarray, highs: np.ndarray, paper: np.ndarray) -> tuple[float, float]:
    """A panel's x range: our CIs and the ±margin band, padded, with room on each side where a paper
    value lies beyond them (it is drawn at the edge with its number)."""
    low = min(float(np.min(lows)), -MARGIN_PP)
    high = max(float(np.max(highs)), MARGIN_PP)
    span = high - low
    paper = paper[np.isfinite(paper)]
    left = PAD + (ANNOTATION_ROOM if (paper < low).any() else 0.0)
    right = PAD + (ANNOTATION_ROOM if (paper > high).any() else 0.0)
    return low - left * span, high + right * span


def draw_paper_values(
    ax, values: np.ndarray, y: np.ndarray, limits: tuple[float, float], size: float
) -> None:
    """The paper's values: a cross where inside the panel's range, else ▶ (◀) at the edge with the value."""
    inside = (values >= limits[0]) & (values <= limits[1])
    ax.plot(values[inside], y[inside], "x", color="tab:red", ms=size, mew=1.5, label="paper")
    edge = 0.015 * (limits[1] - limits[0])
    for value, row in zip(
        values[~inside & np.isfinite(values)], y[~inside & np.isfinite(values)], strict=True
    ):
        right = value > limits[1]
        x = limits[1] - edge if right else limits[0] + edge
        ax.plot([x], [row], ">" if right else "<", color="tab:red", ms=4.5, label=BEYOND)
        ax.annotate(
            f"{value:+.1f}",
            (x, row),
            xytext=(-5 if right else 5, 0),
            textcoords="offset points",
            ha="right" if right else "left",
            va="center",
            fontsize=7,
            color="tab:red",
        )


#: The pooled row's two intervals: given the file (a black diamond), for new data (a grey bar below).
POOLED_FILE = {
    "fmt": "D",
    "color": "black",
    "ms": 5,
    "label": f"ours, all 16 cells, {LEVEL} CI given the file",
}
POOLED_NEW_DATA = {
    "fmt": "none",
    "ecolor": "0.45",
    "elinewidth": 2.5,
    "label": f"all 16 cells, new data (Nadeau–Bengio, {LEVEL})",
}


def _forest_panel(
    ax, dataset: str, differences: pd.DataFrame, paper_diff: pd.DataFrame, pooled: pd.Series
) -> None:
    """One dataset's panel of :func:`forest_figure`: each cell's DisDF − gcF with its CI and the paper's
    value, the pooled effect at the top (given the file, and for new data), the ±margin band."""
    table = differences.loc[dataset]
    cells = cells_of(table, None, None)
    y = np.arange(len(cells) + 1)[::-1]
    means, halves = (
        np.array(values)
        for values in zip(
            *(mean_ci(table.loc[N][T].dropna().to_numpy(), INTERVAL_LEVEL) for N, T in cells), strict=True
        )
    )
    theirs = np.array(
        [paper_diff.loc[(dataset, N), T] if dataset in paper_diff.index else np.nan for N, T in cells]
    )
    limits = panel_limits(
        np.append(means - halves, [pooled["ci_low"], pooled["nb_low"]]),
        np.append(means + halves, [pooled["ci_high"], pooled["nb_high"]]),
        np.append(theirs, pooled["paper"]),
    )
    ax.set_xlim(limits)
    ax.axvspan(
        -MARGIN_PP,
        MARGIN_PP,
        color="0.9",
        zorder=0,
        label=f"±{MARGIN_PP:g} pp",
    )
    ax.axvline(0, color="0.4", lw=0.8)
    ax.errorbar(
        means, y[1:], xerr=halves, fmt="o", color="tab:blue", ms=3.5, capsize=2, label=f"ours, {LEVEL} CI"
    )
    draw_paper_values(ax, theirs, y[1:], limits, 6)
    for row, (low, high), style in (
        (y[0], ("ci_low", "ci_high"), POOLED_FILE),
        (y[0] - 0.35, ("nb_low", "nb_high"), POOLED_NEW_DATA),
    ):
        interval = [[pooled["mean"] - pooled[low]], [pooled[high] - pooled["mean"]]]
        ax.errorbar([pooled["mean"]], [row], xerr=interval, capsize=3, **style)
    draw_paper_values(ax, np.array([pooled["paper"]]), y[:1], limits, 8)
    ax.set_yticks(y, ["all cells", *(f"N={N}, T={T}" for N, T in cells)], fontsize=7)
    ax.set_ylim(-0.7, len(cells) + 0.7)
    ax.set_title(DATASET_NAMES.get(dataset, dataset))
    ax.set_xlabel("DisDF − gcF test accuracy (pp)")
    ax.grid(alpha=0.3, axis="x")


def forest_figure(records: pd.DataFrame, paper: pd.DataFrame, effects: pd.DataFrame):
    """Per dataset a panel: each cell's DisDF − gcF with its 90 % CI (ours, not adjusted for
    multiplicity) and the paper's value, the dataset's pooled effect at the top (given the file, and
    for new data by Nadeau–Bengio, in grey), the ±margin band
    shaded. Each panel has its own x range, fitted to our CIs: the paper's values beyond it are drawn at
    its edge with their number (a shared range, set by the paper's −8 to +21 points, left our CIs
    about 2 pixels wide)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    differences, paper_diff = split_differences(records), paper_differences(paper)
    datasets = list(effects["dataset"])
    figure, axes = plt.subplots(
        1,
        len(datasets),
        figsize=(2.8 * len(datasets) + 1.2, 6.6),
        sharey=True,
        squeeze=False,
        layout="constrained",
    )
    for ax, dataset in zip(axes[0], datasets, strict=True):
        _forest_panel(ax, dataset, differences, paper_diff, effects[effects["dataset"] == dataset].iloc[0])
    entries = {
        label: handle for ax in axes[0] for handle, label in zip(*ax.get_legend_handles_labels(), strict=True)
    }
    figure.legend(
        entries.values(), entries.keys(), loc="outside lower center", ncol=5, fontsize=8, frameon=False
    )
    figure.suptitle(
        f"DisDF − gcF per cell: ours (mean over splits with {LEVEL} CI per cell, not adjusted for "
        "multiplicity) and the paper's\neach panel on its own x range, fitted to our intervals; the pooled "
        "row also for new data (grey)",
        fontsize=10,
    )
    return figure


def draw_forest_plot(records: pd.DataFrame, paper: pd.DataFrame, effects: pd.DataFrame, path: Path) -> None:
    """:func:`forest_figure` into ``path`` (a PNG)."""
    import matplotlib.pyplot as plt

    figure = forest_figure(records, paper, effects)
    figure.savefig(path, dpi=120, format="png")
    plt.close(figure)


def render(context: ReportContext) -> Rendered | None:
    """The verdict, the effect-size table and the forest plot; None without headline records."""
    headline, _ = context.records("paper")
    if headline.empty:
        return None
    paper = pd.read_csv(PAPER_TABLES)
    facts = gather_facts(context, headline, paper)
    text = conclusion(facts)
    table = effect_table(facts["effects"])
    summary = "\n".join([text, "", table, ""])
    markdown = "\n".join(
        [
            "## Verdict",
            "",
            summary,
            f"DisDF − gcF over the 16 cells, {LEVEL} intervals (one-sided tests at {ALPHA:g}); P: predictive "
            "check, largest over n = 1 and n̂.",
            "",
            f"![DisDF − gcF per cell, ours and the paper's]({FIGURE})",
            "",
        ]
    )
    return Rendered(
        markdown,
        figures={FIGURE: partial(draw_forest_plot, headline, paper, facts["effects"])},
        files={SUMMARY: summary},
    )


SECTION = Section(
    "verdict", "the records of experiment=paper (and the audit's and baselines' when present)", render
)
