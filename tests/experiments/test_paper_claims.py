"""The verdicts on the paper's section-6 sentences, on synthetic records whose truth is planted: decided
at the split (not by counting cells), by one symmetric rule set, counted as sentences."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from experiments.analysis.cells import paired_tests
from experiments.analysis.claim_qualifiers import qualifiers_section
from experiments.analysis.paper_claims import (
    CONFIRMED,
    EQUIVALENT,
    EVERY,
    FINDINGS,
    GREATER,
    HIGHER,
    LOWER,
    MOST,
    NEITHER,
    NO_DIFFERENCE,
    NOT_GREATER,
    REFUTED,
    SENTENCES,
    SOME,
    UNDECIDED,
    VERDICT_OF,
    Decision,
    combine,
    counts_lines,
    finding,
    is_method_sentence,
    rows_table,
    sentence_decisions,
    sentence_table,
    verdict_counts,
)

PAPER = Path(__file__).resolve().parents[2] / "results" / "paper" / "paper_tables.csv"
DATASETS = ("parkinsons", "ecoli", "ionosphere", "mnist")
NS = (50, 80, 100, 120)
TS = (100, 400, 700, 1000)
Effect = Callable[[str, int, int], float]


def no_effect(dataset: str, N: int, T: int) -> float:
    return 0.0


def make_records(
    difference: Effect = no_effect,
    t_effect: Effect = no_effect,
    repetitions: int = 30,
    seed: int = 0,
    noise: float = 1.0,
) -> pd.DataFrame:
    """Accuracy in points = 60 + 0.2 N + split effect (SD 3, shared by every T and both methods)
    + ``t_effect`` + ``difference`` (DisDF only) + unit noise (SD ``noise``); stored as a fraction."""
    rng = np.random.default_rng(seed)
    rows = []
    for dataset in DATASETS:
        for N in NS:
            for repetition in range(repetitions):
                split = rng.normal(0, 3)
                for T in TS:
                    for method in ("gcforest", "disdf"):
                        points = 60 + 0.2 * N + split + t_effect(dataset, N, T) + rng.normal(0, noise)
                        points += difference(dataset, N, T) if method == "disdf" else 0.0
                        rows.append(
                            {
                                "dataset": dataset,
                                "N": N,
                                "T": T,
                                "method": method,
                                "repetition": repetition,
                                "accuracy": points / 100,
                            }
                        )
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def paper() -> pd.DataFrame:
    return pd.read_csv(PAPER)


def decided(records: pd.DataFrame, paper: pd.DataFrame, scanning=None) -> dict[str, Decision]:
    return {d.sentence.number: d for d in sentence_decisions(records, paper, scanning)}


def verdicts(records: pd.DataFrame, paper: pd.DataFrame) -> dict[str, str]:
    return {number: d.verdict for number, d in decided(records, paper).items()}


# --- the rule set -------------------------------------------------------------------------------


def test_every_claim_can_be_confirmed_refuted_or_left_undecided_and_not_greater_negates_greater():
    for claim, table in VERDICT_OF.items():
        assert set(table) == set(FINDINGS), claim
        assert set(table.values()) == {CONFIRMED, REFUTED, UNDECIDED}, claim
        assert table[NEITHER] == UNDECIDED  # no evidence decides nothing, for every claim
    swap = {CONFIRMED: REFUTED, REFUTED: CONFIRMED, UNDECIDED: UNDECIDED}
    assert VERDICT_OF[NOT_GREATER] == {f: swap[v] for f, v in VERDICT_OF[GREATER].items()}
    # "not significant" is confirmed by equivalence only, never by a mere absence of significance
    assert [f for f, v in VERDICT_OF[NO_DIFFERENCE].items() if v == CONFIRMED] == [EQUIVALENT]
    assert VERDICT_OF[GREATER][EQUIVALENT] == REFUTED


def test_a_finding_checks_equivalence_first_then_a_direction():
    assert finding(p_higher=0.01, p_lower=1.0, p_tost=0.01) == EQUIVALENT  # significant but inside ±1
    assert finding(p_higher=0.01, p_lower=1.0, p_tost=0.2) == HIGHER
    assert finding(p_higher=1.0, p_lower=0.01, p_tost=0.2) == LOWER
    assert finding(p_higher=0.2, p_lower=0.8, p_tost=0.2) == NEITHER


@pytest.mark.parametrize(
    ("rows", "every", "most", "some"),
    [
        ([CONFIRMED] * 4, CONFIRMED, CONFIRMED, CONFIRMED),
        ([CONFIRMED, CONFIRMED, CONFIRMED, UNDECIDED], UNDECIDED, CONFIRMED, CONFIRMED),
        ([CONFIRMED, CONFIRMED, REFUTED, UNDECIDED], REFUTED, UNDECIDED, CONFIRMED),
        ([CONFIRMED, CONFIRMED, REFUTED, REFUTED], REFUTED, REFUTED, CONFIRMED),
        ([REFUTED, REFUTED, REFUTED, UNDECIDED], REFUTED, REFUTED, UNDECIDED),
        ([REFUTED] * 4, REFUTED, REFUTED, REFUTED),
        ([UNDECIDED] * 4, UNDECIDED, UNDECIDED, UNDECIDED),
    ],
)
def test_a_sentence_is_decided_only_when_its_undecided_rows_cannot_change_it(rows, every, most, some):
    assert combine(rows, EVERY) == every
    assert combine(rows, MOST) == most
    assert combine(rows, SOME) == some


def test_the_sentences_are_the_papers_and_our_rows_are_marked():
    assert [s.number for s in SENTENCES] == [str(n) for n in range(1, 16)]
    methods = [s.number for s in SENTENCES if is_method_sentence(s)]
    assert methods == [*map(str, range(1, 11)), "13", "14"]
    ours = {(s.number, r.dataset) for s in SENTENCES for r in s.rows if r.ours}
    assert ours == {("11", "mnist"), ("12", "parkinsons")}
    assert not any("conclusion" in s.text for s in SENTENCES)


# --- planted effects ----------------------------------------------------------------------------


def test_the_split_rule_refutes_where_counting_correlated_cells_confirmed(paper):
    """Parkinsons (100 splits per N): +3 in every cell of N = 50 and 80, +2 at N = 100, T = 100 only.
    Nine of 16 cells are significantly better and none worse, which the old cell rule ("more than half
    of the cells") confirmed; at the split N = 100 averages +0.5 and N = 120 is 0, both inside ±1: two
    of four N refuted, so "in most cases" is refuted."""

    def difference(dataset: str, N: int, T: int) -> float:
        if dataset != "parkinsons":
            return 0.0
        return 3.0 if N in (50, 80) else 2.0 * ((N, T) == (100, 100))

    records = make_records(difference, repetitions=100, seed=1)
    cells = paired_tests(records)
    cells = cells[cells["dataset"] == "parkinsons"]
    assert (cells["verdict"] == "DisDF better").sum() == 9 and (cells["verdict"] == "DisDF worse").sum() == 0
    sentence = decided(records, paper)["1"]
    assert [r.finding for r in sentence.rows] == [HIGHER, HIGHER, EQUIVALENT, EQUIVALENT]
    assert sentence.verdict == REFUTED


def test_equivalence_refutes_directional_claims_even_when_significant(paper):
    """Ecoli +0.4 everywhere (100 splits per N, as the headline): significantly above 0 at the split,
    and inside ±1 point."""
    records = make_records(lambda dataset, N, T: 0.4 * (dataset == "ecoli"), repetitions=100, seed=2)
    got = decided(records, paper)
    six = got["6"].rows[0]
    assert six.finding == EQUIVALENT and six.p_higher < 0.05 and six.mark == "≈(▲)"
    assert got["6"].verdict == REFUTED
    assert got["8"].verdict == REFUTED  # every N equivalent
    assert got["7"].verdict == CONFIRMED  # "does not outperform": equivalence confirms the negation
    for number in ("3", "4", "5", "9"):  # "larger at c" claims can now be refuted: a flat table
        assert got[number].verdict == REFUTED, number


def test_a_not_significant_claim_with_a_wide_interval_is_undecided(paper):
    """No difference, but unit noise of SD 8: no cell is significant (the old rule confirmed
    "not significant"), and neither is the split, whose interval is wider than ±1 point."""
    records = make_records(noise=8.0, seed=3)
    cells = paired_tests(records)
    assert (cells[cells["dataset"] == "parkinsons"]["verdict"] == "no significant difference").all()
    sentence = decided(records, paper)["2"]
    assert [r.finding for r in sentence.rows] == [NEITHER, NEITHER]
    assert all(r.result["ci_high"] - r.result["ci_low"] > 2.0 for r in sentence.rows)
    assert sentence.verdict == UNDECIDED


def test_planted_effects_are_found_in_the_claimed_direction(paper):
    def difference(dataset: str, N: int, T: int) -> float:
        return {
            "parkinsons": 3.0 + 3.0 * ((N, T) == (100, 100)),  # every N; N=100,T=100 above the rest
            "ecoli": 3.0 * (N == 120),  # N = 120 only: claims 6 and 7 wrong
            "ionosphere": 3.0 * (N == 50),
            "mnist": -3.0 * ((N, T) == (50, 100)),  # the claimed largest cell is the lowest
        }[dataset]

    def t_effect(dataset: str, N: int, T: int) -> float:
        return 3.0 * (N in (80, 100) and T == 400) + 4.0 * ((N, T) == (120, 1000))

    got = verdicts(make_records(difference, t_effect, seed=4), paper)
    assert got["1"] == CONFIRMED
    assert got["2"] == REFUTED  # +3 at N = 50 and 120
    assert got["3"] == CONFIRMED
    assert got["6"] == REFUTED  # equivalent at N = 50
    assert got["7"] == REFUTED  # DisDF +3 at N = 120, T = 700
    assert got["8"] == REFUTED  # three of the four N equivalent
    assert got["10"] == CONFIRMED
    assert got["11"] == CONFIRMED  # more N (0.2 points per example) and T = 700/1000 +2 at N = 120
    assert got["12"] == CONFIRMED  # T = 400/700 +1.5 above T = 1000 at N = 80 and 100
    assert got["13"] == REFUTED
    assert got["14"] == REFUTED  # significantly below the rest


def test_rows_we_add_are_decided_apart_and_never_counted(paper):
    """T helps at N = 120 on the paper's three tables but not on MNIST (our row of sentence 11)."""

    def t_effect(dataset: str, N: int, T: int) -> float:
        return 4.0 * ((N, T) == (120, 1000)) * (dataset != "mnist")

    sentence = decided(make_records(t_effect=t_effect, seed=5), paper)["11"]
    assert sentence.verdict == CONFIRMED
    assert sentence.ours_verdict == REFUTED  # MNIST's T contrast is equivalent to 0
    assert {r.row.dataset for r in sentence.ours} == {"mnist"}
    assert all(not r.row.ours for r in sentence.rows)


def test_holm_is_applied_across_the_rows_of_a_sentence(paper):
    records = make_records(lambda dataset, N, T: 0.6 * (dataset == "parkinsons"), seed=6, noise=3.0)
    sentence = decided(records, paper)["1"]
    per_split = records[records["dataset"] == "parkinsons"].pivot_table(
        index=["N", "repetition"], columns="method", values="accuracy"
    )
    raw = [
        stats.ttest_1samp(100 * (g["disdf"] - g["gcforest"]), 0, alternative="greater").pvalue
        for _, g in per_split.groupby(level="N")
    ]
    order = np.argsort(raw)
    expected = np.maximum.accumulate(np.minimum(1, (len(raw) - np.arange(len(raw))) * np.array(raw)[order]))
    got = np.array([r.p_higher for r in sentence.rows])[order]
    np.testing.assert_allclose(got, expected, rtol=1e-9)


def test_the_scanning_sentence_needs_one_n_for_each_method(paper):
    records = make_records(seed=7)
    mnist = records[records["dataset"] == "mnist"]
    pairs = mnist[mnist["T"].isin([100, 1000])][["method", "N", "T", "repetition"]].copy()
    rng = np.random.default_rng(0)
    # with − without scanning: -5 at N = 50 for both methods, nothing elsewhere
    pairs["d"] = -5.0 * (pairs["N"] == 50) + rng.normal(0, 1, len(pairs))
    sentence = decided(records, paper, pairs)["15"]
    assert sentence.verdict == CONFIRMED
    assert {r.row.method for r in sentence.rows if r.finding == HIGHER} == {"gcforest", "disdf"}
    pairs["d"] = rng.normal(0, 0.3, len(pairs))  # no effect anywhere: every row equivalent
    assert decided(records, paper, pairs)["15"].verdict == REFUTED
    assert "15" not in decided(records, paper)  # no scanning records: not decided, not shown


def test_the_paper_column_is_computed_from_the_paper(paper):
    got = decided(make_records(seed=8), paper)
    # Parkinsons N = 50, the paper's four T: (4 + 2 + 0 + 1) / 4 points
    assert got["1"].rows[0].paper == pytest.approx(1.75)
    assert got["7"].rows[0].paper == pytest.approx(-1.0)  # Ecoli N = 120, T = 700: 0.92 − 0.93
    # sentence 12, Ecoli N = 80, both methods averaged: (0.82 + 0.885) / 2 − 0.86
    assert got["12"].rows[0].paper == pytest.approx(100 * ((0.82 + 0.885) / 2 - 0.86))


def test_only_confirmed_sentences_that_disdf_is_better_get_qualifiers(paper):
    """Parkinsons +3 everywhere confirms sentence 1; Ecoli's null confirms sentence 7 ("does not
    outperform"), which has nothing to qualify."""
    records = make_records(lambda dataset, N, T: 3.0 * (dataset == "parkinsons"), seed=10)
    decisions = sentence_decisions(records, paper)
    assert {d.sentence.number for d in decisions if d.verdict == CONFIRMED} >= {"1", "7"}
    text = "\n".join(qualifiers_section(records, {}, decisions))
    assert "**Sentence 1 (Parkinsons) holds only with qualifiers.**" in text
    assert "Sentence 7" not in text


# --- rendering ----------------------------------------------------------------------------------


def test_the_table_has_one_line_per_sentence_and_counts_sentences(paper):
    decisions = sentence_decisions(make_records(seed=9), paper)
    table = sentence_table(decisions)
    lines = [line for line in table.splitlines() if line.startswith("|")]
    assert len(lines) == len(decisions) + 2 == 16  # header, separator; no scanning records
    assert "paper (pp)" in lines[0]
    counts = verdict_counts(decisions)
    (line,) = counts_lines(decisions)
    numbers = [int(n) for n in re.findall(r"\b\d+\b", line.split("(")[0])]
    assert numbers == [counts[CONFIRMED], counts[REFUTED], counts[UNDECIDED]]
    assert f"(of {len(decisions)})" in line and "the 12 comparing DisDF with gcF" in line
    assert "*" in table  # rows we add are marked
    earlier = {"old (01-01)": [*["✔"] * len(decisions), "1✔ of 1 rows"]}
    with_history = sentence_table(decisions, earlier)
    assert "old (01-01)" in with_history and with_history.count("\n") == table.count("\n") + 1
    detail = rows_table(decisions)
    assert len(detail.splitlines()) == sum(len(d.rows) + len(d.ours) for d in decisions) + 2
