"""PERFORMANCE.md's "Where a large fit's time goes": a column per commit measured, the parts that matter."""

import pandas as pd

from experiments.reporting.section import ReportContext
from experiments.reporting.sections import fit_profile


def profile_rows(commit: str, growing: float, routing: float) -> list[dict]:
    parts = {"growing trees": growing, "held-out leaf rows": routing, "level scoring": 0.01}
    total = sum(parts.values())
    return [
        {"problem": "higgs_like", "method": "gcforest", "n_train": 300_000, "n_jobs": 2, "n_trees": 100}
        | {"part": part, "seconds": seconds, "share_of_parts": seconds / total}
        | {"wall_seconds_fit": total / 2, "cpu_seconds_fit": total, "peak_memory_gib": 5.0}
        | {"n_levels": 5, "levels_grown": 6, "test_accuracy": 0.9378, "date": "2026-11-27", "commit": commit}
        for part, seconds in parts.items()
    ]


def test_each_commit_is_a_column_and_tiny_parts_are_summed(tmp_path):
    assert fit_profile.render(ReportContext(tmp_path, tmp_path)) is None  # nothing before the bench ran
    path = tmp_path / fit_profile.PROFILE_CSV
    path.parent.mkdir(parents=True)
    # "0123456": a hash pandas would read as the number 123456
    pd.DataFrame(profile_rows("0123456", 1700.0, 700.0) + profile_rows("abcdef1", 1100.0, 600.0)).to_csv(
        path, index=False
    )
    text = fit_profile.render(ReportContext(tmp_path, tmp_path)).markdown
    assert "gcF, HIGGS-shaped, n = 300,000, T = 100, 2 jobs:" in text
    header = next(line for line in text.splitlines() if line.startswith("| part"))
    assert "0123456 (2026-11-27)" in header and "abcdef1 (2026-11-27)" in header
    growing = next(line for line in text.splitlines() if line.startswith("| growing trees"))
    assert "1,700 (71 %)" in growing and "1,100 (65 %)" in growing
    assert "| level scoring" not in text  # under half a percent everywhere: in "the other parts"
    assert "| the other parts" in text and "| fit: wall / CPU seconds | 1,200 / 2,400" in text


def test_a_capped_fit_profiled_over_its_first_levels_has_a_table_of_its_own(tmp_path):
    path = tmp_path / fit_profile.PROFILE_CSV
    path.parent.mkdir(parents=True)
    whole = profile_rows("abcdef1", 1100.0, 600.0)
    first_two = [
        row | {"method": "disdf_capped", "n_train": 1_000_000, "max_levels": 2}
        for row in profile_rows("abcdef1", 500.0, 400.0)
    ]
    pd.DataFrame(whole + first_two).to_csv(path, index=False)
    text = fit_profile.render(ReportContext(tmp_path, tmp_path)).markdown
    assert "gcF, HIGGS-shaped, n = 300,000, T = 100, 2 jobs:" in text  # a whole fit: no level limit
    assert (
        "DisDF, trees ≤ 200k rows, HIGGS-shaped, n = 1,000,000, T = 100, 2 jobs, its first 2 levels only:"
        in text
    )
