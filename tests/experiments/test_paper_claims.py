"""The verdicts on the paper's section-6 sentences, on synthetic records whose truth is planted: decided
at the split (not by counting cells), by one threshold (the margin) for confirming and refuting,
counted as sentences, and each sentence's contrast checked on the paper's own tables."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from experiments.analysis.cells import paired_tests
from experiments.analysis.claim_rules import (
    ABOVE,
    BELOW,
    EVERY,
    FINDINGS,
    GREATER,
    INSIDE,
    MOST,
    NEITHER,
    NO_DIFFERENCE,
    NOT_GREATER,
    OVER,
    SOME,
    UNDER,
    VERDICT_OF,
    combine,
    finding,
)
from experiments.analysis.paper_claims import (
    STABILITY_SPLITS,
    Decision,
    Tables,
    paper_verdict,
    rule_stability,
    sentence_decisions,
    verdict_counts,
)
from experiments.analysis.paper_sentences import SENTENCES, is_method_sentence
from experiments.analysis.plan import CONFIRMED, NOT_DECIDED, REFUTED
from experiments.reporting.claims_text import counts_lines, rows_table, sentence_table
from experiments.reporting.qualifiers_text import qualifiers_section

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
                                "n_test": round(2 * N / 3),
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


def test_one_threshold_decides_both_ways_and_not_greater_negates_greater():
    for claim, table in VERDICT_OF.items():
        assert set(table) == set(FINDINGS), claim
        assert set(table.values()) == {CONFIRMED, REFUTED, NOT_DECIDED}, claim
        assert table[NEITHER] == NOT_DECIDED  # no evidence decides nothing, for every claim
    swap = {CONFIRMED: REFUTED, REFUTED: CONFIRMED, NOT_DECIDED: NOT_DECIDED}
    assert VERDICT_OF[NOT_GREATER] == {f: swap[v] for f, v in VERDICT_OF[GREATER].items()}
    # a gain is confirmed only above +m, refuted by anything shown below +m (0 is no threshold)
    assert [f for f, v in VERDICT_OF[GREATER].items() if v == CONFIRMED] == [ABOVE]
    assert {f for f, v in VERDICT_OF[GREATER].items() if v == REFUTED} == {INSIDE, BELOW, UNDER}
    assert VERDICT_OF[GREATER][OVER] == NOT_DECIDED  # above −m says nothing about +m
    # "not significant" is confirmed by equivalence only, refuted only beyond the margin
    assert [f for f, v in VERDICT_OF[NO_DIFFERENCE].items() if v == CONFIRMED] == [INSIDE]
    assert {f for f, v in VERDICT_OF[NO_DIFFERENCE].items() if v == REFUTED} == {ABOVE, BELOW}


def test_a_finding_reads_the_one_sided_tests_against_the_margin():
    p = dict.fromkeys(("above_plus", "below_plus", "above_minus", "below_minus", "tost"), 1.0)
    assert finding(p) == NEITHER
    assert finding(p | {"above_plus": 0.01, "above_minus": 0.001}) == ABOVE
    assert finding(p | {"below_minus": 0.01, "below_plus": 0.001}) == BELOW
    assert finding(p | {"tost": 0.01, "below_plus": 0.01, "above_minus": 0.01}) == INSIDE
    assert finding(p | {"below_plus": 0.01}) == UNDER
    assert finding(p | {"above_minus": 0.01}) == OVER


@pytest.mark.parametrize(
    ("rows", "every", "most", "some"),
    [
        ([CONFIRMED] * 4, CONFIRMED, CONFIRMED, CONFIRMED),
        ([CONFIRMED, CONFIRMED, CONFIRMED, NOT_DECIDED], NOT_DECIDED, CONFIRMED, CONFIRMED),
        ([CONFIRMED, CONFIRMED, REFUTED, NOT_DECIDED], REFUTED, NOT_DECIDED, CONFIRMED),
        ([CONFIRMED, CONFIRMED, REFUTED, REFUTED], REFUTED, REFUTED, CONFIRMED),
        ([REFUTED, REFUTED, REFUTED, NOT_DECIDED], REFUTED, REFUTED, NOT_DECIDED),
        ([REFUTED] * 4, REFUTED, REFUTED, REFUTED),
        ([NOT_DECIDED] * 4, NOT_DECIDED, NOT_DECIDED, NOT_DECIDED),
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


# --- the paper's own tables -----------------------------------------------------------------------


def test_every_counted_sentence_is_satisfied_by_the_papers_own_table(paper):
    """Each contrast computed on the paper's tables, its values taken as exact: every sentence the
    paper gives values for is confirmed by them, but sentence 2 ("not significant" at N = 50 and 120,
    where the paper's own differences are +1.8 and +3.3, beyond ±1), which is therefore not counted."""
    tables = Tables(make_records(seed=11), paper)
    got = {s.number: paper_verdict(s, tables) for s in SENTENCES}
    assert got.pop("15") is None  # scanning: the paper gives no table
    assert got.pop("2") == REFUTED
    assert set(got.values()) == {CONFIRMED}, got
    decisions = decided(make_records(seed=11), paper)
    assert [n for n, d in decisions.items() if not d.counted] == ["2"]


def test_sentences_3_and_12_as_the_paper_reads_them(paper):
    """3: DisDF − gcF at N = 100 and the smallest T, +2.7 in the paper; 12: a negation, T = 1000 − the
    other T (T = 100 included), "some" N; the paper's own values -0.3 and +0.75 lie within the margin."""
    got = decided(make_records(seed=12), paper)
    assert got["3"].rows[0].paper == pytest.approx(86.0 - 83.3)
    twelve = {(r.row.dataset, r.row.label): r.paper for r in got["12"].rows}
    ecoli_80 = (84 + 88) / 2 - np.mean([(88 + 89) / 2, (81 + 83) / 2, (87 + 90) / 2])
    assert twelve[("ecoli", "N=80: T=1000 − the other T")] == pytest.approx(ecoli_80)
    assert next(s for s in SENTENCES if s.number == "12").claim == NOT_GREATER


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
    assert [r.finding for r in sentence.rows] == [ABOVE, ABOVE, INSIDE, INSIDE]
    assert sentence.verdict == REFUTED


def test_a_small_significant_gain_is_refuted_not_confirmed(paper):
    """Ecoli +0.4 everywhere (100 splits per N, as the headline): significantly above 0 at the split,
    and inside ±1 point: a claimed gain is refuted, its negation confirmed."""
    records = make_records(lambda dataset, N, T: 0.4 * (dataset == "ecoli"), repetitions=100, seed=2)
    got = decided(records, paper)
    six = got["6"].rows[0]
    assert six.result["ci_low"] > 0 and six.finding == INSIDE and six.mark == "≈"
    assert got["6"].verdict == REFUTED
    assert got["8"].verdict == REFUTED  # every N equivalent
    assert got["7"].verdict == CONFIRMED  # "does not outperform": equivalence confirms the negation
    for number in ("4", "5", "9"):  # "larger at c" claims are refuted by a flat table
        assert got[number].verdict == REFUTED, number


def test_a_verdict_never_flips_as_splits_are_added():
    """The rule of the previous session confirmed "higher" for a gain of +0.5 on a few splits (the
    one-sided test against 0) and refuted it on many (equivalence first); under one threshold a fixed
    gain moves from not decided to one verdict only, for every sentence and every planted effect."""

    def difference(dataset: str, N: int, T: int) -> float:
        return {"parkinsons": 0.5 + 0.2 * (N == 100), "ecoli": 1.2, "ionosphere": 0.9, "mnist": -0.4}[dataset]

    records = make_records(difference, repetitions=30, seed=13, noise=2.0)
    paper = pd.read_csv(PAPER)
    stability = rule_stability(sentence_decisions(records, paper))
    assert sorted(stability["splits"].unique()) == list(STABILITY_SPLITS)
    for number, rows in stability.groupby("sentence"):
        assert not {CONFIRMED, REFUTED} <= set(rows["verdict"]), number
        decided_at = rows.sort_values("splits")["verdict"].tolist()
        first = next((i for i, v in enumerate(decided_at) if v != NOT_DECIDED), len(decided_at))
        assert len(set(decided_at[first:])) <= 1, number  # once decided, it stays
    one = stability[stability["sentence"] == "1"].set_index("splits")["verdict"]
    assert one[1000] == REFUTED  # +0.5 and +0.7: below +1 once the splits are many


def test_a_not_significant_claim_with_a_wide_interval_is_undecided(paper):
    """No difference, but unit noise of SD 8: no cell is significant (the old rule confirmed
    "not significant"), and neither is the split, whose interval is wider than ±1 point."""
    records = make_records(noise=8.0, seed=3)
    cells = paired_tests(records)
    assert (cells[cells["dataset"] == "parkinsons"]["verdict"] == "no significant difference").all()
    sentence = decided(records, paper)["2"]
    assert all(r.finding in (UNDER, OVER, NEITHER) for r in sentence.rows)
    assert all(r.result["ci_high"] - r.result["ci_low"] > 2.0 for r in sentence.rows)
    assert sentence.verdict == NOT_DECIDED


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
    assert got["3"] == CONFIRMED  # +6 at N = 100, T = 100
    assert got["6"] == REFUTED  # equivalent at N = 50
    assert got["7"] == REFUTED  # DisDF +3 at N = 120, T = 700
    assert got["8"] == REFUTED  # three of the four N equivalent
    assert got["10"] == CONFIRMED
    assert got["11"] == CONFIRMED  # more N (0.2 points per example) and T = 700/1000 +2 at N = 120
    assert got["12"] == CONFIRMED  # T = 1000 one point below the other T at N = 80 and 100
    assert got["13"] == REFUTED
    assert got["14"] == REFUTED  # significantly below the rest


def test_a_largest_tree_count_that_wins_refutes_sentence_12(paper):
    def t_effect(dataset: str, N: int, T: int) -> float:
        return 3.0 * (T == 1000)

    assert verdicts(make_records(t_effect=t_effect, seed=14), paper)["12"] == REFUTED


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
    records = make_records(lambda dataset, N, T: 1.6 * (dataset == "parkinsons"), seed=6, noise=3.0)
    sentence = decided(records, paper)["1"]
    per_split = records[records["dataset"] == "parkinsons"].pivot_table(
        index=["N", "repetition"], columns="method", values="accuracy"
    )
    raw = [
        stats.ttest_1samp(100 * (g["disdf"] - g["gcforest"]), 1.0, alternative="greater").pvalue
        for _, g in per_split.groupby(level="N")
    ]
    order = np.argsort(raw)
    expected = np.maximum.accumulate(np.minimum(1, (len(raw) - np.arange(len(raw))) * np.array(raw)[order]))
    got = np.array([r.p["above_plus"] for r in sentence.rows])[order]
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
    assert {r.row.method for r in sentence.rows if r.finding == ABOVE} == {"gcforest", "disdf"}
    pairs["d"] = rng.normal(0, 0.3, len(pairs))  # no effect anywhere: every row equivalent
    assert decided(records, paper, pairs)["15"].verdict == REFUTED
    assert "15" not in decided(records, paper)  # no scanning records: not decided, not shown
    noted = sentence_decisions(records, paper, pairs, scanning_note="reduced scanner")
    assert [d.note for d in noted if d.note] == ["reduced scanner"] and noted[-1].sentence.number == "15"
    assert "refuted**†" in sentence_table(noted)
    assert "† 15: reduced scanner" in counts_lines(noted)[0]


def test_the_paper_column_is_computed_from_the_paper(paper):
    got = decided(make_records(seed=8), paper)
    # Parkinsons N = 50, the paper's four T: (4 + 2 + 0 + 1) / 4 points
    assert got["1"].rows[0].paper == pytest.approx(1.75)
    assert got["7"].rows[0].paper == pytest.approx(-1.0)  # Ecoli N = 120, T = 700: 0.92 − 0.93


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


def test_the_table_has_one_line_per_sentence_and_counts_counted_sentences(paper):
    decisions = sentence_decisions(make_records(seed=9), paper)
    table = sentence_table(decisions)
    lines = [line for line in table.splitlines() if line.startswith("|")]
    assert len(lines) == len(decisions) + 2 == 16  # header, separator; no scanning records
    assert "paper (pp)" in lines[0]
    counts = verdict_counts(decisions)
    assert sum(counts.values()) == len(decisions) - 1  # sentence 2 is not counted
    (line,) = counts_lines(decisions)
    numbers = [int(n) for n in re.findall(r"\b\d+\b", line.split("(")[0])]
    assert numbers == [counts[CONFIRMED], counts[REFUTED], counts[NOT_DECIDED]]
    assert f"(of {len(decisions) - 1} counted; sentence 2 not counted" in line
    assert "the 11 comparing DisDF with gcF" in line
    assert "not counted (the paper's table: refuted)" in table
    assert "*" in table  # rows we add are marked
    earlier = {"old (01-01)": [*["✔"] * len(decisions), "1✔ of 1 rows"]}
    with_history = sentence_table(decisions, earlier)
    assert "old (01-01)" in with_history and with_history.count("\n") == table.count("\n") + 1
    detail = rows_table(decisions)
    assert len(detail.splitlines()) == sum(len(d.rows) + len(d.ours) for d in decisions) + 2
    assert "90% CI" in detail.splitlines()[0]


def test_the_scanning_sentence_is_decided_on_the_ns_its_records_have(paper):
    """gcForest's own scanner ran N = 50 and 80 only: sentence 15 is decided on those rows."""
    records = make_records(seed=15)
    mnist = records[(records["dataset"] == "mnist") & records["N"].isin([50, 80])]
    pairs = mnist[mnist["T"].isin([100, 1000])][["method", "N", "T", "repetition"]].copy()
    pairs["d"] = -5.0 + np.random.default_rng(1).normal(0, 1, len(pairs))
    sentence = decided(records, paper, pairs)["15"]
    assert {(r.row.method, r.row.label) for r in sentence.rows} == {
        (m, f"N={N}") for m in ("gcforest", "disdf") for N in (50, 80)
    }
    assert sentence.verdict == CONFIRMED


def test_a_not_decided_gain_of_disdf_keeps_its_mechanisms_in_the_appendix(paper):
    """Parkinsons +0.9 everywhere: between −1 and +1 with DisDF ahead in every row, sentence 1 is
    not decided; the appendix still shows what DisDF's lead depends on (once per dataset)."""
    records = make_records(lambda dataset, N, T: 0.9 * (dataset == "parkinsons"), seed=16)
    decisions = sentence_decisions(records, paper)
    one = next(d for d in decisions if d.sentence.number == "1")
    assert one.verdict == NOT_DECIDED and all(r.result["mean"] > 0 for r in one.rows)
    text = "\n".join(qualifiers_section(records, {}, decisions))
    assert "**Sentence 1 (Parkinsons) is not decided; what DisDF's lead depends on.**" in text
    assert text.count("(Parkinsons)") == 1
