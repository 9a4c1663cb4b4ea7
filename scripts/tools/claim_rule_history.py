"""The paper's claims decided by each earlier rule set's own code, on today's headline records.

    python scripts/tools/claim_rule_history.py            # writes results/claims/rule_history.csv
    python scripts/tools/claim_rule_history.py --root ../main --out /tmp/history.csv

For each rule set of ``experiments.analysis.claim_history.RULE_SETS``: ``git archive <commit>
experiments disdf configs`` into a temporary folder, then a fresh interpreter with only that folder on
its path imports the set's module and calls its ``claim_verdicts(records, paper)`` on the records of
``experiment=paper`` (handed over as a CSV: pandas writes and reads every float exactly) and on the
paper's tables. Each row is written with the rule set's commit and date and the digest of the records
(REPORT.md's claims section refuses a CSV made from other records). Needs git and the repository's
history (a shallow clone lacks the commits).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import argparse
import io
import os
import subprocess
import tarfile
import tempfile

import pandas as pd

from disdf.utils import write_text_atomically
from experiments.analysis import scanning_claim
from experiments.analysis.cells import DATASET_NAMES, PAPER_TABLES
from experiments.analysis.claim_history import COLUMNS, HISTORY_CSV, RULE_SETS, RuleSet, records_digest
from experiments.paths import ROOT
from experiments.reporting.section import ReportContext

#: What the old code reads of a record (the claims need no other field).
FIELDS = ["dataset", "N", "T", "method", "repetition", "seed", "accuracy"]
RUNNER = """
import importlib, sys
import pandas as pd
records = pd.read_csv(sys.argv[1])
paper = pd.read_csv(sys.argv[2])
module = importlib.import_module(sys.argv[3])
if hasattr(module, "claim_verdicts"):  # rules that decided table rows (until 2026-11-25)
    verdicts = module.claim_verdicts(records, paper)
else:  # rules that decide sentences (2026-11-27 on), the scanning sentence on experiment=mgs's pairs
    scanning = pd.read_csv(sys.argv[5]) if sys.argv[5] else None
    decisions = module.sentence_decisions(records, paper, scanning)
    verdicts = pd.DataFrame(
        [
            {"claim": d.sentence.number, "dataset": d.sentence.rows[0].dataset, "verdict": d.verdict}
            for d in decisions
        ]
    )
verdicts[["claim", "dataset", "verdict"]].to_csv(sys.argv[4], index=False)
"""


def materialise(commit: str, into: Path, repository: Path = ROOT) -> None:
    """The commit's experiments/, disdf/ and configs/ as files under ``into`` (git archive)."""
    archive = subprocess.run(
        ["git", "-C", str(repository), "archive", "--format=tar", commit, "experiments", "disdf", "configs"],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")


def old_verdicts(
    rule_set: RuleSet, records: pd.DataFrame, paper: Path, scanning: pd.DataFrame | None = None
) -> pd.DataFrame:
    """``rule_set``'s own verdicts on ``records`` (and ``scanning``, experiment=mgs's pairs with the
    headline, for the rules that decide the scanning sentence), run from its commit in a fresh
    interpreter."""
    with tempfile.TemporaryDirectory(prefix=f"claims-{rule_set.short}-") as folder:
        tree = Path(folder) / "tree"
        materialise(rule_set.commit, tree)
        records_csv, out = Path(folder) / "records.csv", Path(folder) / "verdicts.csv"
        records[FIELDS].to_csv(records_csv, index=False)
        scanning_csv = ""
        if scanning is not None:
            scanning_csv = str(Path(folder) / "scanning.csv")
            scanning[["method", "N", "T", "repetition", "d"]].to_csv(scanning_csv, index=False)
        environment = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
        environment["PYTHONPATH"] = str(tree)
        arguments = [str(records_csv), str(paper), rule_set.module, str(out), scanning_csv]
        command = [sys.executable, "-c", RUNNER, *arguments]
        subprocess.run(command, cwd=tree, env=environment, check=True)
        verdicts = pd.read_csv(out, dtype={"claim": str})
    keys = {name: key for key, name in DATASET_NAMES.items()}
    return verdicts.assign(
        rules=rule_set.short,
        rules_date=rule_set.date,
        dataset=verdicts["dataset"].map(lambda name: keys.get(name, name)),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose results/ records to read")
    parser.add_argument("--out", type=Path, help=f"the CSV to write (default: <root>/results/{HISTORY_CSV})")
    args = parser.parse_args()
    context = ReportContext(args.root, args.root / "results")
    records, _ = context.records("paper")
    if records.empty:
        sys.exit(f"No records of experiment=paper under {args.root / 'results'}: run make reproduce first")
    digest = records_digest(records)
    scanned, _ = context.records("mgs")
    scanning = None if scanned.empty else scanning_claim.paired_differences(scanned, records)
    frames = [old_verdicts(rule_set, records, PAPER_TABLES, scanning) for rule_set in RULE_SETS]
    table = pd.concat(frames, ignore_index=True).assign(records=digest)[COLUMNS]
    out = args.out or args.root / "results" / HISTORY_CSV
    out.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomically(out, table.to_csv(index=False))
    print(f"{len(table)} verdicts of {len(RULE_SETS)} earlier rule sets on records {digest}: {out}")


if __name__ == "__main__":
    main()
