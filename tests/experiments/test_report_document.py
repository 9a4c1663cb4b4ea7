"""REPORT.md as a reader gets it: the verdict first and short, the appendix apart, README's summary the
report's, and the statistics the verdicts rest on doing what scipy does."""

from __future__ import annotations

import re

import numpy as np
import pytest
from scipy import stats

from experiments.analysis import statistics
from experiments.paths import ROOT
from experiments.reporting.report import (
    APPENDIX,
    PERFORMANCE,
    README_BEGIN,
    README_END,
    SECTION_ORDER,
    put_section,
    read_sections,
    readme_with_summary,
)
from experiments.reporting.sections.run_details import duration

RESULTS = ROOT / "results"


def test_readme_says_what_the_report_s_verdict_says():
    summary = (RESULTS / "report" / "summary.md").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme.count(README_BEGIN) == readme.count(README_END) == 1
    assert readme_with_summary(readme, summary) == readme  # the generated block holds the summary
    assert len(summary.strip("\n").splitlines()) <= 25


def test_the_committed_summary_is_what_the_records_give():
    """The verdict and its table recomputed from the raw records equal the committed summary."""
    from experiments.reporting.section import ReportContext
    from experiments.reporting.sections import verdict

    rendered = verdict.render(ReportContext(ROOT, RESULTS))
    assert rendered is not None
    assert rendered.files[verdict.SUMMARY] == (RESULTS / verdict.SUMMARY).read_text(encoding="utf-8")


def test_the_committed_report_opens_with_a_short_verdict_and_its_main_part_is_at_most_2000_words():
    report = (RESULTS / "REPORT.md").read_text(encoding="utf-8")
    sections = read_sections(RESULTS)
    main = [text for name, text in sections.items() if name not in {*APPENDIX, *PERFORMANCE}]
    assert sum(len(re.findall(r"\S+", text)) for text in main) <= 2000  # every token, table rules included
    first = next(name for name in SECTION_ORDER if name in sections)
    assert first == "verdict"
    conclusion = sections["verdict"].split("\n\n")[1]
    assert len(re.findall(r"\S+", conclusion)) <= 200
    figure = re.search(r"!\[[^]]*\]\(([^)]+)\)", sections["verdict"]).group(1)
    assert (RESULTS / figure).is_file()
    assert not {*APPENDIX, *PERFORMANCE} & set(re.findall(r"<!-- section: (\w+) -->", report))
    assert "[APPENDIX.md](APPENDIX.md)" in report
    for raw in ("gcforest", "ci_half", "0.00 h"):
        assert raw not in report


def test_readme_block_is_replaced_and_its_markers_are_required():
    text = f"intro\n{README_BEGIN}\nold\n{README_END}\nrest\n"
    assert readme_with_summary(text, "new\n") == f"intro\n{README_BEGIN}\nnew\n{README_END}\nrest\n"
    with pytest.raises(ValueError, match="markers"):
        readme_with_summary("no markers", "new")


def test_sections_round_trip_through_the_three_documents(tmp_path):
    put_section(tmp_path, "speed", "## Speed\nfast")
    assert "## Speed" in (tmp_path / "REPORT.md").read_text() and not (tmp_path / "PERFORMANCE.md").exists()
    put_section(tmp_path, "protocol", "## Method\nm")
    put_section(tmp_path, "verdict", "## Verdict\nv")
    assert not (tmp_path / "APPENDIX.md").exists()  # no statistical detail yet: no appendix
    put_section(tmp_path, "audit", "## Mechanisms\na")
    report, appendix, performance = (
        (tmp_path / n).read_text() for n in ("REPORT.md", "APPENDIX.md", "PERFORMANCE.md")
    )
    assert report.index("## Verdict") < report.index("## Method") and "## Speed" not in report
    assert "## Speed\nfast" in performance and "## Speed" not in appendix
    assert "## Mechanisms\na" in appendix and "## Mechanisms" not in report
    assert "[APPENDIX.md](APPENDIX.md)" in report and "[PERFORMANCE.md](PERFORMANCE.md)" in report
    assert read_sections(tmp_path) == {
        "speed": "## Speed\nfast",
        "protocol": "## Method\nm",
        "verdict": "## Verdict\nv",
        "audit": "## Mechanisms\na",
    }


