"""What a confirmed "DisDF beats gcF" sentence depends on, as APPENDIX.md prints it: per qualifying
sentence (:func:`experiments.analysis.claim_qualifiers.qualifying_decisions`) its audit mechanisms'
effects and, descriptively, its cell counts by test."""

from __future__ import annotations

import pandas as pd

from experiments.analysis.cells import DATASET_NAMES
from experiments.analysis.claim_qualifiers import (
    AUDIT_T,
    counts_by_test,
    mechanism_effects,
    qualifying_decisions,
    tie_shares,
)
from experiments.analysis.paper_claims import Decision
from experiments.analysis.plan import CONFIRMED
from experiments.reporting.claims_text import effect_text


def mechanism_table(headline: pd.DataFrame, runs: dict[str, pd.DataFrame], dataset: str) -> pd.DataFrame:
    """Per mechanism run on ``dataset``: DisDF − gcF under it and its change against ours at T = 100."""
    rows = []
    for effect in mechanism_effects(headline, runs, dataset):
        row = {"mechanism": effect["mechanism"], "DisDF − gcF (pp)": effect_text(effect["level"], 2)}
        if "change" in effect:
            row |= {
                "change (pp)": effect_text(effect["change"], 2),
                "Wilcoxon p": f"{effect['p']:.2g}",
                "reading": effect["reading"],
            }
        rows.append(row)
    return pd.DataFrame(rows).fillna("")


def qualifiers_section(
    headline: pd.DataFrame, runs: dict[str, pd.DataFrame], decisions: list[Decision]
) -> list[str]:
    """Markdown lines: for each qualifying sentence, its mechanisms and, descriptively, its cell counts
    by test."""
    lines = []
    for decision in qualifying_decisions(decisions):
        sentence = decision.sentence
        dataset = decision.rows[0].row.dataset
        heading = (
            "holds only with qualifiers"
            if decision.verdict == CONFIRMED
            else "is not decided; what DisDF's lead depends on"
        )
        name = DATASET_NAMES.get(dataset, dataset)
        concerned = {cell for r in decision.rows for cell, weight in r.row.weights.items() if weight}
        counts = counts_by_test(headline, dataset, concerned)
        low, high = tie_shares(headline, dataset)
        by_test = ", ".join(f"{r.test} {r.better}/{r.cells} (worse {r.worse})" for r in counts.itertuples())
        lines += [
            f"**Sentence {sentence.number} ({name}) {heading}.** Under the "
            f"audit's mechanisms at T = {AUDIT_T} (change: mechanism − ours, paired by split):",
            "",
            mechanism_table(headline, runs, dataset).to_markdown(index=False),
            "",
            f"Its cells, described (the sentence is decided at the split): DisDF significantly better "
            f"(Holm within the dataset) by {by_test}; in each cell {low:.0%}–{high:.0%} of the splits give "
            "both methods exactly the same accuracy, so a cell count depends on how a test treats ties.",
            "",
        ]
    return lines
