"""What a confirmed "DisDF beats gcF" sentence depends on: the audit's mechanisms and the choice of test.

For each confirmed sentence claiming DisDF higher than gcF (:mod:`experiments.analysis.paper_claims`):

- ``mechanism_effects``: DisDF − gcF at T = 100 under each audit mechanism (the paper's base code's
  refit test vectors, ``min_samples_split = 11``, stratified or subject-disjoint splits), and its change
  against ours, paired by split, with a 95 % CI and a Wilcoxon p; a mechanism that makes the
  effect vanish or shrink is a condition the claim holds under only;
- ``counts_by_test``, descriptive (the sentence is decided at the split, not by cells): the cells
  where DisDF is significantly better / worse (Holm within the dataset) by the paired Wilcoxon test
  of the tables (zero differences dropped), by Wilcoxon with Pratt's zero handling, and by a paired
  t-test; and the share of splits whose two methods tie exactly.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.analysis.claim_rules import GREATER
from experiments.analysis.paper_claims import Decision
from experiments.analysis.paper_sentences import is_method_sentence
from experiments.analysis.plan import ALPHA, CONFIRMED, NOT_DECIDED
from experiments.analysis.statistics import (
    holm,
    one_sample_t,
    paired_t_p,
    paired_wilcoxon,
    paired_wilcoxon_pratt,
)

#: The audit mechanisms that change how the cascade is run or the data split (the faults are not).
QUALIFYING = ("refit", "min_split_11", "base_code", "stratified", "subject_groups")
AUDIT_T = 100
SPLIT = ["dataset", "N", "repetition"]
TESTS = {
    "Wilcoxon (zeros dropped)": paired_wilcoxon,
    "Wilcoxon, Pratt's zeros": paired_wilcoxon_pratt,
    "paired t": paired_t_p,
}


def difference_at_audit_t(records: pd.DataFrame) -> pd.Series:
    """DisDF − gcF in points per split at T = 100: index (dataset, N, repetition)."""
    at_t = records[records["T"] == AUDIT_T]
    wide = at_t.pivot_table(index=SPLIT, columns="method", values="accuracy").dropna()
    return 100 * (wide["disdf"] - wide["gcforest"])


def mechanism_effects(headline: pd.DataFrame, runs: dict[str, pd.DataFrame], dataset: str) -> list[dict]:
    """Per mechanism run on ``dataset`` (first: none, ours): DisDF − gcF under it (``level``, a
    :func:`~experiments.analysis.statistics.one_sample_t` result) and, for a mechanism, its ``change``
    against ours at T = 100 paired by split, the Wilcoxon ``p`` and the ``reading``."""
    ours = difference_at_audit_t(headline[headline["dataset"] == dataset])
    rows: list[dict] = [{"mechanism": "none (ours)", "level": one_sample_t(ours.to_numpy())}]
    for name in QUALIFYING:
        records = runs.get(name)
        if records is None or dataset not in set(records["dataset"]):
            continue
        under = difference_at_audit_t(records[records["dataset"] == dataset])
        mine, base = under.align(ours, join="inner")
        change = one_sample_t((mine - base).to_numpy())
        p = paired_wilcoxon(mine.to_numpy(), base.to_numpy())
        level = one_sample_t(mine.to_numpy())
        rows.append(
            {
                "mechanism": name,
                "level": level,
                "change": change,
                "p": p,
                "reading": _reading(level, change, p),
            }
        )
    return rows


def _reading(level: dict, change: dict, p: float) -> str:
    if p >= ALPHA:
        return "no significant change"
    if change["mean"] > 0:
        return "enlarges it"
    return "shrinks it to non-significance" if level["ci_low"] <= 0 else "shrinks it"


def counts_by_test(records: pd.DataFrame, dataset: str, concerned: set[tuple[int, int]]) -> pd.DataFrame:
    """The ``concerned`` (N, T) cells where DisDF is better / worse by each test (Holm within the
    dataset's cells): a description, not the rule."""
    data = records[records["dataset"] == dataset]
    wide = data.pivot_table(index=["N", "T", "repetition"], columns="method", values="accuracy").dropna()
    cells = wide.groupby(level=["N", "T"])
    mine = np.array([key in concerned for key in cells.groups])
    rows = []
    for name, test in TESTS.items():
        p = np.array([test(group["disdf"].to_numpy(), group["gcforest"].to_numpy()) for _, group in cells])
        sign = np.array([np.sign((group["disdf"] - group["gcforest"]).mean()) for _, group in cells])
        significant = holm(p) < ALPHA
        rows.append(
            {
                "test": name,
                "better": int((significant & (sign > 0) & mine).sum()),
                "worse": int((significant & (sign < 0) & mine).sum()),
                "cells": int(mine.sum()),
            }
        )
    return pd.DataFrame(rows)


def tie_shares(records: pd.DataFrame, dataset: str) -> tuple[float, float]:
    """Lowest and highest share, over the dataset's cells, of splits where DisDF and gcF tie exactly."""
    data = records[records["dataset"] == dataset]
    wide = data.pivot_table(index=["N", "T", "repetition"], columns="method", values="accuracy").dropna()
    shares = (wide["disdf"] == wide["gcforest"]).groupby(level=["N", "T"]).mean()
    return float(shares.min()), float(shares.max())


def qualifying_decisions(decisions: list[Decision]) -> list[Decision]:
    """The sentences whose qualifiers are shown: each that DisDF beats gcF, confirmed or not decided
    with DisDF ahead in every row, one per dataset (the first)."""
    chosen, seen = [], set()
    for decision in decisions:
        sentence = decision.sentence
        ahead = all(r.result["mean"] > 0 for r in decision.rows)
        if (
            not is_method_sentence(sentence)
            or sentence.claim != GREATER
            or not (decision.verdict == CONFIRMED or (decision.verdict == NOT_DECIDED and ahead))
            or decision.rows[0].row.dataset in seen
        ):
            continue
        seen.add(decision.rows[0].row.dataset)
        chosen.append(decision)
    return chosen