@pytest.mark.parametrize(
    ("seconds", "text"), [(4.2, "4.2 s"), (42, "42 s"), (90, "1.5 min"), (6480, "1.80 h"), (0.001, "0.0 s")]
)
def test_a_duration_is_written_in_the_unit_that_suits_it(seconds, text):
    assert duration(seconds) == text


def test_pratt_keeps_the_zeros_in_the_ranks_and_the_paired_t_is_scipy_s():
    rng = np.random.default_rng(0)
    base = rng.normal(0, 1, 40)
    treatment = base + np.r_[np.zeros(20), rng.normal(0.6, 1, 20)]
    wilcox = statistics.paired_wilcoxon(treatment, base)
    pratt = statistics.paired_wilcoxon_pratt(treatment, base)
    assert pratt == pytest.approx(stats.wilcoxon(treatment - base, zero_method="pratt").pvalue)
    assert pratt != pytest.approx(wilcox)
    assert statistics.paired_t_p(treatment, base) == pytest.approx(stats.ttest_rel(treatment, base).pvalue)
    assert statistics.paired_t_p(base, base) == 1.0 == statistics.paired_wilcoxon_pratt(base, base)


def test_a_contrast_over_one_group_is_a_one_sample_t_test():
    values = np.random.default_rng(1).normal(0.3, 1, 50)
    result = statistics.contrast_over_independent_groups([values])
    assert result["p"] == pytest.approx(stats.ttest_1samp(values, 0).pvalue)
    low, high = stats.t.interval(0.95, 49, loc=values.mean(), scale=stats.sem(values))
    assert (result["ci_low"], result["ci_high"]) == pytest.approx((low, high))
    assert (
        statistics.contrast_below_p(result, 5.0) < 1e-10 and statistics.contrast_below_p(result, -5.0) > 0.99
    )


def test_a_nadeau_bengio_corrected_contrast_of_one_group_is_the_textbook_formula():
    values = np.random.default_rng(5).normal(0.3, 1, 100)
    plain = statistics.contrast_over_independent_groups([values])
    assert statistics.contrast_over_independent_groups([values], [0.0]) == pytest.approx(plain)
    corrected = statistics.contrast_over_independent_groups([values], [0.5])
    scale = values.std(ddof=1) * np.sqrt(1 / 100 + 0.5)
    low, high = stats.t.interval(0.95, 99, loc=values.mean(), scale=scale)
    assert (corrected["ci_low"], corrected["ci_high"]) == pytest.approx((low, high))
    assert corrected["mean"] == plain["mean"]
    with pytest.raises(ValueError, match="2 resampling terms for 1 groups"):
        statistics.contrast_over_independent_groups([values], [0.5, 0.5])


def test_scaled_chi2_estimate_finds_each_scale_and_tests_one_for_all():
    rng = np.random.default_rng(3)
    df = np.full(4, 24.0)
    same = rng.chisquare(24, 4) / 2.0  # n = 2 in every group: n·S ~ χ²(df)
    result = statistics.scaled_chi2_estimate(same, df)
    np.testing.assert_allclose(result["n_hat"], df / same)
    assert result["pooled"] == pytest.approx(df.sum() / same.sum())
    assert result["p"] > 0.01
    mixed = np.r_[rng.chisquare(24, 2) / 1.0, rng.chisquare(24, 2) / 20.0]
    assert statistics.scaled_chi2_estimate(mixed, df)["p"] < 1e-4


def test_a_report_build_reads_each_folder_s_records_once(monkeypatch):
    """The headline's records serve the protocol section and every section that compares with them."""
    from experiments.reporting import section
    from experiments.reporting.section import ReportContext

    reads = []
    real = section.load_records
    monkeypatch.setattr(
        section, "load_records", lambda folder, grid: reads.append(folder) or real(folder, grid)
    )
    context = ReportContext(ROOT, RESULTS)
    first, plan = context.records("paper")
    again = context.folder_records(RESULTS, plan.grid)
    first.loc[first.index[0], "accuracy"] = -1.0  # a section changing its frame changes no other's
    assert len(reads) == 1 and not first.equals(again) and (again["accuracy"] >= 0).all()
