"""What the rule changes moved: the paper's claims under each rule set this repository has had, all
applied to today's records, and the dated facts of when each rule was fixed.

The two earlier rule sets (:data:`RULE_SETS`) are run by their own code, taken from git history
(``scripts/tools/claim_rule_history.py`` writes :data:`HISTORY_CSV` beside REPORT.md); the current
rules are :mod:`experiments.analysis.paper_claims`. Each earlier set decided table rows, not
sentences: :data:`SENTENCE_OF` maps its rows to the sentences of
:data:`experiments.analysis.paper_claims.SENTENCES`, and the history table shows, per sentence, the
verdict of its one row or the mix of its rows.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from experiments.analysis.claim_rules import SYMBOLS
from experiments.analysis.paper_claims import Decision
from experiments.analysis.plan import NOT_DECIDED

#: Where the earlier rule sets' verdicts are, relative to the results folder (REPORT.md's).
HISTORY_CSV = "claims/rule_history.csv"
COLUMNS = ["rules", "rules_date", "claim", "dataset", "verdict", "records"]
SHORT = SYMBOLS


@dataclass(frozen=True)
class RuleSet:
    """An earlier rule set: its commit, when it was committed (UTC) and the module whose
    ``claim_verdicts(records, paper)`` applied it."""

    commit: str
    date: str
    module: str
    #: What the rule set decided and counted: table "rows" (until 2026-11-25) or "sentences".
    unit: str = "rows"

    @property
    def short(self) -> str:
        return self.commit[:7]


RULE_SETS = (
    RuleSet("68e2c32ce2c8968528232a226fe6f89faa61a4ae", "2026-11-22 03:01", "experiments.paper_claims"),
    RuleSet(
        "a5b09ee2ab24ed16cbdf9726d100cb9389743b67", "2026-11-25 15:00", "experiments.reporting.paper_claims"
    ),
    RuleSet(
        "a2945393aa150f0eca4dcfc54c7045aee3556f97",
        "2026-11-27 07:28",
        "experiments.analysis.paper_claims",
        unit="sentences",
    ),
)


def sentence_of(claim: str) -> str | None:
    """The sentence an earlier rule set's row belongs to: "11 (T)*" -> "11"; the conclusion's "15" of
    68e2c32 (a claim the conclusion does not make) -> None."""
    number = str(claim).split(" ")[0].rstrip("*")
    return None if number == "15" else number


def normalise(verdict: str) -> str:
    """An earlier rule set's verdict in today's words ("not decided by our data" -> "not decided")."""
    return NOT_DECIDED if str(verdict).startswith(NOT_DECIDED) else str(verdict)


def records_digest(records: pd.DataFrame) -> str:
    """A digest of the records' results (dataset, N, T, method, repetition, accuracy), in any order:
    the history CSV names the records it was computed on."""
    keys = ["dataset", "N", "T", "method", "repetition"]
    rows = records.sort_values(keys)[[*keys, "accuracy"]].itertuples(index=False)
    text = "\n".join(",".join(map(repr, row)) for row in rows)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def read_history(folder: Path) -> pd.DataFrame | None:
    """The earlier rule sets' verdicts (:data:`HISTORY_CSV` under ``folder``), or None when absent."""
    path = Path(folder) / HISTORY_CSV
    if not path.is_file():
        return None
    return pd.read_csv(path, dtype={"rules": str, "claim": str})


def _cell(verdicts: list[str]) -> str:
    """One sentence's rows under an earlier rule set: the verdict of one row, or the mix of several
    ("1✔ 3? rows")."""
    if not verdicts:
        return "—"
    if len(verdicts) == 1:
        return SHORT[verdicts[0]]
    return " ".join(f"{verdicts.count(v)}{SHORT[v]}" for v in SHORT if v in verdicts) + " rows"


def _count(verdicts: list[str], unit: str) -> str:
    return " ".join(f"{verdicts.count(v)}{SHORT[v]}" for v in SHORT) + f" of {len(verdicts)} {unit}"


def earlier_columns(history: pd.DataFrame, decisions: list[Decision]) -> dict[str, list[str]]:
    """Per earlier rule set (a column named by its commit and date): its verdict of each sentence (or
    its rows' mix, "1✔ 3? rows"), then what it counted (its rows, among them 68e2c32's claim 15,
    ascribed to the conclusion, which does not make it)."""
    history = history.assign(
        sentence=history["claim"].map(sentence_of), verdict=history["verdict"].map(normalise)
    )
    columns = {}
    for s in RULE_SETS:
        mine = history[history["rules"] == s.short]
        if mine.empty:
            continue
        cells = [_cell(list(mine[mine["sentence"] == d.sentence.number]["verdict"])) for d in decisions]
        columns[f"{s.short} ({s.date[5:10]})"] = [*cells, _count(list(mine["verdict"]), s.unit)]
    return columns
