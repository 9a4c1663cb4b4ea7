"""What a run records of the code and library builds that produced it."""

import json
import re

import numpy as np
import scipy
import sklearn

from experiments.reporting.sections.speed import headline_runs
from experiments.safety.provenance import (
    code_commit,
    library_summary,
    library_versions,
    measurement_stamp,
    read_measurements,
)


def test_library_versions_name_the_installed_builds_and_every_loaded_blas():
    versions = library_versions()
    assert versions["numpy"] == np.__version__
    assert versions["scipy"] == scipy.__version__
    assert versions["scikit-learn"] == sklearn.__version__
    blas = [name for name in versions if name.split()[0] in ("openblas", "mkl", "blis", "flexiblas")]
    assert blas, f"no BLAS among {sorted(versions)}"
    assert all(versions[name] for name in blas)


def test_the_summary_is_one_csv_safe_line_of_every_version():
    summary = library_summary()
    assert "\n" not in summary and "," not in summary
    assert summary.split("; ") == [f"{name} {ver}" for name, ver in library_versions().items()]


def test_a_measurement_is_stamped_with_its_date_commit_and_builds():
    stamp = measurement_stamp()
    assert list(stamp) == ["date", "commit", "libraries"]
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", stamp["date"])
    assert stamp["commit"] == code_commit() and stamp["libraries"] == library_summary()


def test_the_speed_report_shows_a_run_s_commit_or_that_it_was_not_recorded(tmp_path):
    common = {"config_hash": "abc", "engine": "fast", "n_jobs": 2, "started": "2026-11-25T06:00:00+00:00"}
    lines = [
        {**common, "experiment": "paper", "units_run": 12_800, "wall_seconds": 3000.0},
        {**common, "experiment": "paper", "units_run": 12_800, "wall_seconds": 1200.0, "commit": "abc1234"},
    ]
    (tmp_path / "runs.jsonl").write_text("\n".join(json.dumps(line) for line in lines))
    assert headline_runs(tmp_path / "runs.jsonl")["commit"].tolist() == ["not recorded", "abc1234"]


def test_a_stamped_csv_keeps_its_short_hashes_as_text(tmp_path):
    path = tmp_path / "bench.csv"
    path.write_text("n,version_commit,commit\n1,0123456,1028691\n2,ceed8c2,718cb82\n")
    frame = read_measurements(path)
    assert frame["version_commit"].tolist() == ["0123456", "ceed8c2"]
    assert frame["commit"].tolist() == ["1028691", "718cb82"] and frame["n"].tolist() == [1, 2]
