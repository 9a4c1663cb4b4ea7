"""Where the checkout is: the one module that the runner, the safety checks and the reports all read
for paths (so that none of them imports another's to find the checkout)."""

from __future__ import annotations

from pathlib import Path

#: The checkout's root: configs/, results/ and the shared data folder beside it are found from here.
ROOT = Path(__file__).resolve().parents[1]
#: Where `make` looks for the data when DISDF_DATA_DIR is not set: ../shared/data beside the checkout.
SHARED_DATA_DIR = ROOT.parent / "shared" / "data"
