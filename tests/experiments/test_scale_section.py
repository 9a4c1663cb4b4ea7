"""PERFORMANCE.md's "Growing data" section: every figure in it comes from scale.csv and scale_slopes.csv."""

import pandas as pd

from experiments.reporting.report import BY_NAME, PERFORMANCE
from experiments.reporting.section import ReportContext
from experiments.reporting.sections import scale
from scripts.bench import bench_scale

STAMP = {"date": "2026-11-26", "commit": "abc1234", "n_jobs": 2, "n_trees": 100}


def measured(problem, method, n, seconds, gib, accuracy=0.9, levels=3):
    return {
        "problem": problem, "method": method, "n_train": n, **STAMP, "fit_seconds": seconds,
        "peak_memory_gib": gib, "n_levels": levels, "test_accuracy": accuracy, "status": "ok",
    }  # fmt: skip


def table_rows(markdown: str) -> list[list[str]]:
    """The cells of every Markdown table row (header and rule lines included), stripped."""
    return [
        [cell.strip() for cell in line.split("|")[1:-1]]
        for line in markdown.splitlines()
        if line.startswith("|")
    ]


def write_bench(root, rows):
    bench = root / "results" / "bench"
    bench.mkdir(parents=True)
    frame = pd.DataFrame(rows)
    frame.to_csv(bench / "scale.csv", index=False)
    bench_scale.slopes(frame).to_csv(bench / "scale_slopes.csv", index=False)


def test_the_section_is_the_csvs_tables_slopes_and_stops_with_its_figure(tmp_path):
    skipped = "skipped: predicted 31 min > 20 min left"
    write_bench(
        tmp_path,
        [
            measured("mnist", "gcforest", 5_000, 10.0, 0.5, accuracy=0.9512),
            measured("mnist", "df21", 5_000, 100.0, 0.25),
            measured("mnist", "gcforest", 20_000, 80.0, 1.0),  # 4x the data: 8x the time, 2x the memory
            measured("mnist", "disdf", 20_000, 120.0, 0.8),
            measured("mnist", "random_forest", 20_000, 4.0, 0.4),
            {"problem": "mnist", "method": "df21", "n_train": 20_000, **STAMP, "status": skipped},
        ],
    )
    rendered = scale.render(ReportContext(tmp_path, tmp_path / "results"))
    text = rendered.markdown
    assert text.startswith("## Growing data") and "bench-scale` on 2026-11-26, commit abc1234 →" in text
    cells = {row[0]: row[1:] for row in table_rows(text)}
    # Columns: gcF, DisDF, DF21, RandomForest.
    assert cells["5,000"] == ["10 s / 0.50 GiB / 0.951", "—", "100 s / 0.25 GiB / 0.900", "—"]
    assert cells["20,000"] == [
        "80 s / 1.00 GiB / 0.900",
        "120 s / 0.80 GiB / 0.900",
        "—",
        "4 s / 0.40 GiB / 0.900",
    ]
    assert (
        "MNIST at n = 20,000: gcF 1.3 min and 1.00 GiB (20× and 2.5× RandomForest's), "
        "DisDF 2.0 min and 0.80 GiB (30× and 2.0× RandomForest's)." in text
    )
    assert ["MNIST", "gcF", "2: 5,000 – 20,000", "1.50", "0.50", "at the largest size asked"] in table_rows(
        text
    )
    assert ["MNIST", "DF21", "1: 5,000 – 5,000", "—", "—", skipped] in table_rows(text)
    (figure,) = rendered.figures
    rendered.figures[figure](tmp_path / "scale.png")
    assert (tmp_path / "scale.png").read_bytes().startswith(b"\x89PNG")


