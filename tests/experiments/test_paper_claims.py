"""The verdicts on the paper's section 6 claims, on synthetic records whose truth is planted."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from experiments.reporting.paper_claims import (
    CLAIMS,
    CONFIRMED,
    REFUTED,
    UNDECIDED,
    claim_verdicts,
    paper_claims_section,
)

PAPER = Path(__file__).resolve().parents[2] / "results" / "paper" / "paper_tables.csv"
DATASETS = ("parkinsons", "ecoli", "ionosphere", "mnist")
NS = (50, 80, 100, 120)
TS = (100, 400, 700, 1000)
Effect = Callable[[str, int, int], float]


def no_effect(dataset: str, N: int, T: int) -> float:
    return 0.0


def make_records(
    difference: Effect = no_effect, t_effect: Effect = no_effect, repetitions: int = 30, seed: int = 0
) -> pd.DataFrame:
    """Accuracy in points = 60 + 0.2 N + split effect (SD 3, shared by every T and both methods)
    + ``t_effect`` + ``difference`` (DisDF only) + unit noise (SD 1); stored as a fraction."""
    rng = np.random.default_rng(seed)
    rows = []
    for dataset in DATASETS:
        for N in NS:
            for repetition in range(repetitions):
                split = rng.normal(0, 3)
                for T in TS:
                    for method in ("gcforest", "disdf"):
                        points = 60 + 0.2 * N + split + t_effect(dataset, N, T) + rng.normal(0, 1)
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


def verdicts(records: pd.DataFrame, paper: pd.DataFrame) -> dict[tuple[int, str], str]:
    table = claim_verdicts(records, paper)
    return {(row.claim, row.dataset): row.verdict for row in table.itertuples()}


def scenario_a(dataset: str, N: int, T: int) -> float:
    """Parkinsons +3 everywhere and +3 more at N=100,T=100; Ecoli +3 at N=50; Ionosphere +3 at
    N=50,T=100; MNIST no difference."""
    return {
        "parkinsons": 3.0 + 3.0 * ((N, T) == (100, 100)),
        "ecoli": 3.0 * (N == 50),
        "ionosphere": 3.0 * ((N, T) == (50, 100)),
        "mnist": 0.0,
    }[dataset]


def t_effect_a(dataset: str, N: int, T: int) -> float:
    """+3 at T=400 on N=80/100; +2 at N=120,T=1000 (the best cell where the paper says)."""
    return 3.0 * (N in (80, 100) and T == 400) + 2.0 * ((N, T) == (120, 1000))


def scenario_b(dataset: str, N: int, T: int) -> float:
    """Parkinsons +3 at N=80/100 only; Ecoli +3 at N=120; Ionosphere +3 at N=50, +5 at N=50,T=1000;
    MNIST +3 everywhere."""
    return {
        "parkinsons": 3.0 * (N in (80, 100)),
        "ecoli": 3.0 * (N == 120),
        "ionosphere": 3.0 * (N == 50) + 2.0 * ((N, T) == (50, 1000)),
        "mnist": 3.0,
    }[dataset]


def t_effect_b(dataset: str, N: int, T: int) -> float:
    """No T effect on N=80/100; the best cell planted at N=120,T=100."""
    return 2.0 * ((N, T) == (120, 100))


def test_scenario_a_verdicts(paper):
    got = verdicts(make_records(scenario_a, t_effect_a), paper)
    assert got[(1, "parkinsons")] == CONFIRMED  # better in every cell
    assert got[(2, "parkinsons")] == REFUTED  # N=50/120 significant
    assert got[(3, "parkinsons")] == CONFIRMED  # N=100,T=100 above the rest
    assert got[(4, "parkinsons")] == REFUTED  # N=100,T=1000 significantly below N=100,T=100
    assert got[(5, "ecoli")] == CONFIRMED  # N=50 row is the largest
    assert got[(6, "ecoli")] == CONFIRMED  # 4/4 N=50 cells better
    assert got[(7, "ecoli")] == CONFIRMED  # N=120,T=700 not better
    assert got[(8, "ecoli")] == REFUTED  # only 2/8 of the T=100/400 cells
    assert got[(9, "ionosphere")] == CONFIRMED
    assert got[(10, "ionosphere")] == REFUTED  # 1/4 N=50 cells
    for dataset in DATASETS:
        assert got[(11, dataset)] == CONFIRMED
    for dataset in ("parkinsons", "ecoli", "ionosphere"):
        assert got[(12, dataset)] == CONFIRMED
    assert got[(13, "mnist")] == REFUTED  # no difference
    assert got[(14, "mnist")] == UNDECIDED  # no difference anywhere: not significantly below the argmax
    assert got[(15, "all")] == REFUTED  # 16 + 4 + 1 = 21 of 64


def test_scenario_b_verdicts(paper):
    records = make_records(scenario_b, t_effect_b, seed=4)
    table = claim_verdicts(records, paper)
    got = {(row.claim, row.dataset): row.verdict for row in table.itertuples()}
    assert got[(1, "parkinsons")] == REFUTED  # 8/16 is not more than half
    assert got[(2, "parkinsons")] == CONFIRMED  # nothing at N=50/120
    assert got[(3, "parkinsons")] == CONFIRMED  # +3 against the others' mean 7·3/15
    assert got[(5, "ecoli")] == REFUTED  # the N=120 row is significantly larger (Welch)
    assert got[(6, "ecoli")] == REFUTED
    assert got[(7, "ecoli")] == REFUTED  # N=120,T=700 is significantly better
    assert got[(9, "ionosphere")] == REFUTED  # N=50,T=100 significantly below N=50,T=1000 (Wilcoxon)
    assert got[(10, "ionosphere")] == CONFIRMED
    for dataset in DATASETS:
        assert got[(11, dataset)] == REFUTED  # the best cell is N=120,T=100
    for dataset in ("parkinsons", "ecoli", "ionosphere"):
        assert got[(12, dataset)] == REFUTED  # no T effect: equivalent within ±1 pp
    assert got[(13, "mnist")] == CONFIRMED
    assert got[(15, "all")] == REFUTED  # 8 + 4 + 4 + 16 = 32 is not more than half of 64
    ours = table.set_index(["claim", "dataset"])["ours"]
    assert "4 equivalent" in ours[(12, "ecoli")]
    assert "Welch" in ours[(5, "ecoli")]
    assert "Wilcoxon" in ours[(9, "ionosphere")]


@pytest.mark.parametrize("worse_cell", [False, True])
def test_one_worse_cell_refutes_most_cases(paper, worse_cell):
    def difference(dataset: str, N: int, T: int) -> float:
        if dataset == "parkinsons" and (N, T) == (100, 100):
            return 0.0  # smaller than the rest: claim 3 refuted
        return -3.0 if worse_cell and dataset == "mnist" and (N, T) == (120, 1000) else 3.0

    got = verdicts(make_records(difference, seed=2), paper)
    expected = REFUTED if worse_cell else CONFIRMED
    assert got[(13, "mnist")] == expected  # 15/16 better, but one significantly worse
    assert got[(15, "all")] == expected
    assert got[(1, "parkinsons")] == CONFIRMED  # 15/16
    assert got[(3, "parkinsons")] == REFUTED


def test_the_paper_column_is_computed_from_the_paper(paper):
    table = claim_verdicts(make_records(seed=3), paper).set_index(["claim", "dataset"])
    assert table.loc[(1, "parkinsons"), "paper"].startswith("DisDF higher in 15/16 cells")
    assert table.loc[(4, "parkinsons"), "paper"] == "N=100,T=1000: +7.0 pp; argmax N=100,T=1000: +7.0 pp"
    assert table.loc[(7, "ecoli"), "paper"] == "DisDF − gcF -1.0 pp"
    assert "+7.5 pp" in table.loc[(12, "parkinsons"), "paper"]  # N=80 gcF: 87.5 − 80.0
    # with no planted effect nothing is significant: every "outperforms" claim is refuted
    for claim in CLAIMS:
        if claim.kind == "outperforms":
            assert table.loc[(claim.number, claim.dataset), "verdict"] == REFUTED


def test_section_lists_every_claim_and_counts_the_verdicts(paper):
    lines = paper_claims_section(make_records(scenario_a, t_effect_a), paper)
    assert lines[0] == "### The paper's claims (section 6)"
    text = "\n".join(lines)
    table_rows = [line for line in text.splitlines() if line.startswith("|")]
    assert len(table_rows) == len(CLAIMS) + 2  # header and separator
    count_line = next(line for line in lines if line.startswith("Verdicts:"))
    numbers = [int(number) for number in re.findall(r"\d+", count_line)]
    assert sum(numbers[:3]) == numbers[3] == len(CLAIMS)
    assert "±1 pp" in text
