"""The history of the claim rules: the dates REPORT.md states are git's, the earlier rule sets' rows map
to the sentences, and the history CSV belongs to the records beside it."""

from __future__ import annotations

import os
import subprocess
import sys

import pandas as pd
import pytest

from experiments.analysis.claim_history import (
    COLUMNS,
    HISTORY_CSV,
    RULE_SETS,
    earlier_columns,
    normalise,
    read_history,
    records_digest,
    sentence_of,
)
from experiments.analysis.paper_claims import sentence_decisions
from experiments.analysis.plan import CONFIRMED, NOT_DECIDED, REFUTED
from experiments.paths import ROOT
from experiments.reporting.claims_text import TIMELINE, claims_table_lines
from tests.experiments.test_paper_claims import PAPER, make_records

RESULTS = ROOT / "results"
#: Every commit the timeline names, with the UTC time it states.
STATED = {
    "67f9718": "2026-11-22 00:41",
    "4b3da83": "2026-11-22 01:19",
    "68e2c32": "2026-11-22 03:01",
    "8f9dfd2": "2026-11-22 03:37",
    "a5b09ee": "2026-11-25 15:00",
}


def commit_time(commit: str) -> str | None:
    """The commit's author time in UTC ("2026-11-22 03:01"), or None without that history."""
    done = subprocess.run(
        ["git", "-C", str(ROOT), "log", "-1", "--date=format-local:%Y-%m-%d %H:%M", "--format=%ad", commit],
        capture_output=True,
        text=True,
        env={**os.environ, "TZ": "UTC"},
    )
    return done.stdout.strip() or None if done.returncode == 0 else None


@pytest.mark.parametrize(("commit", "stated"), STATED.items())
def test_the_timeline_states_gits_times(commit, stated):
    found = commit_time(commit)
    if found is None:
        pytest.skip(f"{commit} is not in this clone's history")
    assert found == stated
    date, time = stated.split(" ")
    assert commit in TIMELINE and time in TIMELINE and date in TIMELINE


def test_the_rule_sets_are_dated_by_their_commits():
    for rule_set in RULE_SETS:
        found = commit_time(rule_set.commit)
        if found is None:
            pytest.skip(f"{rule_set.short} is not in this clone's history")
        assert found == rule_set.date
    assert "before any record" not in TIMELINE and "No rule or margin preceded the records" in TIMELINE


def test_earlier_rows_map_to_sentences():
    assert [sentence_of(c) for c in ("1", "11 (N)", "11 (T)*", "12*", "14")] == ["1", "11", "11", "12", "14"]
    assert sentence_of("15") is None  # 68e2c32's claim ascribed to the conclusion
    assert normalise("not decided by our data") == normalise("not decided") == NOT_DECIDED
    assert normalise("refuted") == REFUTED


def test_the_digest_names_the_records_not_their_order():
    records = make_records(seed=1, repetitions=3)
    shuffled = records.sample(frac=1, random_state=0)
    assert records_digest(shuffled) == records_digest(records)
    changed = records.copy()
    changed.loc[0, "accuracy"] += 1e-12
    assert records_digest(changed) != records_digest(records)


def history_frame(digest: str) -> pd.DataFrame:
    a, b, c = (s.short for s in RULE_SETS)
    rows = [
        (c, "1", "parkinsons", "confirmed"),
        (c, "2", "parkinsons", "refuted"),
        (a, "1", "parkinsons", "confirmed"),
        (a, "11", "parkinsons", "not decided by our data"),
        (a, "11", "ecoli", "confirmed"),
        (a, "15", "all", "refuted"),
        (b, "1", "parkinsons", "confirmed"),
        (b, "11 (N)", "ecoli", "confirmed"),
        (b, "11 (T)*", "mnist", "refuted"),
    ]
    return pd.DataFrame(
        [(rules, "date", claim, dataset, verdict, digest) for rules, claim, dataset, verdict in rows],
        columns=COLUMNS,
    )


def test_earlier_columns_give_each_sentence_its_rows_and_each_set_its_count():
    records = make_records(seed=2)
    decisions = sentence_decisions(records, pd.read_csv(PAPER))
    columns = earlier_columns(history_frame("x"), decisions)
    first, second, third = columns.values()
    numbers = [d.sentence.number for d in decisions]
    assert first[numbers.index("1")] == "✔" and second[numbers.index("1")] == "✔"
    assert first[numbers.index("11")] == "1✔ 1? rows"
    assert second[numbers.index("11")] == "1✔ 1✘ rows"
    assert first[numbers.index("2")] == "—"  # a rule set that said nothing of the sentence
    assert first[-1] == "2✔ 1✘ 1? of 4 rows"  # the conclusion's row counts among the set's rows
    assert second[-1] == "2✔ 1✘ 0? of 3 rows"
    assert third[numbers.index("1")] == "✔" and third[numbers.index("2")] == "✘"  # sentences, not rows
    assert third[-1] == "1✔ 1✘ 0? of 2 sentences"


def test_the_section_refuses_earlier_verdicts_of_other_records():
    records = make_records(seed=3)
    decisions = sentence_decisions(records, pd.read_csv(PAPER))
    digest = records_digest(records)
    shown = "\n".join(claims_table_lines(history_frame(digest), decisions, digest))
    assert "68e2c32 (11-22)" in shown and "When the rules were fixed" in shown
    stale = "\n".join(claims_table_lines(history_frame("other"), decisions, digest))
    assert "computed on other records" in stale and "68e2c32 (11-22)" not in stale
    missing = "\n".join(claims_table_lines(None, decisions, digest))
    assert "claim_rule_history.py" in missing and "68e2c32 (11-22)" not in missing


@pytest.fixture(scope="module")
def committed() -> tuple[pd.DataFrame, pd.DataFrame | None]:
    from experiments.reporting.section import ReportContext

    records, _ = ReportContext(ROOT, RESULTS).records("paper")
    if records.empty:
        pytest.skip("no committed headline records")
    return records, read_history(RESULTS)


def test_the_committed_history_is_of_the_committed_records(committed):
    records, history = committed
    assert history is not None, (
        f"results/{HISTORY_CSV} is missing: python scripts/tools/claim_rule_history.py"
    )
    assert set(history["records"]) == {records_digest(records)}
    assert set(history["rules"]) == {s.short for s in RULE_SETS}
    # what each rule set counted on these records: 68e2c32 its 20 rows, a5b09ee its 23 (REPORT.md's
    # "6 confirmed, 11 refuted, 6 not decided" before these rules)
    a5 = history[history["rules"] == "a5b09ee"]["verdict"].map(normalise).value_counts()
    assert len(history[history["rules"] == "68e2c32"]) == 20
    assert (a5[CONFIRMED], a5[REFUTED], a5[NOT_DECIDED]) == (6, 11, 6)


@pytest.mark.slow
def test_the_earlier_rules_own_code_gives_the_committed_history(committed, tmp_path):
    """scripts/tools/claim_rule_history.py reruns both earlier rule sets from git on the committed
    records and writes the committed CSV byte for byte."""
    if any(commit_time(s.commit) is None for s in RULE_SETS):
        pytest.skip("the earlier rule sets' commits are not in this clone's history")
    out = tmp_path / "history.csv"
    script = ROOT / "scripts" / "tools" / "claim_rule_history.py"
    subprocess.run([sys.executable, str(script), "--out", str(out)], check=True, capture_output=True)
    assert out.read_text() == (RESULTS / HISTORY_CSV).read_text()