def test_df21s_larger_mnist_runs_are_quoted_beside_its_curve(tmp_path):
    write_bench(
        tmp_path,
        [measured("mnist", "df21", 5_000, 100.0, 0.25), measured("mnist", "df21", 10_000, 300.0, 0.5)],
    )
    df21 = pd.DataFrame(
        {
            "mode": ["native", "native", "kfold", "native"], "n_train": [10_000, 60_000, 60_000, 60_000],
            "n_jobs": [2, 2, 2, 8], "fit_seconds": [634.0, 2609.9, 999.0, 999.0],
            "peak_memory_gb": [0.56, 1.5689, 9.0, 9.0], "test_accuracy": [0.9639, 0.9796, 0.5, 0.5],
            "date": ["2026-11-22", "2026-11-25", "x", "x"],
        }
    )  # fmt: skip
    df21.to_csv(tmp_path / "results" / "bench" / "df21_mnist.csv", index=False)
    text = scale.render(ReportContext(tmp_path, tmp_path / "results")).markdown
    assert text.endswith("another day): 60,000 images: 2,610 s / 1.57 GiB / 0.980 (2026-11-25).")


def test_without_the_bench_the_section_is_absent_and_it_belongs_to_the_performance_document(tmp_path):
    assert scale.render(ReportContext(tmp_path, tmp_path)) is None
    assert BY_NAME["scale"] is scale.SECTION and "scale" in PERFORMANCE


def test_rows_of_several_runs_name_every_date_and_commit():
    rows = pd.DataFrame(
        {
            "date": ["2026-11-25", "2026-11-26", "2026-11-26", None],
            "commit": ["abc1234", "abc1234", "0123456", None],
        }
    )
    assert scale.measured_when(rows.iloc[:2]) == " on 2026-11-25, 2026-11-26, commit abc1234"
    assert (
        scale.measured_when(rows)
        == " on 2026-11-25, 2026-11-26, commits abc1234, 0123456: each row's in the CSV"
    )
    assert scale.measured_when(rows.drop(columns="date")) == ""


def test_a_fit_with_its_levels_on_disk_says_so_in_its_cell(tmp_path):
    on_disk = {**measured("higgs_like", "gcforest", 1_000_000, 2000.0, 6.0), "keep_fitted_levels": "disk"}
    in_memory = {**measured("higgs_like", "gcforest", 300_000, 600.0, 5.0), "keep_fitted_levels": "memory"}
    forest = {**measured("higgs_like", "random_forest", 300_000, 100.0, 0.6), "keep_fitted_levels": None}
    write_bench(tmp_path, [in_memory, forest, on_disk])
    cells = {row[0]: row[1:] for row in table_rows(scale.render(ReportContext(tmp_path, tmp_path)).markdown)}
    assert cells["1,000,000"] == ["2,000 s / 6.00 GiB / 0.900 (levels on disk)", "—"]
    assert cells["300,000"] == ["600 s / 5.00 GiB / 0.900", "100 s / 0.60 GiB / 0.900"]


def test_capped_cascades_are_their_own_curves_read_beside_the_uncapped_at_their_largest_n(tmp_path):
    rows = [
        measured("higgs_like", "gcforest", 300_000, 690.0, 2.3, 0.938),
        measured("higgs_like", "gcforest", 1_000_000, 4045.0, 6.14, 0.946),
        measured("higgs_like", "gcforest_capped", 300_000, 700.0, 2.3, 0.938),
        measured("higgs_like", "gcforest_capped", 1_000_000, 1500.0, 4.0, 0.944),
        measured("higgs_like", "disdf_capped", 1_000_000, 1600.0, 4.5, 0.943),
    ]
    write_bench(tmp_path, rows)
    markdown = scale.render(ReportContext(tmp_path, tmp_path / "results")).markdown
    assert (
        "gcF, trees ≤ 200k rows at n = 1,000,000: 25.0 min, 4.00 GiB, accuracy 0.944 "
        "(without the cap: 67.4 min, 6.14 GiB, accuracy 0.946)" in markdown
    )
    assert (
        "DisDF, trees ≤ 200k rows at n = 1,000,000: 26.7 min, 4.50 GiB, accuracy 0.943 "
        "(without the cap: not measured)" in markdown
    )
    assert "The capped cascades (dashed)" in markdown
    header = table_rows(markdown)[0]
    assert header == ["n", "gcF", "gcF, trees ≤ 200k rows", "DisDF, trees ≤ 200k rows"]
    slopes = pd.read_csv(tmp_path / "results" / "bench" / "scale_slopes.csv").set_index("method")
    assert slopes.loc["gcforest_capped", "n_points"] == 2 and slopes.loc["disdf_capped", "n_points"] == 1
