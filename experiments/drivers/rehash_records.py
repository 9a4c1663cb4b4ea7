"""Move committed records to the config hash their folder's configs compose now.

    python -m experiments.drivers.rehash_records            # every folder under results/
    python -m experiments.drivers.rehash_records --check    # only say what would move (exit 1 if any)

A config hash covers everything in a config that can change a result
(:func:`experiments.running.composition.result_config`). When what it covers changes (a parameter
added, with its old behaviour as its default), every config's hash changes and no record does. Each
folder's ``configs.json`` names the overrides that made its records: composed now, they give each old
hash its new one. One old hash must give one new hash across every folder (else nothing is written),
and every record to move must match its digests (a record edited by hand is never signed anew).
Then each record file (``raw/*.jsonl``, a folder without ``configs.json`` by the same map), each
``runs.jsonl`` and each ``configs.json`` is rewritten atomically; in a record only ``config_hash`` and
its ``digests`` change. ``make tables RESULTS=<folder>`` re-renders a folder's documents, which print
the hash, and ``make test-records`` shows the records still regenerate.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from disdf.utils import write_text_atomically
from experiments.drivers.sign_records import record_files
from experiments.paths import ROOT
from experiments.running.composition import compose_config, config_hash
from experiments.running.folder_configs import CONFIGS_FILE, folder_configs
from experiments.running.records import digest_problem, signed

#: A folder's log of runs, each line naming its config hash.
RUNS_FILE = "runs.jsonl"


def hash_map(results: Path) -> dict[str, str]:
    """Old config hash -> the hash its folders' overrides compose now; refused if one old hash gives two."""
    moves: dict[str, str] = {}
    for path in sorted(results.rglob(CONFIGS_FILE)):
        for old, entry in folder_configs(path.parent).items():
            new = config_hash(compose_config(*entry["overrides"]))
            if moves.setdefault(old, new) != new:
                raise SystemExit(f"{path}: config {old} composes {new} here and {moves[old]} elsewhere")
    return {old: new for old, new in moves.items() if old != new}


def moved_lines(path: Path, moves: dict[str, str], sign: bool) -> tuple[str, int]:
    """The file's text with every line's ``config_hash`` moved (and, for records, signed anew)."""
    lines, moved = [], 0
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(keepends=True), 1):
        entry = json.loads(line)
        if json.dumps(entry, sort_keys=True) + "\n" != line:
            raise SystemExit(
                f"{path}, line {number}: not the sorted JSON the runner writes; nothing was written"
            )
        if entry.get("config_hash") in moves:
            if sign and (problem := digest_problem(entry)):
                raise SystemExit(f"{path}, line {number}: {problem}; nothing was written")
            entry["config_hash"] = moves[entry["config_hash"]]
            entry = signed(entry) if sign else entry
            moved += 1
        lines.append(json.dumps(entry, sort_keys=True) + "\n")
    return "".join(lines), moved


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=ROOT / "results")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a record would move")
    args = parser.parse_args(argv)
    moves = hash_map(args.results)
    for old, new in sorted(moves.items()):
        print(f"config {old} -> {new}")
    files = [(path, True) for path in record_files([args.results])]
    files += [(path, False) for path in sorted(args.results.rglob(RUNS_FILE))]
    rewritten = {path: moved_lines(path, moves, sign) for path, sign in files}  # every file checked first
    for path, (text, moved) in rewritten.items():
        if moved:
            print(f"{path.relative_to(args.results)}: {moved} lines")
            if not args.check:
                write_text_atomically(path, text)
    for path in sorted(args.results.rglob(CONFIGS_FILE)):
        configs = {moves.get(old, old): entry for old, entry in folder_configs(path.parent).items()}
        if not args.check:
            write_text_atomically(path, json.dumps(configs, indent=2, sort_keys=True) + "\n")
    return 1 if args.check and moves else 0


if __name__ == "__main__":
    sys.exit(main())
