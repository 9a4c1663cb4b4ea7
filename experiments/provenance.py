"""Which code produced a result: the checkout's commit, as runs record it."""

from __future__ import annotations

import subprocess
from pathlib import Path

from experiments.config import ROOT


def code_commit(checkout: Path = ROOT) -> str:
    """The checkout's commit (short hash, "+" if its code has uncommitted changes), or "unknown"."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=checkout, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "disdf", "experiments"],
            cwd=checkout,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + ("+" if dirty else "")
