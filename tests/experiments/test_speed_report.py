"""REPORT.md's Speed section: built from the files commands write, and only from what exists."""

import json

import pandas as pd

from experiments.analysis.cells import LABELS
from experiments.analysis.timing_comparison import parts_ab_verdict
from experiments.reporting.sections.speed import (
    PROTOCOL_PARTS,
    df21_ratio_table,
    headline_runs,
    mnist_ab_table,
    protocol_blocks,
    protocol_parts_table,
    speed_section,
)


def _write(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(path, index=False)


def test_only_complete_headline_runs_count(tmp_path):
    runs = tmp_path / "runs.jsonl"
    common = {"config_hash": "abc", "engine": "fast", "n_jobs": 2, "started": "2026-11-22T02:44:43+00:00"}
    lines = [
        {**common, "experiment": "paper", "units_run": 12_800, "wall_seconds": 3098.0},
        {**common, "experiment": "paper", "units_run": 300, "wall_seconds": 60.0},  # a resumed tail
        {**common, "experiment": "audit", "units_run": 12_800, "wall_seconds": 10.0},
    ]
    runs.write_text("\n".join(json.dumps(line) for line in lines))
    table = headline_runs(runs)
    assert table["wall (min)"].tolist() == ["51.6"] and table["started"].tolist() == ["2026-11-22 02:44"]


def test_the_section_has_a_part_per_file_present(tmp_path):
    text = speed_section(tmp_path)
    assert text.startswith("## Speed") and "### One split" not in text and "DF21" not in text
    _write(
        tmp_path / "bench" / "split_breakdown.csv",
        [
            {
                "label": label,
                "dataset": "mnist",
                "N": 120,
                "splits": 3,
                "seconds_per_split": total,
                "trees_seconds": total / 2,
                "probabilities_seconds": 1.0,
                "weights_seconds": 0.5,
                "other_seconds": total / 2 - 1.5,
            }
            for label, total in (("before", 7.5), ("after", 6.0))
        ],
    )
    history = {
        "commit": "abc1234",
        "date": "2026-11-22",
        "engine": "binned",
        "weight_fitting": "cross_fit",
        "method": "disdf",
        "n_levels": 9,
        "fit_seconds": 540.0,
        "test_accuracy": 0.9790,
        "accuracy_ci_low": 0.9760,
        "accuracy_ci_high": 0.9817,
        "peak_memory_gb": 6.5,
    }
    _write(tmp_path / "mnist_full_history.csv", [history])
    text = speed_section(tmp_path)
    split_rows = [
        line for line in text.splitlines() if line.startswith("| after") or line.startswith("| before")
    ]
    assert [row.split("|")[3].strip() for row in split_rows] == ["7.5", "6.0"]  # before, then after
    assert "### One split" in text and "| abc1234" in text and "| 9.0 " in text
    assert "0.9790 [0.9760, 0.9817]" in text


def test_the_weight_solves_appear_with_their_file(tmp_path):
    assert "bench_split_solves" not in speed_section(tmp_path)
    _write(
        tmp_path / "bench" / "split_solves.csv",
        [
            {"dataset": "ecoli", "setting": setting, "solves": 384, "seconds": seconds, "iterations": n}
            for setting, seconds, n in (("newton_adds_trees", 0.61, 2100), ("support_newton", 1.92, 66892))
        ],
    )
    text = speed_section(tmp_path)
    assert "bench_split_solves" in text and "| support_newton" in text and "66892" in text


def test_ours_beside_df21_are_listed_by_training_size(tmp_path):
    df21 = {
        "mode": "native",
        "library_version": "0.1.9",
        "n_trees": 100,
        "n_jobs": 2,
        "n_layers_built": 6,
        "fit_seconds": 600.0,
        "test_accuracy": 0.96,
        "peak_memory_gb": 0.5,
        "date": "2026-11-25",
    }
    _write(tmp_path / "bench" / "df21_mnist.csv", [{**df21, "n_train": n} for n in (10_000, 60_000)])
    ours = {
        "commit": "abc1234",
        "date": "2026-11-25",
        "engine": "binned",
        "method": "gcforest",
        "n_levels": 4,
        "fit_seconds": 60.0,
        "test_accuracy": 0.96,
        "accuracy_ci_low": 0.95,
        "accuracy_ci_high": 0.97,
        "peak_memory_gb": 1.5,
    }
    # Written in the order of the file names (ours_vs_df21_10000 before ours_vs_df21_60000 by glob).
    _write(tmp_path / "bench" / "ours_vs_df21_60000.csv", [{**ours, "n_train": 60_000, "fit_seconds": 540.0}])
    _write(tmp_path / "bench" / "ours_vs_df21_10000.csv", [{**ours, "n_train": 10_000}])
    text = speed_section(tmp_path)
    ours_part = text[text.index("Ours on the same images:") :]
    rows = [line for line in ours_part.splitlines() if line.startswith("| ") and "abc1234" in line]
    assert [row.split("|")[1].strip() for row in rows] == ["10000", "60000"]
    assert [row.split("|")[8].strip() for row in rows] == ["1.0", "9.0"]  # fit (min) of each size


def test_df21_over_ours_pairs_runs_of_one_date_only():
    df21 = pd.DataFrame(
        [
            {"n_train": 10_000, "date": "2026-11-22", "fit_seconds": 600.0, "test_accuracy": 0.96},
            {"n_train": 60_000, "date": "2026-11-25", "fit_seconds": 2400.0, "test_accuracy": 0.98},
        ]
    )
    ours = pd.DataFrame(
        [
            # 10,000 images: ours only on another day, so no ratio.
            {
                "n_train": 10_000,
                "date": "2026-11-23",
                "method": "gcforest",
                "fit_seconds": 30.0,
                "test_accuracy": 0.95,
            },
            {
                "n_train": 10_000,
                "date": "2026-11-23",
                "method": "disdf",
                "fit_seconds": 60.0,
                "test_accuracy": 0.95,
            },
            {
                "n_train": 60_000,
                "date": "2026-11-25",
                "method": "gcforest",
                "fit_seconds": 480.0,
                "test_accuracy": 0.97,
            },
            {
                "n_train": 60_000,
                "date": "2026-11-25",
                "method": "disdf",
                "fit_seconds": 600.0,
                "test_accuracy": 0.975,
            },
        ]
    )
    table = df21_ratio_table(df21, ours)
    assert table["n_train"].tolist() == [60_000]
    assert table["DF21 / gcF"].tolist() == ["5.0×"] and table["DF21 / DisDF"].tolist() == ["4.0×"]
    assert table["test accuracy DF21 / gcF / DisDF"].tolist() == ["0.9800 / 0.9700 / 0.9750"]


def test_the_protocol_parts_add_up_and_give_the_wall_time_without_each():
    parts = pd.DataFrame(
        [
            {
                "dataset": dataset,
                "N": 50,
                "splits": 2,
                "seconds_per_split": 6.0,
                "trees_seconds": trees,
                "probabilities_seconds": 1.0,
                "weights_seconds": 2.0,
                "other_seconds": 3.0 - trees,
                "protocol_repetitions": 100,
            }
            for dataset, trees in (("ecoli", 0.6), ("mnist", 2.4))
        ]
    )
    table = protocol_parts_table(parts).set_index("part")
    # core-minutes: trees (0.6 + 2.4) x 100 / 60 = 5; all: 12 s x 100 / 60 = 20
    assert table.loc["trees", "core-minutes"] == "5.0" and table.loc["all", "core-minutes"] == "20.0"
    assert table.loc["trees", "share"] == "25%"
    assert table.loc["trees", "wall on 2 cores without it (min)"] == "7.5"  # (20 - 5) / 2
    assert table.loc["all", "wall on 2 cores without it (min)"].startswith("10.0")


def _alternated_runs(candidate_over_baseline, margin=0.05):
    """Rows as bench_protocol_parts_ab.py writes them: pair i's baseline at 60 + i core-minutes (a drift)."""
    rows = []
    for pair, ratio in enumerate(candidate_over_baseline):
        for version, minutes in (("baseline", 60.0 + pair), ("candidate", (60.0 + pair) * ratio)):
            rows.append(
                {
                    "pair": pair,
                    "position": 2 * pair,
                    "version": version,
                    "version_commit": version[:4],
                    "core_minutes": minutes,
                    "system_cpu_seconds": 4.0,
                    "margin": margin,
                    "date": "2026-11-26",
                    **{f"{part}_core_minutes": minutes / 4 for part in PROTOCOL_PARTS},
                }
            )
    return pd.DataFrame(rows)


def test_a_candidate_within_the_margin_is_called_not_worse_and_one_past_it_is_not():
    within = parts_ab_verdict(_alternated_runs([1.00, 1.01, 0.99, 1.00]))
    assert within["not_worse"] and within["ci_low"] < 1.0 < within["ci_high"] < 1.05
    assert abs(within["ratio"] - 1.0) < 0.005
    slower = parts_ab_verdict(_alternated_runs([1.08, 1.10, 1.09, 1.11]))
    assert not slower["not_worse"] and slower["ci_low"] > 1.05
    noisy = parts_ab_verdict(_alternated_runs([0.90, 1.12, 0.95, 1.10]))  # mean near 1, too wide to tell
    assert not noisy["not_worse"]


def test_the_section_states_the_alternated_comparison_and_its_verdict(tmp_path):
    _write(
        tmp_path / "bench" / "protocol_parts_ab.csv", _alternated_runs([1.0, 1.01, 0.99]).to_dict("records")
    )
    text = "\n".join(protocol_blocks(tmp_path))
    assert "cand against base" in text and "non-inferiority p" in text and ": not worse." in text
    assert text.count("| candidate ") == 3 and text.count("| baseline ") == 3


def test_each_comparison_file_is_its_own_block_naming_its_output(tmp_path):
    bench = tmp_path / "bench"
    _write(bench / "protocol_parts_ab.csv", _alternated_runs([1.0, 1.01, 0.99]).to_dict("records"))
    _write(bench / "protocol_parts_ab_scale.csv", _alternated_runs([1.08, 1.10, 1.09]).to_dict("records"))
    text = "\n".join(protocol_blocks(tmp_path))
    assert text.count("non-inferiority p") == 2
    assert ": not worse." in text and ": not shown to be not worse." in text
    assert "--output results/bench/protocol_parts_ab_scale.csv`" in text
    assert text.count("--output") == 1  # the default file's command names no output


def test_full_mnist_before_and_after_gives_each_run_and_the_ratio_of_the_means(tmp_path):
    runs = []
    versions = [("baseline", "aaa1111", 1.0), ("candidate", "bbb2222", 0.8)]
    for position, (version, commit, scale) in enumerate(versions):
        for method, seconds in (("gcforest", 600.0), ("disdf", 900.0)):
            runs.append(
                {"pair": 0, "position": position, "version": version, "version_commit": commit,
                 "method": method, "fit_seconds": seconds * scale, "test_accuracy": 0.979,
                 "peak_memory_gb": 2.5}
            )  # fmt: skip
    _write(tmp_path / "results" / "bench" / "mnist_full_ab.csv", runs)
    section = speed_section(tmp_path / "results")
    assert "--baseline aaa1111" in section and "in the order AB;" in section
    table = mnist_ab_table(pd.DataFrame(runs)).set_index("method")
    assert list(table["candidate / baseline"]) == ["0.800", "0.800"]
    assert table.loc[LABELS["disdf"], "baseline (aaa1111): fit (min)"] == "15.0"
    assert table.loc[LABELS["gcforest"], "candidate (bbb2222): fit (min)"] == "8.0"


def test_a_comparison_run_for_a_stated_reason_says_it_before_its_verdict(tmp_path):
    bench = tmp_path / "bench"
    reason = "Run after the 3-pair comparison was inconclusive"
    _write(
        bench / "protocol_parts_ab_rerun.csv",
        _alternated_runs([1.0, 1.01, 0.99]).assign(why=reason).to_dict("records"),
    )
    _write(bench / "protocol_parts_ab.csv", _alternated_runs([1.0, 1.01, 0.99]).to_dict("records"))
    blocks = [line for line in protocol_blocks(tmp_path) if "non-inferiority p" in line]
    assert len(blocks) == 2
    assert blocks[0].startswith("The protocol's core-minutes")  # no reason given: none said
    assert blocks[1].startswith(reason + ". The protocol's core-minutes")
