"""A sweep killed with SIGKILL at random moments and resumed each time ends as if never interrupted.

Also: the same config and seed give the same raw records (timing aside) and
byte-identical tables across runs and across runtime.n_jobs = 1 and 2.
"""

import pytest

from experiments.soak import (
    compare_with,
    kill_and_resume,
    records_without_timing,
    run_to_completion,
    table_files,
)

# 2 datasets x 2 N x 2 T x 2 methods x 4 repetitions = 64 units in 16 splits, about 5 s of work.
SWEEP = ["experiment=smoke", "protocol.Ns=[30,40]", "protocol.Ts=[10,20]", "protocol.repetitions=4"]
UNITS = 64


def sweep(data_dir, n_jobs):
    return [*SWEEP, f"data.dir={data_dir}", f"runtime.n_jobs={n_jobs}"]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory, data_dir):
    output = tmp_path_factory.mktemp("uninterrupted")
    run_to_completion(output, sweep(data_dir, 2), timeout=300)
    return output


@pytest.mark.slow
def test_sigkill_at_random_moments_loses_and_duplicates_nothing(uninterrupted, tmp_path, data_dir):
    # One worker: splits land one at a time, so kills can fall between any two of them.
    report = kill_and_resume(tmp_path, sweep(data_dir, 1), UNITS, n_kills=6, seed=2026)
    summary = "\n".join(report.events)
    assert report.kills == 6 and report.kills_mid_run >= 5, summary
    assert report.lost == 0 and report.duplicated == 0, summary
    compare_with(report, tmp_path, uninterrupted)
    assert report.records_identical, summary
    assert report.tables_identical, summary


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_same_seed_same_records_and_tables_for_any_n_jobs(uninterrupted, tmp_path, data_dir, n_jobs):
    run_to_completion(tmp_path, sweep(data_dir, n_jobs), timeout=300)
    reference = records_without_timing(uninterrupted / "raw")
    assert sum(map(len, reference.values())) == UNITS
    assert records_without_timing(tmp_path / "raw") == reference
    assert table_files(tmp_path) == table_files(uninterrupted)
    assert {"ecoli.csv", "ecoli.md", "ecoli.tex", "ionosphere.csv"} <= set(table_files(tmp_path))
